"""Turns at the shared embedder, fair between runs: a run embeds one bounded batch per turn,
then queues again behind whoever waited, so a 40 000-chunk book and a one-page note alternate
instead of the note waiting for the whole book.

A turn is a PostgreSQL session advisory lock (one per slot, `MIRAGE_EMBED_CONCURRENCY`
slots). PostgreSQL grants a released lock to its waiters in arrival order, and frees the locks
of a session whose process died: a killed run worker never keeps a turn.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

LOCK_CLASS = 0x6D697267  # "mirg": the advisory lock space of embedder turns


@contextmanager
def embedder_turn(conn: psycopg.Connection, slots: int) -> Iterator[int]:
    """Hold a free slot, or wait for one, for the time of one batch; yields the slot."""
    held = None
    for slot in range(slots):
        if conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, slot)).fetchone()[0]:
            held = slot
            break
    if held is None:
        held = os.getpid() % slots
        conn.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, held))
    try:
        yield held
    finally:
        if not conn.closed and not conn.broken:
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, held))
