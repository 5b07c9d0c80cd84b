"""Versioned, idempotent migrations and the binding of the index to one embedding model."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources

import psycopg
from psycopg import sql

log = logging.getLogger(__name__)

# Any constant: every process that migrates takes this lock, so concurrent start-ups serialise.
_MIGRATION_LOCK = 0x6D697261
_MIGRATION_FILE = re.compile(r"^(\d{4})_(\w+)\.sql$")


class IndexModelMismatch(RuntimeError):
    """The index holds vectors of another model than the configured embedder."""


@dataclass(frozen=True)
class EmbeddingIndex:
    model: str
    dimension: int


def _migrations() -> list[tuple[int, str, str]]:
    found = []
    for entry in resources.files("mirage_pipeline.store.migrations").iterdir():
        match = _MIGRATION_FILE.match(entry.name)
        if match:
            found.append((int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    return sorted(found)


def apply_migrations(conn: psycopg.Connection) -> list[int]:
    """Apply the migrations this database has not seen yet; return their versions."""
    applied_now = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        for version, name, body in _migrations():
            if version in done:
                continue
            log.info("applying migration %04d_%s", version, name)
            conn.execute(body)
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name)
            )
            applied_now.append(version)
    return applied_now


def read_embedding_index(conn: psycopg.Connection) -> EmbeddingIndex | None:
    row = conn.execute("SELECT model, dimension FROM embedding_index").fetchone()
    return EmbeddingIndex(row[0], row[1]) if row else None


def bind_embedding_index(conn: psycopg.Connection, model: str, dimension: int) -> EmbeddingIndex:
    """Give `chunks` an embedding column of `dimension` for `model`, or check it already has one.

    The first embedder to start fixes the index; another model later is refused rather than
    mixing vectors of two models in one column.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        current = read_embedding_index(conn)
        if current is None:
            conn.execute(
                sql.SQL("ALTER TABLE chunks ADD COLUMN embedding vector({}) NOT NULL").format(
                    sql.Literal(dimension)
                )
            )
            conn.execute(
                "CREATE INDEX chunks_embedding_hnsw ON chunks "
                "USING hnsw (embedding vector_cosine_ops)"
            )
            conn.execute(
                "INSERT INTO embedding_index (model, dimension) VALUES (%s, %s)", (model, dimension)
            )
            return EmbeddingIndex(model, dimension)
    if current != EmbeddingIndex(model, dimension):
        raise IndexModelMismatch(
            f"the index holds {current.dimension}-d vectors of {current.model}, but "
            f"MIRAGE_EMBEDDER is {model} ({dimension}-d); set MIRAGE_EMBEDDER back to "
            f"{current.model} or use a fresh database"
        )
    return current


def prepare_database(url: str, model: str, dimension: int) -> EmbeddingIndex:
    """Migrate and bind in one call: what every process does at start-up."""
    with psycopg.connect(url) as conn:
        apply_migrations(conn)
        return bind_embedding_index(conn, model, dimension)
