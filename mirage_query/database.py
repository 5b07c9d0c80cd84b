"""The query service's connection pool, and whether the database answered its last connect.

A pool that finds no free connection in time raises the same `PoolTimeout` whether the database
is down or every connection is busy; the connect attempts the pool makes tell the two apart, so
a 503 can say which (errors.py).
"""

from __future__ import annotations

from typing import Any

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from mirage_query.search import configure_session

POOL_SIZE = 8
WAIT_SECONDS = 3  # a connection not found in 3 s: 503 (the database is down or busy)


class DatabaseReachability:
    """The outcome of the pool's latest connect attempt."""

    def __init__(self) -> None:
        self.failure: str | None = None  # the error of the latest attempt, None if it connected

    def connected(self) -> None:
        self.failure = None

    def failed(self, exc: Exception) -> None:
        self.failure = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

    @property
    def unreachable(self) -> bool:
        return self.failure is not None


def _tracked_connection(reachability: DatabaseReachability) -> type[AsyncConnection]:
    class TrackedConnection(AsyncConnection):
        @classmethod
        async def connect(cls, *args: Any, **kwargs: Any) -> TrackedConnection:  # type: ignore[override]
            try:
                conn = await super().connect(*args, **kwargs)
            except psycopg.OperationalError as exc:
                reachability.failed(exc)
                raise
            reachability.connected()
            return conn

    return TrackedConnection


async def _configure(conn: AsyncConnection) -> None:
    await register_vector_async(conn)
    await configure_session(conn)


def connection_pool(database_url: str, reachability: DatabaseReachability) -> AsyncConnectionPool:
    """Not opened yet: the lifespan opens it (and closes it)."""
    return AsyncConnectionPool(
        database_url,
        min_size=1,
        max_size=POOL_SIZE,
        kwargs={"autocommit": True},  # a search is one statement: no BEGIN/COMMIT trips
        configure=_configure,
        check=AsyncConnectionPool.check_connection,  # a restarted database: reconnect
        timeout=WAIT_SECONDS,
        connection_class=_tracked_connection(reachability),
        open=False,
    )
