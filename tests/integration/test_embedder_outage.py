"""The query embedder fails, hangs or is down at start-up: searches that need a vector answer a
quick 503 naming it, text search and every other route keep answering, nothing holds the pool."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.embedders import create_embedder
from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.fake_ollama import FakeOllama, running_fake_ollama
from tests.support.live_service import free_port, live_service
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
KEY = {"X-API-Key": "k"}
MODEL = "ollama:mxbai-embed-large"
BREAD = [Passage("Knead the dough for ten minutes, then let it rise.", "Bread")]


def settings_for(tmp_path: Path, database_url: str, ollama_url: str) -> ServiceSettings:
    return ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",), embedder=MODEL, ollama_host=ollama_url
    )


def seed(database_url: str, fake: FakeOllama) -> None:
    embedder = create_embedder(MODEL, ollama_host=fake.url)
    write_document(database_url, embedder, "kitchen", "bread.md", BREAD)


def search(client, mode="hybrid", query="how long to knead dough"):
    body = {"query": query, "mode": mode}
    return client.post("/api/v1/projects/kitchen/search", json=body, headers=KEY)


async def test_a_hanging_embedder_costs_a_quick_503_and_text_search_still_works(
    database_url, tmp_path
):
    with running_fake_ollama() as fake:
        seed(database_url, fake)
        settings = settings_for(tmp_path, database_url, fake.url)  # default timeout: 4 s
        embedder = create_embedder(MODEL, ollama_host=fake.url)
        # over real HTTP: the test client would run one request at a time
        with live_service(settings, embedder) as api_url:
            client = httpx.AsyncClient(base_url=api_url.removesuffix("/api/v1"), timeout=30)
            assert (await search(client)).status_code == 200
            fake.hang_seconds = 60
            started = time.monotonic()
            # more searches than the pool has connections, all waiting for the embedder
            hanging = [asyncio.ensure_future(search(client)) for _ in range(12)]
            await asyncio.sleep(0.5)
            ready = await client.get("/ready")
            text = await search(client, mode="text", query="knead dough")
            listing = await client.get("/api/v1/projects", headers=KEY)
            others_took = time.monotonic() - started
            answers = await asyncio.gather(*hanging)
            took = time.monotonic() - started

            assert ready.status_code == 200 and ready.json() == {"status": "ok"}
            assert text.status_code == 200 and text.json()[0]["content"].startswith("Knead")
            assert listing.status_code == 200
            assert others_took < 2.5, others_took  # nobody waited for the embedder
            # the 4 s timeout, not the 60 s hang; slack for a slow machine (5.07 s seen once)
            assert took < 8, took
            for answer in answers:
                assert answer.status_code == 503, answer.text
                assert answer.headers["retry-after"] == "5"
                detail = answer.json()["detail"]
                assert f"the embedder (Ollama at {fake.url}) did not answer within 4 s" in detail
                assert '"mode": "text"' in detail
            batch = await client.post(
                "/api/v1/projects/kitchen/search/batch",
                json={"queries": [{"query": "dough"}, {"query": "rise"}]},
                headers=KEY,
            )
            assert batch.status_code == 503 and "did not answer" in batch.json()["detail"]

            fake.hang_seconds = 0
            assert (await search(client)).status_code == 200
            await client.aclose()


async def test_an_embedder_that_fails_answers_503_naming_it(database_url, tmp_path):
    with running_fake_ollama() as fake:
        seed(database_url, fake)
        settings = settings_for(tmp_path, database_url, fake.url)
        app = create_app(settings, embedder=create_embedder(MODEL, ollama_host=fake.url))
        async with AsyncTestClient(app=app) as client:
            fake.fail_next, fake.fail_status = 100, 503
            one = await search(client)
            assert one.status_code == 503, one.text
            assert f"the embedder (Ollama at {fake.url}) is unreachable" in one.json()["detail"]
            # two queries embedded side by side: both errors arrive in one ExceptionGroup
            batch = await client.post(
                "/api/v1/projects/kitchen/search/batch",
                json={"queries": [{"query": "dough"}, {"query": "rise"}]},
                headers=KEY,
            )
            assert batch.status_code == 503 and "is unreachable" in batch.json()["detail"]
            assert (await search(client, mode="text", query="dough")).status_code == 200
            # the failed vector leg let the full-text leg finish its statement: cancelled
            # midway, psycopg would have closed that pooled connection
            assert app.state.pool.get_stats().get("returns_bad", 0) == 0
            fake.models.clear()  # the model was removed: a refusal, not an outage
            fake.fail_next = 0
            gone = await search(client)
            assert gone.status_code == 503 and "cannot embed the query" in gone.json()["detail"]
            assert "ollama pull" in gone.json()["detail"]


async def test_the_service_starts_with_ollama_down_and_binds_once_it_answers(
    database_url, tmp_path
):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with running_fake_ollama(port=port) as fake:
        seed(database_url, fake)
    # Ollama is down: the service starts anyway on the index recorded for the model
    async with AsyncTestClient(app=create_app(settings_for(tmp_path, database_url, url))) as c:
        text = await search(c, mode="text", query="dough")
        assert text.status_code == 200 and len(text.json()) == 1
        hybrid = await search(c)
        assert hybrid.status_code == 503
        assert f"the embedder (Ollama at {url}) is unreachable" in hybrid.json()["detail"]
        assert (await c.get("/ready")).status_code == 200
        with running_fake_ollama(port=port):
            back = await search(c)
            assert back.status_code == 200 and back.json()[0]["content"].startswith("Knead")


async def test_a_model_without_an_index_yet_answers_once_ollama_returns(
    database_url, tmp_path, monkeypatch
):
    """Nothing indexed with the model yet: 503 while Ollama is down, then an empty answer (the
    pipeline binds the index when it indexes; the query service only reads)."""
    monkeypatch.setattr("mirage_query.index_binding.RETRY_SECONDS", 0.2)
    monkeypatch.setattr("mirage_query.index_binding.EMBEDDER_RETRY_SECONDS", 0.2)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with AsyncTestClient(app=create_app(settings_for(tmp_path, database_url, url))) as c:
        created = await c.post("/api/v1/projects", json={"name": "kitchen"}, headers=KEY)
        assert created.status_code == 201
        assert (await search(c, mode="text")).json() == []
        assert (await search(c)).status_code == 503
        with running_fake_ollama(port=port):
            await asyncio.sleep(0.3)
            hybrid = await search(c)
            assert hybrid.status_code == 200, hybrid.text
            assert hybrid.json() == []


def test_mirage_up_prepares_the_index_without_an_embedder(database_url: str) -> None:
    """Ollama down at start-up: `mirage up` warns and starts (text search works), it does not
    refuse to start."""
    import socket

    from mirage_query.settings import ServiceSettings
    from mirage_query.stack import _prepare_index

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = ServiceSettings.from_env(
        {"MIRAGE_EMBEDDER": "ollama:bge-m3", "OLLAMA_HOST": f"http://127.0.0.1:{port}"}
    ).with_overrides(query_embed_timeout=2.0)
    warning = _prepare_index(settings, database_url)
    assert warning and "does not answer" in warning and "text search works" in warning


async def test_the_service_sees_a_change_of_its_index_record_without_a_restart(
    database_url, monkeypatch
):
    """A migration that converts the index's vectors to another form while the service runs
    (a cluster's rolling upgrade) changes how queries are transformed: the service reads the
    record again, and keeps what it has when the database does not answer."""
    import dataclasses

    import psycopg

    from mirage_pipeline.embedders import create_embedder
    from mirage_pipeline.store import prepare_database
    from mirage_query.index_binding import IndexHolder

    monkeypatch.setattr("mirage_query.index_binding.REFRESH_SECONDS", 0.0)
    embedder = create_embedder("local:multilingual-e5-small")
    index = prepare_database(database_url, embedder.name, embedder.dimension)
    holder = IndexHolder(database_url, embedder, 1.0, index, None)
    assert await holder.current() == index
    with psycopg.connect(database_url) as conn:
        conn.execute("UPDATE embedding_indexes SET vector_form = NULL WHERE id = %s", (index.id,))
    assert await holder.current() == dataclasses.replace(index, vector_form=None)
    gone = IndexHolder("postgresql://127.0.0.1:1/none", embedder, 1.0, index, None)
    assert await gone.current() == index
