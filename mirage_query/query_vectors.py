"""Query vectors, embedded before a search takes a database connection and within a short
timeout: a slow or absent embedder costs a quick 503, never a pooled connection."""

from __future__ import annotations

import anyio
import numpy as np

from mirage_pipeline.embedders import Embedder, EmbedderError, EmbedderUnavailable
from mirage_pipeline.embedders.centering import center_query
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.search import clean_query
from mirage_query.settings import ServiceSettings

MAX_THREADS = 8  # queries embedding at once; threads left behind by a hung embedder count too


class QueryEmbedder:
    """Embeds queries side by side (the local embedder has an engine per core) in the form the
    index stores passages in (language centering)."""

    def __init__(self, embedder: Embedder, settings: ServiceSettings) -> None:
        self.embedder = embedder
        self.timeout = settings.query_embed_timeout
        ollama = settings.embedder.startswith("ollama:")
        self.where = f"Ollama at {settings.ollama_host}" if ollama else embedder.name
        self._limiter: anyio.CapacityLimiter | None = None

    def unavailable(self, what: str) -> EmbedderUnavailable:
        """The error a search needing a vector answers with (503: errors.py)."""
        return EmbedderUnavailable(
            f'the embedder ({self.where}) {what}; text search ("mode": "text") still works'
        )

    async def embed(self, index: EmbeddingIndex, queries: list[str]) -> list[np.ndarray]:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(MAX_THREADS)
        vectors: list[np.ndarray] = [np.empty(0)] * len(queries)

        async def one(i: int, query: str) -> None:
            vector = await anyio.to_thread.run_sync(
                self.embedder.embed_query,
                clean_query(query),
                abandon_on_cancel=True,  # a hung call is left to its own client timeout
                limiter=self._limiter,
            )
            vectors[i] = center_query(vector, query, index.model, index.vector_form)

        try:
            with anyio.fail_after(self.timeout):
                async with anyio.create_task_group() as group:
                    for i, query in enumerate(queries):
                        group.start_soon(one, i, query)
        except TimeoutError:
            raise self.unavailable(f"did not answer within {self.timeout:g} s") from None
        except BaseExceptionGroup as group:  # the task group wraps what a query raised
            raise self._explained(first_error(group)) from None
        except EmbedderError as exc:
            raise self._explained(exc) from None
        for vector in vectors:
            if vector.shape[-1] != index.dimension:
                raise self.unavailable(
                    f"gives {vector.shape[-1]}-d vectors, but its index holds "
                    f"{index.dimension}-d ones (was the model replaced under the same name?)"
                )
        return vectors

    def _explained(self, exc: BaseException) -> BaseException:
        if isinstance(exc, EmbedderUnavailable):
            return self.unavailable(f"is unreachable: {exc}")
        if isinstance(exc, EmbedderError):
            return self.unavailable(f"cannot embed the query: {exc}")
        return exc


def first_error(group: BaseExceptionGroup) -> BaseException:
    """The first exception a task group gathered, its own groups opened."""
    first = group.exceptions[0]
    return first_error(first) if isinstance(first, BaseExceptionGroup) else first
