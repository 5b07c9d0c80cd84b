"""`GET /ready`: the Kubernetes readiness probe of the query service (the chart points at it)."""

from __future__ import annotations

from pathlib import Path

import anyio
import psycopg
import psycopg.conninfo
import pytest
from litestar.testing import AsyncTestClient
from psycopg import sql

from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings

pytestmark = pytest.mark.integration


@pytest.fixture
async def client(database_url: str, local_embedder, tmp_path: Path):
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("key",)
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as test_client:
        yield test_client


async def test_ready_when_the_database_answers(client):
    response = await client.get("/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def _set_connections(admin_url: str, database: str, allowed: bool) -> None:
    """Refuse (or allow again) connections to `database` and cut the open ones."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        name = sql.Identifier(database)
        conn.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS {}").format(name, allowed))
        if not allowed:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )


async def test_not_ready_while_the_database_refuses_then_ready_again(
    client, postgres, database_url
):
    database = psycopg.conninfo.conninfo_to_dict(database_url)["dbname"]
    _set_connections(postgres.url, database, allowed=False)
    try:
        response = await client.get("/ready")
        assert response.status_code == 503
        assert response.json() == {"status": "unavailable"}
        assert (await client.get("/health")).status_code == 200
    finally:
        _set_connections(postgres.url, database, allowed=True)
    for _ in range(20):  # the pool replaces the connections it lost
        if (await client.get("/ready")).status_code == 200:
            break
        await anyio.sleep(0.5)
    assert (await client.get("/ready")).status_code == 200
