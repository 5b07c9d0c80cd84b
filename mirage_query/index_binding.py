"""The embedding index the query service reads, found even while the embedder is unreachable.

Binding an index needs the model's dimension, which Ollama only tells by embedding something.
With Ollama down (or hanging) at start-up the service still starts: it uses the index already
recorded for the model, so text search works, and binds the index once the embedder answers.
"""

from __future__ import annotations

import logging
import threading
import time

import anyio
import psycopg

from mirage_pipeline.embedders import Embedder
from mirage_pipeline.store import (
    EmbeddingIndex,
    apply_migrations,
    bind_embedding_index,
    read_embedding_indexes,
)

log = logging.getLogger("mirage_query")
RETRY_SECONDS = 5.0


def probe_dimension(embedder: Embedder, timeout: float) -> tuple[int | None, str | None]:
    """The embedder's dimension, or None and why not, within `timeout` seconds."""
    found: dict[str, object] = {}

    def probe() -> None:
        try:
            found["dimension"] = embedder.dimension
        except Exception as exc:  # any failure means: not now
            found["error"] = exc

    worker = threading.Thread(target=probe, name="embedder-probe", daemon=True)
    worker.start()
    worker.join(timeout)
    if "dimension" in found:
        return int(found["dimension"]), None  # type: ignore[call-overload]
    if "error" in found:
        return None, str(found["error"])
    return None, f"no answer within {timeout:g} s"


def bind_index(
    database_url: str, embedder: Embedder, *, timeout: float
) -> tuple[EmbeddingIndex | None, str | None]:
    """Migrate, then the embedder's index; without an answer from the embedder, the index
    recorded for its model (None if there is none yet) and the reason it did not answer."""
    dimension, failure = probe_dimension(embedder, timeout)
    with psycopg.connect(database_url) as conn:
        apply_migrations(conn)
        if dimension is not None:
            return bind_embedding_index(conn, embedder.name, dimension), None
        recorded = [i for i in read_embedding_indexes(conn) if i.model == embedder.name]
    return (recorded[0] if recorded else None), failure


class IndexHolder:
    """The index; while the model has none yet, one request at a time tries to bind it again,
    at most every 5 s, and the others go on without waiting."""

    def __init__(
        self,
        database_url: str,
        embedder: Embedder,
        timeout: float,
        index: EmbeddingIndex | None,
        failure: str | None,
    ) -> None:
        self._url = database_url
        self._embedder = embedder
        self._timeout = timeout
        self.index = index
        self.failure = failure  # why the embedder did not answer at the last try
        self._next_try = time.monotonic() + RETRY_SECONDS
        self._lock = anyio.Lock()

    async def current(self) -> EmbeddingIndex | None:
        if self.index is not None or time.monotonic() < self._next_try or self._lock.locked():
            return self.index
        async with self._lock:
            index, failure = await anyio.to_thread.run_sync(
                lambda: bind_index(self._url, self._embedder, timeout=self._timeout)
            )
            self._next_try = time.monotonic() + RETRY_SECONDS
            self.index, self.failure = index, failure
            if index is not None:
                log.info("index bound: %s (%d-d)", index.model, index.dimension)
        return self.index
