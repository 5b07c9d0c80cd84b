"""Migrate the index's database and bind the embedder's index before the services start.

`mirage up` calls `migrate_and_bind`; the Helm chart runs `python -m mirage_pipeline.store.migrate`
in the code location's init container. The query service only reads: it checks the schema
(`schema.check_schema`) and finds the index recorded for its model.
"""

from __future__ import annotations

import logging
import sys
import threading

import psycopg

from mirage_pipeline.embedders import Embedder, create_embedder
from mirage_pipeline.store.schema import (
    EmbeddingIndex,
    apply_migrations,
    dimension_mismatch,
    prepare_database,
    read_embedding_indexes,
)


def probe_dimension(embedder: Embedder, timeout: float) -> tuple[int | None, str | None]:
    """The embedder's dimension, or None and why not, within `timeout` seconds (Ollama tells
    its model's dimension only by embedding something, and may be down or hanging)."""
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


def recorded_index(
    conn: psycopg.Connection, model: str, dimension: int | None
) -> EmbeddingIndex | None:
    """The index recorded for `model` (None if none yet); a known `dimension` must match it."""
    recorded = next((i for i in read_embedding_indexes(conn) if i.model == model), None)
    if recorded is not None and dimension is not None and recorded.dimension != dimension:
        raise dimension_mismatch(model, dimension, recorded)
    return recorded


def migrate_and_bind(
    url: str, embedder: Embedder, *, timeout: float
) -> tuple[EmbeddingIndex | None, str | None]:
    """Migrate, then bind the embedder's index; an embedder that does not answer within
    `timeout` leaves the index as recorded (None if none yet), with the reason."""
    dimension, failure = probe_dimension(embedder, timeout)
    if dimension is not None:
        return prepare_database(url, embedder.name, dimension), None
    with psycopg.connect(url) as conn:
        apply_migrations(conn)
        return recorded_index(conn, embedder.name, None), failure


def main() -> int:
    """Migrate $MIRAGE_DATABASE_URL and bind $MIRAGE_EMBEDDER's index (when it answers)."""
    from mirage_pipeline.settings import Settings

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    settings = Settings.from_env()
    if not settings.database_url:
        print("MIRAGE_DATABASE_URL is not set", file=sys.stderr)
        return 2
    embedder = create_embedder(settings.embedder, ollama_host=settings.ollama_host)
    index, failure = migrate_and_bind(
        settings.database_url, embedder, timeout=settings.query_embed_timeout
    )
    if index is None:
        print(f"schema migrated; {settings.embedder}'s index is bound later: {failure}")
    else:
        print(f"schema migrated; index {index.id} for {index.model} ({index.dimension}-d)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
