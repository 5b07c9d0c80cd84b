"""The embedding index the query service reads, found even while the embedder is unreachable.

The service never writes: `mirage up` (or the Helm chart's migrate step) migrates the schema and
binds the model's index before it starts (`mirage_pipeline.store.migrate`). At start-up the
service checks the schema (a database behind this miRAGe is refused, with the fix named) and
reads the index recorded for its model; until there is one (nothing indexed yet, or the
embedder was down when the stack started) it looks again, at most every second (every 5 s
while the embedder does not answer). Once found, the record is read again every
REFRESH_SECONDS: a migration that converts the index's vectors to another form (while the
service runs, in a cluster) changes how queries must be transformed.
"""

from __future__ import annotations

import logging
import time

import anyio
import psycopg

from mirage_pipeline.embedders import Embedder
from mirage_pipeline.store import EmbeddingIndex
from mirage_pipeline.store.migrate import probe_dimension, recorded_index
from mirage_pipeline.store.schema import check_schema

log = logging.getLogger("mirage_query")
RETRY_SECONDS = 1.0
EMBEDDER_RETRY_SECONDS = 5.0  # while the embedder does not answer (each try may wait for it)
REFRESH_SECONDS = 30.0  # a found index's record is read again this often


def find_index(
    database_url: str, embedder: Embedder, *, timeout: float
) -> tuple[EmbeddingIndex | None, str | None]:
    """The index recorded for the embedder's model (None if none yet) and, if the embedder did
    not answer within `timeout`, why not. Raises SchemaBehind for a database not migrated."""
    dimension, failure = probe_dimension(embedder, timeout)
    with psycopg.connect(database_url) as conn:
        check_schema(conn)
        return recorded_index(conn, embedder.name, dimension), failure


class IndexHolder:
    """The index; while the model has none yet, one request at a time looks for it again, at
    most every RETRY_SECONDS, and the others go on without waiting. A found index's record is
    read again every REFRESH_SECONDS the same way (a failed read keeps the index as it was)."""

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
        self._next_try = self._after(index, failure)
        self._lock = anyio.Lock()

    @staticmethod
    def _after(index: EmbeddingIndex | None, failure: str | None) -> float:
        if index is not None:
            return time.monotonic() + REFRESH_SECONDS
        return time.monotonic() + (RETRY_SECONDS if failure is None else EMBEDDER_RETRY_SECONDS)

    async def current(self) -> EmbeddingIndex | None:
        if time.monotonic() < self._next_try or self._lock.locked():
            return self.index
        async with self._lock:
            if self.index is None:
                index, failure = await anyio.to_thread.run_sync(
                    lambda: find_index(self._url, self._embedder, timeout=self._timeout)
                )
                if index is not None:
                    log.info("index found: %s (%d-d)", index.model, index.dimension)
                self.index, self.failure = index, failure
            else:
                self.index = await anyio.to_thread.run_sync(self._reread, self.index)
            self._next_try = self._after(self.index, self.failure)
        return self.index

    def _reread(self, index: EmbeddingIndex) -> EmbeddingIndex:
        try:
            with psycopg.connect(self._url, connect_timeout=5) as conn:
                recorded = recorded_index(conn, index.model, index.dimension)
        except (psycopg.Error, OSError) as exc:
            log.warning("the index record could not be read again: %s", exc)
            return index
        if recorded is None or recorded == index:
            return index
        log.info("index record changed: %s → %s", index, recorded)
        return recorded
