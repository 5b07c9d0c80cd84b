"""How a failed step ends: transient errors are retried with backoff, anything else — and a
transient error that outlived its retries — marks the document `error` with a readable reason."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg
import psycopg

from mirage_pipeline.defs.resources import MirageResource
from mirage_pipeline.documents_folder import split_document_key
from mirage_pipeline.embedders import EmbedderUnavailable
from mirage_pipeline.parsing import ParseError, file_type_of
from mirage_pipeline.store.documents import mark_document_error

MAX_RETRIES = 3
# 2 s, 4 s, 8 s (± jitter): long enough for an Ollama restart or a database failover.
RETRY_POLICY = dg.RetryPolicy(
    max_retries=MAX_RETRIES, delay=2, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS
)
TRANSIENT = (EmbedderUnavailable, psycopg.OperationalError, ConnectionError, TimeoutError)


@contextmanager
def failures_recorded(context: dg.AssetExecutionContext, mirage: MirageResource) -> Iterator[None]:
    """Run a step; on failure decide between a retry and a recorded `error`."""
    try:
        yield
    except Exception as exc:
        transient = isinstance(exc, TRANSIENT)
        attempt = context.retry_number + 1
        if transient and attempt <= MAX_RETRIES:
            context.log.warning(f"attempt {attempt} failed ({exc}); retrying")
            raise
        reason = str(exc) or type(exc).__name__
        if transient:
            reason = f"{reason} (gave up after {attempt} attempts)"
        _record(mirage, context.partition_key, reason, exc)
        raise dg.Failure(
            description=f"{context.partition_key}: {reason}", allow_retries=False
        ) from exc


def _record(mirage: MirageResource, key: str, reason: str, exc: Exception) -> None:
    project, path = split_document_key(key)
    try:
        with mirage.store_connection() as conn:
            mark_document_error(
                conn, project=project, path=path, file_type=file_type_of(path), message=reason
            )
    except Exception as db_exc:  # the original error matters more; keep it
        exc.add_note(f"could not record the error in the index: {db_exc}")


__all__ = ["MAX_RETRIES", "RETRY_POLICY", "ParseError", "failures_recorded"]
