"""Re-index requests: written by the `reindex_project` job, consumed by the documents sensor."""

from __future__ import annotations

import psycopg


def request_reindex(conn: psycopg.Connection, project: str, path: str | None = None) -> int:
    with conn.transaction():
        (request_id,) = conn.execute(
            "INSERT INTO reindex_requests (project, path) VALUES (%s, %s) RETURNING id",
            (project, path),
        ).fetchone()
    return request_id


def open_requests(conn: psycopg.Connection) -> list[tuple[int, str, str | None]]:
    return conn.execute(
        "SELECT id, project, path FROM reindex_requests WHERE done_at IS NULL ORDER BY id"
    ).fetchall()


def close_requests(conn: psycopg.Connection, ids: list[int]) -> None:
    if ids:
        with conn.transaction():
            conn.execute("UPDATE reindex_requests SET done_at = now() WHERE id = ANY(%s)", (ids,))
