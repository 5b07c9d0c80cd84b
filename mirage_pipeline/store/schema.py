"""Versioned, idempotent migrations, and one embedding index per embedding model."""

from __future__ import annotations

import functools
import logging
import re
from importlib import resources

import psycopg
from psycopg import sql

from mirage_pipeline.embedders.centering import vector_form
from mirage_pipeline.store.embedding_index import EmbeddingIndex
from mirage_pipeline.store.vector_forms import convert_raw_index

log = logging.getLogger(__name__)

# Any constant: every process that migrates takes this lock, so concurrent start-ups serialise.
_MIGRATION_LOCK = 0x6D697261
_MIGRATION_FILE = re.compile(r"^(\d{4})_(\w+)\.sql$")


class IndexModelMismatch(RuntimeError):
    """The embedder reports another dimension than its model's index was built with."""


class SchemaBehind(RuntimeError):
    """The database's schema is older than this miRAGe's migrations (readers refuse it)."""


MIGRATE_COMMAND = "python -m mirage_pipeline.store.migrate"


@functools.cache
def _migrations() -> list[tuple[int, str, str]]:
    found = []
    for entry in resources.files("mirage_pipeline.store.migrations").iterdir():
        match = _MIGRATION_FILE.match(entry.name)
        if match:
            found.append((int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    return sorted(found)


def expected_schema_version() -> int:
    """The version of the newest migration this miRAGe ships."""
    return _migrations()[-1][0]


def schema_version(conn: psycopg.Connection) -> int:
    """The newest migration applied to this database (0: none, not even the table)."""
    if conn.execute("SELECT to_regclass('schema_migrations')").fetchone()[0] is None:
        return 0
    return conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]


def check_schema(conn: psycopg.Connection) -> None:
    """Raise SchemaBehind, naming the fix, unless the database has every migration: a reader
    never migrates (the pipeline's store is the one writer of the schema)."""
    found, needed = schema_version(conn), expected_schema_version()
    if found < needed:
        state = "has no miRAGe schema" if found == 0 else f"has schema version {found}"
        raise SchemaBehind(
            f"the database {state}; this miRAGe needs version {needed}. Migrate it with "
            f"`{MIGRATE_COMMAND}` (`mirage up` and the Helm chart's code location do this "
            "before the services start)"
        )


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


def read_embedding_indexes(conn: psycopg.Connection) -> list[EmbeddingIndex]:
    rows = conn.execute(
        "SELECT id, model, dimension, vector_form FROM embedding_indexes ORDER BY id"
    )
    return [EmbeddingIndex(*row) for row in rows.fetchall()]


def bind_embedding_index(conn: psycopg.Connection, model: str, dimension: int) -> EmbeddingIndex:
    """The index of `model`, created (with its partial HNSW index) on first use.

    Another model gets another index beside the existing ones; a model whose dimension changed
    under the same name is refused, since its old vectors could not be compared with new ones.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        form = vector_form(model)
        row = conn.execute(
            "SELECT id, model, dimension, vector_form FROM embedding_indexes WHERE model = %s",
            (model,),
        ).fetchone()
        if row is None:
            row = conn.execute(
                "INSERT INTO embedding_indexes (model, dimension, vector_form)"
                " VALUES (%s, %s, %s) RETURNING id, model, dimension, vector_form",
                (model, dimension, form),
            ).fetchone()
            index = EmbeddingIndex(*row)
            log.info("new embedding index %d for %s (%d-d)", index.id, model, dimension)
            _create_hnsw(conn, index, "chunks", index.hnsw_name, index.vector_type(), "vector")
            _create_parts_index(conn, index)
            return index
        index = EmbeddingIndex(*row)
        if index.dimension == dimension:
            _create_parts_index(conn, index)  # an index made before windows existed
            if form is not None and index.vector_form is None:
                rows = convert_raw_index(conn, index, form)
                log.info("index %d: %d chunk vectors converted to %s", index.id, rows, form)
                index = EmbeddingIndex(index.id, index.model, index.dimension, form)
    if index.dimension != dimension:
        raise dimension_mismatch(model, dimension, index)
    return index


def dimension_mismatch(model: str, dimension: int, index: EmbeddingIndex) -> IndexModelMismatch:
    return IndexModelMismatch(
        f"MIRAGE_EMBEDDER {model} now gives {dimension}-d vectors, but its index holds "
        f"{index.dimension}-d ones; was the model replaced under the same name? "
        "Use another model name or a fresh database"
    )


def _create_parts_index(conn: psycopg.Connection, index: EmbeddingIndex) -> None:
    _create_hnsw(conn, index, "chunk_parts", index.parts_hnsw_name, index.halfvec_type(), "halfvec")


def _create_hnsw(
    conn: psycopg.Connection,
    index: EmbeddingIndex,
    table: str,
    name: str,
    cast: sql.Composable,
    kind: str,
) -> None:
    """The model's partial HNSW index over `table`'s vectors (cast to the model's dimension).

    An index that exists is left alone without a `CREATE INDEX IF NOT EXISTS`: that statement
    takes the table's SHARE lock first, and waits for every open write of chunks — a run
    starting beside another one sat 6 s of a 1,000-note drop here, before its first write."""
    found = conn.execute("SELECT to_regclass(quote_ident(%s))", (name,)).fetchone()
    if found is not None and found[0] is not None:
        return
    conn.execute(
        sql.SQL(
            "CREATE INDEX IF NOT EXISTS {name} ON {table} USING hnsw"
            " ((embedding::{cast}) {ops}) WITH (m = 16, ef_construction = 256)"
            " WHERE index_id = {id}"
        ).format(
            name=sql.Identifier(name),
            table=sql.Identifier(table),
            cast=cast,
            ops=sql.SQL(f"{kind}_cosine_ops"),
            id=sql.Literal(index.id),
        )
    )


def prepare_database(url: str, model: str, dimension: int) -> EmbeddingIndex:
    """Migrate and bind in one call: what every process does at start-up."""
    with psycopg.connect(url) as conn:
        apply_migrations(conn)
        return bind_embedding_index(conn, model, dimension)
