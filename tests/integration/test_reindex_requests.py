"""One re-index path: `mirage reindex` → the query service → a re-index request in the index's
database → the documents sensor's next tick → a batched run → `ready` and searchable; a flood of
requests indexes each document once. No Dagster webserver: the service never launches runs."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import dagster as dg
import httpx
import psycopg
import pytest

from mirage_pipeline.names import REINDEX_TAG
from mirage_pipeline.store.reindex import open_requests
from mirage_query.settings import ServiceSettings
from tests.integration.test_pipeline_to_search import run_sensor
from tests.support.batches import requested_keys, run_all
from tests.support.live_service import live_service
from tests.support.live_service import run_cli as run
from tests.support.resources import indexing_resources

pytestmark = [pytest.mark.integration, pytest.mark.slow]
KEY = {"X-API-Key": "secret"}
NOTE = "# Bees\n\n## Hive\n\nOpen the hive on a warm, windless afternoon.\n"


@pytest.fixture
def stack(tmp_path: Path, database_url: str, local_embedder):
    """The query service over HTTP, and the pipeline's sensor and runs in process."""
    docs = tmp_path / "documents"
    docs.mkdir()
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("secret",), documents_dir=docs
    )
    mirage = indexing_resources(
        documents_dir=str(docs), database_url=database_url, embedder=local_embedder.name
    )
    with live_service(settings, local_embedder) as url:
        yield url, mirage, dg.DagsterInstance.ephemeral(), tmp_path


def tick(instance, mirage, cursor, tmp: Path):
    """One sensor tick, and its batched runs executed; (cursor, keys requested, run tags)."""
    result = run_sensor(instance, mirage, cursor)
    outcome = run_all(instance, mirage, result.run_requests, tmp / "storage")
    assert all(outcome.values()), outcome
    tags = [r.tags for r in result.run_requests]
    return result.cursor, requested_keys(result), tags


def status(url: str, doc_id: str) -> str:
    base = url.removesuffix("/api/v1")
    found = httpx.get(f"{base}/api/v1/projects/garden/documents/{doc_id}", headers=KEY)
    return found.json()["status"]


def test_mirage_reindex_goes_through_the_sensor_to_a_batched_run(stack, database_url):
    url, mirage, instance, tmp = stack
    note = tmp / "bees.md"
    note.write_text(NOTE, encoding="utf-8")
    added = run(["documents", "add", "-p", "garden", str(note), "--json"], url)
    assert added.exit_code == 0, added.output
    (accepted,) = json.loads(added.stdout)
    cursor, keys, _ = tick(instance, mirage, None, tmp)
    assert keys == ["garden/bees.md"] and status(url, accepted["id"]) == "ready"

    one = run(["reindex", "-p", "garden", "--document", "bees.md"], url)
    assert one.exit_code == 0, one.output
    header, row = one.output.splitlines()[:2]
    assert header.split() == ["DOCUMENT", "STATUS"] and row.split() == ["bees.md", "pending"]
    assert "1 document pending" in one.output
    assert status(url, accepted["id"]) == "pending"  # at once, before any run

    cursor, keys, tags = tick(instance, mirage, cursor, tmp)
    assert keys == ["garden/bees.md"] and tags[0][REINDEX_TAG]
    assert status(url, accepted["id"]) == "ready"
    with psycopg.connect(database_url) as conn:
        assert open_requests(conn) == []  # taken once
    assert tick(instance, mirage, cursor, tmp)[1] == []

    waited = {}
    waiter = threading.Thread(
        target=lambda: waited.update(
            result=run(["reindex", "-p", "garden", "--wait", "--timeout", "60", "--json"], url)
        )
    )
    waiter.start()
    deadline = time.monotonic() + 30
    while status(url, accepted["id"]) != "pending" and time.monotonic() < deadline:
        time.sleep(0.1)  # the request is recorded: the document turned pending
    cursor, keys, _ = tick(instance, mirage, cursor, tmp)
    waiter.join(90)
    assert waited["result"].exit_code == 0, waited["result"].output
    (final,) = json.loads(waited["result"].stdout)
    assert final["status"] == "ready" and final["id"] == accepted["id"]

    project = run(["reindex", "-p", "garden", "--json"], url)
    assert project.exit_code == 0, project.output
    body = json.loads(project.stdout)
    assert [(d["id"], d["filename"]) for d in body["documents"]] == [(accepted["id"], "bees.md")]
    hits = httpx.post(
        f"{url}/projects/garden/search", json={"query": "when to open a beehive"}, headers=KEY
    ).json()
    assert hits[0]["document"]["id"] == accepted["id"]


def test_a_reindex_flood_indexes_each_document_once(stack, database_url):
    url, mirage, instance, tmp = stack
    base = url.removesuffix("/api/v1")

    async def flood() -> list[str]:
        async with httpx.AsyncClient(base_url=base, timeout=120, headers=KEY) as client:
            ids = []
            for name in ("a.md", "b.md", "c.md"):
                uploaded = await client.post(
                    "/api/v1/projects/garden/documents",
                    files={"file": (name, f"# {name}\n\nText.\n".encode(), "text/markdown")},
                )
                assert uploaded.status_code == 202, uploaded.text
                ids.append(uploaded.json()["id"])
            calls = [
                client.post(f"/api/v1/projects/garden/documents/{ids[i % 3]}/reindex")
                if i % 5
                else client.post("/api/v1/projects/garden/reindex")
                for i in range(120)
            ]
            answers = await asyncio.gather(*calls)
            assert all(a.status_code == 202 for a in answers), {a.text for a in answers}
            return [a.json()["request_id"] for a in answers]

    request_ids = asyncio.run(flood())
    assert len(set(request_ids)) == 4  # one per document, one for the project
    with psycopg.connect(database_url) as conn:
        assert len(open_requests(conn)) == 4
    _, keys, _ = tick(instance, mirage, None, tmp)
    assert sorted(keys) == ["garden/a.md", "garden/b.md", "garden/c.md"]
