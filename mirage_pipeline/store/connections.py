"""Connections to the index, kept open for reuse within a process.

A batched run of a hundred notes opened ~250 connections (each document's status, its rows,
its end): each a PostgreSQL server process forked, authenticated, given its catalog caches,
and pgvector's types looked up again — measured in process on 100 of git's notes, 1.6
CPU-seconds of PostgreSQL and 0.7 s before the first vector, on the two cores the embedder
needs. Here a connection handed back clean is kept (up to KEEP per database) and handed out
again: reset (what `DISCARD ALL` resets: settings, session advisory locks, cursors, temporary
tables — psycopg's own prepared statements stay valid) and checked alive (an empty query)
first, so the caller sees what a fresh connection would show.

Not psycopg_pool: its `getconn` waits out its timeout for a server that is away, and a run
must learn at once that the database is unreachable (a transient failure its step retries),
never queue for a slot behind its own threads' open transactions.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from pgvector.psycopg import register_vector

KEEP = 4  # idle connections kept per database URL
# A connection idle longer is closed instead of checked: a peer gone without a word (a
# dropped NAT entry, a failed-over host) would hang the check until TCP gives up.
MAX_IDLE_SECONDS = 60.0

# DISCARD ALL but its DEALLOCATE ALL: psycopg keeps the statements it prepared itself
_RESET = "RESET ALL; SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; DISCARD TEMP"

# url → (connection, the process that opened it, when it was handed back)
_idle: dict[str, list[tuple[psycopg.Connection, int, float]]] = {}
_lock = threading.Lock()


def connect(url: str) -> psycopg.Connection:
    """A new connection with the pgvector type registered."""
    conn = psycopg.connect(url)
    register_vector(conn)
    return conn


@contextmanager
def kept_connection(url: str) -> Iterator[psycopg.Connection]:
    """A connection as `with connect(url) as conn` gives it — committed at the end of the
    block, rolled back on an exception — then kept for the next caller instead of closed."""
    conn = _take(url) or connect(url)
    try:
        yield conn
    except BaseException:
        _give_back(url, conn, commit=False)
        raise
    _give_back(url, conn, commit=True)


def close_kept() -> None:
    """Close every kept connection (tests start from none; a dead one is otherwise dropped
    when next taken)."""
    with _lock:
        kept = [conn for conns in _idle.values() for conn, pid, _ in conns if pid == os.getpid()]
        _idle.clear()
    for conn in kept:
        conn.close()


def _take(url: str) -> psycopg.Connection | None:
    while True:
        with _lock:
            conns = _idle.get(url)
            if not conns:
                return None
            conn, pid, since = conns.pop()
        if pid != os.getpid():
            continue  # a forked child leaves its parent's socket alone
        if time.monotonic() - since > MAX_IDLE_SECONDS:
            conn.close()
            continue
        try:
            conn.execute("")  # alive? (kept in autocommit: no transaction begins)
        except psycopg.Error:
            conn.close()
            continue
        conn.autocommit = False
        return conn


def _give_back(url: str, conn: psycopg.Connection, *, commit: bool) -> None:
    """Commit or roll back (a failed commit raises, the connection closed); keep the
    connection reset if it is sound and fewer than KEEP are idle."""
    if conn.closed or conn.broken:
        conn.close()
        return
    try:
        if commit:
            conn.commit()
        else:
            conn.rollback()
    except BaseException:
        conn.close()
        if commit:
            raise
        return
    try:  # committed: whatever happens now is not the caller's failure
        conn.autocommit = True
        conn.read_only = conn.isolation_level = conn.deferrable = None
        conn.execute(_RESET)
    except psycopg.Error:
        conn.close()
        return
    with _lock:
        conns = _idle.setdefault(url, [])
        if len(conns) < KEEP:
            conns.append((conn, os.getpid(), time.monotonic()))
            return
    conn.close()
