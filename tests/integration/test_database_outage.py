"""The database goes away and comes back: 503 with Retry-After meanwhile, saying whether it is
unreachable or busy, then search again."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.embedded_postgres import start_embedded_postgres
from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
KEY = {"X-API-Key": "k"}


def start(pgdata: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return start_embedded_postgres(pgdata)


async def test_database_outage_is_503_and_the_service_recovers(local_embedder, tmp_path):
    server = start(tmp_path / "pgdata")
    try:
        write_document(server.url, local_embedder, "p", "a.md", [Passage("Bread and butter.", "B")])
        settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
            database_url=server.url, api_keys=("k",)
        )
        app = create_app(settings, embedder=local_embedder)
        async with AsyncTestClient(app=app) as client:
            body = {"query": "bread"}
            ok = await client.post("/api/v1/projects/p/search", json=body, headers=KEY)
            assert ok.status_code == 200 and ok.json()

            server.stop()
            for path in ("/api/v1/projects/p/search", "/api/v1/projects/p/search"):
                down = await client.post(path, json=body, headers=KEY)
                assert down.status_code == 503, down.text
                assert down.headers["retry-after"] == "5"
                assert "the database is unreachable" in down.json()["detail"], down.text
            listing = await client.get("/api/v1/projects", headers=KEY)
            assert listing.status_code == 503
            assert (await client.get("/ready")).status_code == 503
            assert (await client.get("/health")).status_code == 200

            server = start(tmp_path / "pgdata")
            deadline = time.monotonic() + 30
            while True:
                again = await client.post("/api/v1/projects/p/search", json=body, headers=KEY)
                if again.status_code == 200 or time.monotonic() > deadline:
                    break
                assert again.status_code == 503
            assert again.status_code == 200 and again.json()[0]["content"] == "Bread and butter."
            assert (await client.get("/ready")).status_code == 200
    finally:
        server.stop()


async def test_a_pool_with_no_free_connection_says_busy(database_url, local_embedder, tmp_path):
    write_document(database_url, local_embedder, "p", "a.md", [Passage("Bread and butter.", "B")])
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",)
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        pool = client.app.state.pool
        portal = client.blocking_portal  # the app's own event loop
        held = [portal.call(pool.getconn) for _ in range(pool.max_size)]
        try:
            busy = await client.post(
                "/api/v1/projects/p/search", json={"query": "bread"}, headers=KEY
            )
        finally:
            for conn in held:
                portal.call(pool.putconn, conn)
        assert busy.status_code == 503 and busy.headers["retry-after"] == "5"
        assert "the database is busy" in busy.json()["detail"], busy.text
        again = await client.post("/api/v1/projects/p/search", json={"query": "bread"}, headers=KEY)
        assert again.status_code == 200
