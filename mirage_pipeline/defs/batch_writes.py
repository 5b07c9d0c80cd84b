"""The writer thread of a batched run (batch.py).

The step's thread only embeds. Everything else the run writes goes through one writer thread,
in order: each document's rows as their vectors come in (`IndexWrite`, one transaction per
document, committed with its last chunk — PostgreSQL's upkeep of the HNSW and full-text indexes
then runs while the embedder works, instead of after it), its materializations and checks once
committed, and the embedding cache. With Ollama embedding elsewhere that upkeep costs nothing;
with the bundled embedder it fills the moments the embedder's threads wait.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack

import numpy as np
import psycopg

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.defs.document_steps import IndexWrite, Metadata
from mirage_pipeline.defs.resources import PostgresResource
from mirage_pipeline.store.cache import store_embeddings

# A document's rows are copied in groups of at least this many chunks (or the rest of it): a
# copy is a few round trips, and a long book arrives 32 texts at a time.
MIN_CHUNKS_PER_COPY = 16

Checks = dict[str, tuple[bool, Metadata]]
log = logging.getLogger(__name__)


class ChunkCursor:
    """Which chunks of a document have all their vectors (the chunk's and its windows'), in
    chunk order; the order to embed them in (each chunk, then its windows)."""

    def __init__(self, chunks: Sequence[Chunk], hashes: Sequence[str]) -> None:
        n = len(chunks)
        ends = np.cumsum([n, *(len(c.parts) for c in chunks)])
        self.needs = [[hashes[i], *hashes[ends[i] : ends[i + 1]]] for i in range(n)]
        self.ready = 0  # chunks [0, ready) have every vector
        self.written = 0  # chunks [0, written) were handed to the writer

    def embedding_order(self) -> list[str]:
        return [h for needs in self.needs for h in needs]

    def advance(self, known: Mapping[str, np.ndarray]) -> None:
        while self.ready < len(self.needs) and all(h in known for h in self.needs[self.ready]):
            self.ready += 1

    @property
    def complete(self) -> bool:
        return self.ready == len(self.needs)

    def take(
        self, known: Mapping[str, np.ndarray], dimension: int
    ) -> tuple[range, np.ndarray, np.ndarray] | None:
        """The ready chunks not handed over yet, with their vectors and their windows' vectors
        (None while fewer than MIN_CHUNKS_PER_COPY and more to come)."""
        which = range(self.written, self.ready)
        if not self.complete and len(which) < MIN_CHUNKS_PER_COPY:
            return None
        self.written = self.ready
        empty = np.empty((0, dimension), dtype=np.float32)
        chunks = [known[self.needs[i][0]] for i in which]
        windows = [known[h] for i in which for h in self.needs[i][1:]]
        return (
            which,
            np.vstack(chunks).astype(np.float32, copy=False) if chunks else empty,
            np.vstack(windows).astype(np.float32, copy=False) if windows else empty,
        )


class BatchWriter:
    """One thread writing documents and the embedding cache in the order asked; `close` waits
    for it and rolls back any document write left open (a step that failed)."""

    def __init__(self, postgres: PostgresResource, model: str) -> None:
        self._postgres, self._model = postgres, model
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mirage-writer")
        self._connections = ExitStack()
        self._cache: psycopg.Connection | None = None
        self._open: set[IndexWrite] = set()
        self._failed: dict[IndexWrite, BaseException] = {}

    def cache(self, hashes: list[str], vectors: np.ndarray) -> None:
        self._thread.submit(self._store, hashes, vectors)

    def add(
        self, write: IndexWrite, which: range, embeddings: np.ndarray, windows: np.ndarray
    ) -> None:
        self._thread.submit(self._add, write, which, embeddings, windows)

    def finish(self, write: IndexWrite, then: Callable[[Metadata, Checks], None]) -> Future:
        """Commit the document (after its queued rows); `then(metadata, checks)` reports it.
        The future holds the document's failure, if any."""
        return self._thread.submit(self._finish, write, then)

    def abort(self, write: IndexWrite, exc: BaseException) -> None:
        self._thread.submit(self._abort, write, exc)

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        try:
            for write in list(self._open):
                self._abort(write, RuntimeError("the batch step stopped"))
        finally:
            self._connections.close()

    def _store(self, hashes: list[str], vectors: np.ndarray) -> None:
        """Cache a batch; a failure costs only a re-embedding if the run is retried."""
        try:
            if self._cache is None:
                self._cache = self._connections.enter_context(self._postgres.store_connection())
                self._cache.autocommit = True
            store_embeddings(self._cache, self._model, hashes, vectors)
        except (psycopg.Error, OSError) as exc:
            log.warning("%d embedding(s) not cached: %s", len(hashes), exc)
            if self._cache is not None and self._cache.broken:
                self._cache = None  # the next batch opens another connection

    def _add(
        self, write: IndexWrite, which: range, embeddings: np.ndarray, windows: np.ndarray
    ) -> None:
        if write in self._failed:
            return
        self._open.add(write)  # (the writer thread alone keeps `_open` and `_failed`)
        try:
            write.add(which, embeddings, windows)
        except BaseException as exc:
            self._failed[write] = exc
            self._abort(write, exc)

    def _finish(self, write: IndexWrite, then: Callable[[Metadata, Checks], None]) -> None:
        if write in self._failed:
            raise self._failed.pop(write)
        self._open.discard(write)
        then(*write.finish())

    def _abort(self, write: IndexWrite, exc: BaseException) -> None:
        if write in self._open:
            self._open.discard(write)
            write.abort(exc)
