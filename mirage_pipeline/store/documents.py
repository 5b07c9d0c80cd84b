"""Writes of the pipeline: projects and document status (the swap of a document's chunks is
store/swap.py)."""

from __future__ import annotations

import uuid

import psycopg


def upsert_project(conn: psycopg.Connection, name: str) -> uuid.UUID:
    """The project's id, the project created if new.

    An existing project's row is read, never locked: an upsert (`ON CONFLICT DO UPDATE`) locks
    it FOR UPDATE, which waits for every open swap (store/swap.py), whose chunk rows hold it
    FOR KEY SHARE until they commit — one batched run's next document would wait for the other
    run's document to finish embedding."""
    select = "SELECT id FROM projects WHERE name = %s"
    row = conn.execute(select, (name,)).fetchone()
    if row is None:
        insert = (
            "INSERT INTO projects (name) VALUES (%s) ON CONFLICT (name) DO NOTHING RETURNING id"
        )
        # no row back: another transaction created it meanwhile
        row = conn.execute(insert, (name,)).fetchone() or conn.execute(select, (name,)).fetchone()
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
