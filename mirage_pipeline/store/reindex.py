"""Re-index requests: the one way to ask for a re-index (the HTTP API, `mirage reindex` through
it, and the `reindex_project` job all write one); the documents sensor turns the open ones
into batched runs at its next tick and closes them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import psycopg


@dataclass(frozen=True)
class ReindexRequest:
    id: int
    new: bool  # False: an identical request was still open, and is the one that counts
    documents: list[tuple[uuid.UUID, str]] = field(default_factory=list)  # marked `pending`


def request_reindex(
    conn: psycopg.Connection,
    project: str,
    path: str | None = None,
    *,
    documents: Sequence[str] = (),
) -> ReindexRequest:
    """Ask for `project` (or its document at `path`) to be indexed again; the document rows at
    `documents` (paths whose files exist) become `pending` at once, so a client polling their
    status sees the re-index coming. Asking again before the sensor took the request adds
    nothing."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('mirage.reindex_requests'))")
        row = conn.execute(
            "SELECT id FROM reindex_requests WHERE done_at IS NULL AND project = %s"
            " AND path IS NOT DISTINCT FROM %s ORDER BY id LIMIT 1",
            (project, path),
        ).fetchone()
        new = row is None
        if new:
            row = conn.execute(
                "INSERT INTO reindex_requests (project, path) VALUES (%s, %s) RETURNING id",
                (project, path),
            ).fetchone()
        marked = conn.execute(
            "UPDATE documents d SET status = 'pending', error_message = NULL, updated_at = now()"
            " FROM projects p WHERE d.project_id = p.id AND p.name = %s AND d.path = ANY(%s)"
            " RETURNING d.id, d.path",
            (project, list(documents)),
        ).fetchall()
    return ReindexRequest(row[0], new, sorted(marked, key=lambda r: r[1]))


def open_requests(conn: psycopg.Connection) -> list[tuple[int, str, str | None]]:
    return conn.execute(
        "SELECT id, project, path FROM reindex_requests WHERE done_at IS NULL ORDER BY id"
    ).fetchall()


def close_requests(conn: psycopg.Connection, ids: list[int]) -> None:
    if ids:
        with conn.transaction():
            conn.execute("UPDATE reindex_requests SET done_at = now() WHERE id = ANY(%s)", (ids,))
