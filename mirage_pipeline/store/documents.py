"""Writes of the pipeline: projects, document status, and the atomic swap of a document's chunks."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.store.checks import ChecksFailed, document_checks
from mirage_pipeline.store.parts import write_parts
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_pipeline.store.vector_forms import stored_vectors


def connect(url: str) -> psycopg.Connection:
    """A connection with the pgvector type registered."""
    conn = psycopg.connect(url)
    register_vector(conn)
    return conn


def upsert_project(conn: psycopg.Connection, name: str) -> uuid.UUID:
    row = conn.execute(
        "INSERT INTO projects (name) VALUES (%s) "
        "ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id",
        (name,),
    ).fetchone()
    return row[0]


def start_document(
    conn: psycopg.Connection,
    *,
    project: str,
    path: str,
    file_type: str,
    content_hash: str,
    size_bytes: int,
) -> tuple[uuid.UUID, uuid.UUID]:
    """Register the document (or find it) and mark it `indexing`; returns (project id, document id).

    Its previous chunks stay searchable until `replace_chunks` swaps in the new ones.
    """
    with conn.transaction():
        project_id = upsert_project(conn, project)
        row = conn.execute(
            "INSERT INTO documents (project_id, path, file_type, content_hash, size_bytes, status)"
            " VALUES (%s, %s, %s, %s, %s, 'indexing')"
            " ON CONFLICT (project_id, path) DO UPDATE SET"
            "   file_type = EXCLUDED.file_type, content_hash = EXCLUDED.content_hash,"
            "   size_bytes = EXCLUDED.size_bytes, status = 'indexing', error_message = NULL,"
            "   updated_at = now()"
            " RETURNING id",
            (project_id, path, file_type, content_hash, size_bytes),
        ).fetchone()
    return project_id, row[0]


def mark_document_error(
    conn: psycopg.Connection, *, project: str, path: str, file_type: str, message: str
) -> None:
    """Record why a document could not be indexed; its previous chunks, if any, are kept."""
    with conn.transaction():
        project_id = upsert_project(conn, project)
        conn.execute(
            "INSERT INTO documents (project_id, path, file_type, status, error_message)"
            " VALUES (%s, %s, %s, 'error', %s)"
            " ON CONFLICT (project_id, path) DO UPDATE SET"
            "   status = 'error', error_message = EXCLUDED.error_message, updated_at = now()",
            (project_id, path, file_type, message),
        )


def replace_chunks(
    conn: psycopg.Connection,
    *,
    index: EmbeddingIndex,
    document_id: uuid.UUID,
    project_id: uuid.UUID,
    chunks: Sequence[Chunk],
    embeddings: np.ndarray,
    metadata: dict[str, Any],
    part_embeddings: np.ndarray | None = None,
    checked_window: int | None = None,
) -> ChunkWrite:
    """Make the document's chunks in `index` the given ones and mark it `ready`, in one
    transaction: a search sees either all of the old chunks or all of the new ones.

    A chunk whose text (content hash) the document already has keeps its row and its id: it is
    left alone when nothing about it changed, else moved to its new position and structure.
    Only new texts are inserted and only vanished ones deleted, so re-indexing an edited book
    rewrites a few rows, not all of them (and the HNSW and full-text indexes with them).
    `part_embeddings`: the vectors of the chunks' sentence windows (store.parts), if embedded.
    `checked_window`: run the checks of `store.checks` (with this token window) before the
    transaction commits; if one fails, raise `ChecksFailed` and roll back, so the rows search
    reads are never ones that failed a check. The results are on the returned `ChunkWrite`.
    """
    if len(chunks) != len(embeddings):
        raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
    if len(embeddings) and np.shape(embeddings)[1] != index.dimension:
        raise ValueError(
            f"{np.shape(embeddings)[1]}-d embeddings for the {index.dimension}-d index of "
            f"{index.model}"
        )
    with conn.transaction():
        conn.execute("SET CONSTRAINTS chunks_document_id_index_id_position_key DEFERRED")
        rows = conn.execute(
            "SELECT id, position, content_hash, structure, metadata, lang, coalesce(lemmas, '')"
            " FROM chunks"
            " WHERE document_id = %s AND index_id = %s",
            (document_id, index.id),
        ).fetchall()
        plan = _plan_write(rows, chunks)
        if plan.delete:
            conn.execute("DELETE FROM chunks WHERE id = ANY(%s)", (plan.delete,))
        if plan.move:
            with conn.cursor() as cur:
                cur.executemany(
                    "UPDATE chunks SET position = %s, structure = %s, metadata = %s, lang = %s,"
                    " lemmas = %s WHERE id = %s",
                    [
                        (
                            c.position,
                            Jsonb(c.structure),
                            Jsonb(_chunk_metadata(c)),
                            c.lang,
                            c.lemmas or None,
                            row_id,
                        )
                        for row_id, c in plan.move
                    ],
                )
        if plan.insert:
            _copy_chunks(conn, index, document_id, project_id, chunks, embeddings, plan.insert)
        write_parts(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=chunks,
            embeddings=embeddings,
            part_embeddings=part_embeddings,
        )
        conn.execute(
            "UPDATE documents SET status = 'ready', error_message = NULL, chunk_count = %s,"
            " metadata = %s, indexed_at = now(), updated_at = now() WHERE id = %s",
            (len(chunks), Jsonb(metadata), document_id),
        )
        checks = (
            document_checks(conn, index, document_id, checked_window)
            if checked_window is not None
            else {}
        )
        if not all(passed for passed, _ in checks.values()):
            raise ChecksFailed(checks)  # leaves the transaction: rolled back
    return ChunkWrite(
        kept=len(chunks) - len(plan.move) - len(plan.insert),
        moved=len(plan.move),
        inserted=len(plan.insert),
        deleted=len(plan.delete),
        checks=checks,
    )


@dataclass(frozen=True)
class ChunkWrite:
    """What replace_chunks did to the document's rows."""

    kept: int
    moved: int
    inserted: int
    deleted: int
    checks: dict[str, tuple[bool, dict[str, Any]]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.kept + self.moved + self.inserted


@dataclass
class _WritePlan:
    delete: list[int] = field(default_factory=list)
    move: list[tuple[int, Chunk]] = field(default_factory=list)
    insert: list[int] = field(default_factory=list)  # indexes into the new chunks


def _plan_write(rows: list[tuple], chunks: Sequence[Chunk]) -> _WritePlan:
    """Match the document's rows to the new chunks by text: same place and structure → keep,
    elsewhere → move, no row with that text → insert; rows left over are deleted."""
    plan = _WritePlan()
    by_position = {row[1]: row for row in rows}
    used: set[int] = set()
    waiting: list[int] = []
    for i, chunk in enumerate(chunks):
        row = by_position.get(chunk.position)
        if (
            row is not None
            and row[2] == chunk.content_hash
            and row[3] == chunk.structure
            and row[4] == _chunk_metadata(chunk)
            and row[5] == chunk.lang
            and row[6] == chunk.lemmas
        ):
            used.add(row[0])
        else:
            waiting.append(i)
    # a row is reused for the same text in the same language (its vector is stored in the
    # form of its language: store/vector_forms.py)
    free: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        if row[0] not in used:
            free.setdefault((row[2], row[5]), []).append(row[0])
    for i in waiting:
        chunk = chunks[i]
        same_text = free.get((chunk.content_hash, chunk.lang))
        if same_text:
            row_id = same_text.pop()
            used.add(row_id)
            plan.move.append((row_id, chunk))
        else:
            plan.insert.append(i)
    plan.delete = [row[0] for row in rows if row[0] not in used]
    return plan


def _chunk_metadata(chunk: Chunk) -> dict[str, Any]:
    return {"tokens": chunk.tokens, **chunk.metadata}


def _copy_chunks(
    conn: psycopg.Connection,
    index: EmbeddingIndex,
    document_id: uuid.UUID,
    project_id: uuid.UUID,
    chunks: Sequence[Chunk],
    embeddings: np.ndarray,
    which: list[int],
) -> None:
    stored = stored_vectors(index, embeddings[which], [chunks[i].lang for i in which])
    with conn.cursor().copy(
        "COPY chunks (index_id, document_id, project_id, position, content, structure,"
        " metadata, content_hash, lang, lemmas, embedding) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(
            [
                "int2",
                "uuid",
                "uuid",
                "int4",
                "text",
                "jsonb",
                "jsonb",
                "text",
                "text",
                "text",
                "vector",
            ]
        )
        for i, vector in zip(which, stored, strict=True):
            chunk = chunks[i]
            copy.write_row(
                (
                    index.id,
                    document_id,
                    project_id,
                    chunk.position,
                    chunk.content,
                    Jsonb(chunk.structure),
                    Jsonb(_chunk_metadata(chunk)),
                    chunk.content_hash,
                    chunk.lang,
                    chunk.lemmas or None,
                    vector,
                )
            )


def mark_document_pending(
    conn: psycopg.Connection,
    *,
    project: str,
    path: str,
    file_type: str,
    size_bytes: int | None = None,
) -> uuid.UUID:
    """A new or changed file was seen (by the sensor, or uploaded through the API): the document
    waits for its run (old chunks stay). Returns its id."""
    with conn.transaction():
        project_id = upsert_project(conn, project)
        return conn.execute(
            "INSERT INTO documents (project_id, path, file_type, size_bytes, status)"
            " VALUES (%s, %s, %s, %s, 'pending')"
            " ON CONFLICT (project_id, path) DO UPDATE SET"
            "   status = 'pending', error_message = NULL,"
            "   size_bytes = coalesce(EXCLUDED.size_bytes, documents.size_bytes),"
            "   updated_at = now()"
            " RETURNING id",
            (project_id, path, file_type, size_bytes),
        ).fetchone()[0]


def delete_project(conn: psycopg.Connection, name: str) -> int:
    """Remove a project's row and, by cascade, its documents and their chunks."""
    with conn.transaction():
        return conn.execute("DELETE FROM projects WHERE name = %s", (name,)).rowcount


def delete_document(conn: psycopg.Connection, *, project: str, path: str) -> int:
    """Remove a deleted file's document row and, by cascade, every chunk of it in every index."""
    with conn.transaction():
        cur = conn.execute(
            "DELETE FROM documents d USING projects p"
            " WHERE d.project_id = p.id AND p.name = %s AND d.path = %s",
            (project, path),
        )
        return cur.rowcount


def mark_unfinished_document_error(
    conn: psycopg.Connection, *, project: str, path: str, message: str
) -> bool:
    """A run died outside its steps' own error handling (a crash, a storage error, a cancel):
    a document it left `pending` or `indexing` becomes `error`. Returns whether one changed;
    a document already `ready` or `error` (a later run, or the step's own reason) is kept."""
    with conn.transaction():
        cur = conn.execute(
            "UPDATE documents d SET status = 'error', error_message = %s, updated_at = now()"
            " FROM projects p WHERE d.project_id = p.id AND p.name = %s AND d.path = %s"
            "   AND d.status IN ('pending', 'indexing')",
            (message, project, path),
        )
        return cur.rowcount > 0


def unsettled_documents(
    conn: psycopg.Connection, *, retried_suffix: str, older_than_seconds: float
) -> list[tuple[str, str, str, str | None]]:
    """(project, path, status, error) of documents waiting for a run (`pending`, `indexing`)
    or in an `error` ending with `retried_suffix`, untouched for `older_than_seconds`."""
    return conn.execute(
        "SELECT p.name, d.path, d.status, d.error_message FROM documents d"
        " JOIN projects p ON p.id = d.project_id"
        " WHERE d.updated_at < now() - make_interval(secs => %s)"
        "   AND (d.status IN ('pending', 'indexing')"
        "        OR (d.status = 'error' AND right(d.error_message, %s) = %s))",
        (older_than_seconds, len(retried_suffix), retried_suffix),
    ).fetchall()


def document_keys(conn: psycopg.Connection, *, older_than_seconds: float) -> list[tuple[str, str]]:
    """(project, path) of every document row untouched for `older_than_seconds`."""
    return conn.execute(
        "SELECT p.name, d.path FROM documents d JOIN projects p ON p.id = d.project_id"
        " WHERE d.updated_at < now() - make_interval(secs => %s)",
        (older_than_seconds,),
    ).fetchall()


def set_error_message(
    conn: psycopg.Connection, *, project: str, path: str, old: str, new: str
) -> None:
    """Replace a document's error message, if it is still `old`."""
    with conn.transaction():
        conn.execute(
            "UPDATE documents d SET error_message = %s FROM projects p"
            " WHERE d.project_id = p.id AND p.name = %s AND d.path = %s"
            "   AND d.status = 'error' AND d.error_message = %s",
            (new, project, path, old),
        )
