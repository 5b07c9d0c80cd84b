"""Writes of the pipeline: projects, document status, and the atomic swap of a document's chunks."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.store.schema import EmbeddingIndex


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
) -> int:
    """Swap the document's chunks in `index` for new ones and mark it `ready`, in one transaction.

    A search sees either all of the old chunks or all of the new ones, never a mix.
    """
    if len(chunks) != len(embeddings):
        raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
    if len(embeddings) and np.shape(embeddings)[1] != index.dimension:
        raise ValueError(
            f"{np.shape(embeddings)[1]}-d embeddings for the {index.dimension}-d index of "
            f"{index.model}"
        )
    with conn.transaction():
        conn.execute(
            "DELETE FROM chunks WHERE document_id = %s AND index_id = %s", (document_id, index.id)
        )
        with conn.cursor().copy(
            "COPY chunks (index_id, document_id, project_id, position, content, structure,"
            " metadata, content_hash, lang, embedding) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(
                ["int2", "uuid", "uuid", "int4", "text", "jsonb", "jsonb", "text", "text", "vector"]
            )
            for chunk, vector in zip(chunks, embeddings, strict=True):
                copy.write_row(
                    (
                        index.id,
                        document_id,
                        project_id,
                        chunk.position,
                        chunk.content,
                        Jsonb(chunk.structure),
                        Jsonb({"tokens": chunk.tokens, **chunk.metadata}),
                        chunk.content_hash,
                        chunk.lang,
                        vector,
                    )
                )
        conn.execute(
            "UPDATE documents SET status = 'ready', error_message = NULL, chunk_count = %s,"
            " metadata = %s, indexed_at = now(), updated_at = now() WHERE id = %s",
            (len(chunks), Jsonb(metadata), document_id),
        )
    return len(chunks)


def mark_document_pending(
    conn: psycopg.Connection, *, project: str, path: str, file_type: str
) -> None:
    """A new or changed file was seen: the document waits for its run (old chunks stay)."""
    with conn.transaction():
        project_id = upsert_project(conn, project)
        conn.execute(
            "INSERT INTO documents (project_id, path, file_type, status)"
            " VALUES (%s, %s, %s, 'pending')"
            " ON CONFLICT (project_id, path) DO UPDATE SET"
            "   status = 'pending', error_message = NULL, updated_at = now()",
            (project_id, path, file_type),
        )


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
