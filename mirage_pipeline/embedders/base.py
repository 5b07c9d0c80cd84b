"""The embedder interface the pipeline and the query service share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


class EmbedderError(RuntimeError):
    """The embedder cannot turn text into vectors."""


class EmbedderUnavailable(EmbedderError):
    """The embedder's service cannot be reached (worth retrying later)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns passages and queries into L2-normalised float32 vectors of a fixed dimension."""

    #: the `MIRAGE_EMBEDDER` spec, recorded with the index (e.g. "local:multilingual-e5-small")
    name: str
    #: longest input the model reads, in its own tokens; chunk sizes derive from it
    max_tokens: int

    @property
    def dimension(self) -> int: ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model would read for `text` as a passage (prefix included)."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32 array."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32 array."""
        ...


def revision_of(embedder: Embedder) -> str:
    """What an embedder's vectors come from beyond its name ("" if nothing): an embedder whose
    vectors change under the same name (the bundled model's engine) has a `revision`."""
    return getattr(embedder, "revision", None) or ""


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Scale rows to unit length so cosine distance and inner product agree."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32, copy=False)


def batched(items: Sequence[str], size: int) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
