"""Upload over the API, re-index through a real Dagster webserver's GraphQL, search the result;
a flood of re-index requests queues one run per document."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.settings import Settings
from mirage_query.app import create_app
from tests.support.live_service import live_service

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
KEY = {"X-API-Key": "k"}
INSTANCE = """
run_coordinator:
  module: dagster.core.run_coordinator
  class: DefaultRunCoordinator
telemetry:
  enabled: false
"""
# no daemon runs beside this webserver: launched runs stay QUEUED
QUEUED_INSTANCE = """
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
telemetry:
  enabled: false
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dagster(tmp_path: Path, database_url: str):
    """dagster-webserver on a free port, its instance in tmp_path, runs launched at once."""
    with dagster_webserver(tmp_path, database_url, INSTANCE) as found:
        yield found


@pytest.fixture
def queued_dagster(tmp_path: Path, database_url: str):
    """dagster-webserver whose launched runs wait in the queue (no daemon)."""
    with dagster_webserver(tmp_path, database_url, QUEUED_INSTANCE) as found:
        yield found


@contextlib.contextmanager
def dagster_webserver(tmp_path: Path, database_url: str, instance: str):
    home = tmp_path / "dagster"
    home.mkdir()
    (home / "dagster.yaml").write_text(instance, encoding="utf-8")
    docs = tmp_path / "documents"
    docs.mkdir()
    port = free_port()
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "MIRAGE_HOME": str(tmp_path),
        "MIRAGE_DOCUMENTS_DIR": str(docs),
        "MIRAGE_DATABASE_URL": database_url,
        "MIRAGE_EMBEDDER": "local:multilingual-e5-small",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    webserver = Path(sys.executable).parent / "dagster-webserver"
    log = (tmp_path / "webserver.log").open("wb")
    process = subprocess.Popen(
        [str(webserver), "-h", "127.0.0.1", "-p", str(port), "-w", str(ROOT / "workspace.yaml")],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    try:
        while True:
            try:
                if httpx.get(f"{url}/server_info", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None, (tmp_path / "webserver.log").read_text()
            assert time.monotonic() < deadline, "dagster-webserver did not start"
            time.sleep(1)
        yield url, docs
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


async def test_upload_then_reindex_through_dagster(dagster, database_url, local_embedder, tmp_path):
    url, docs = dagster
    settings = Settings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",), documents_dir=docs, dagster_url=url
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        note = b"# Bees\n\n## Hive\n\nOpen the hive on a warm, windless afternoon.\n"
        uploaded = await client.post(
            "/api/v1/projects/garden/documents",
            files={"file": ("bees.md", note, "text/markdown")},
            headers=KEY,
        )
        assert uploaded.status_code == 202, uploaded.text
        doc_id = uploaded.json()["id"]
        launched = await client.post(
            f"/api/v1/projects/garden/documents/{doc_id}/reindex", headers=KEY
        )
        assert launched.status_code == 202, launched.text
        (run,) = launched.json()["runs"]
        assert (
            run["partition"] == "garden/bees.md" and run["document_id"] == doc_id and run["run_id"]
        )

        deadline = time.monotonic() + 240
        while True:
            doc = (
                await client.get(f"/api/v1/projects/garden/documents/{doc_id}", headers=KEY)
            ).json()
            if doc["status"] in ("ready", "error") or time.monotonic() > deadline:
                break
            time.sleep(2)
        assert doc["status"] == "ready", doc
        assert doc["id"] == doc_id and doc["chunk_count"] >= 1
        hits = await client.post(
            "/api/v1/projects/garden/search", json={"query": "when to open a beehive"}, headers=KEY
        )
        assert hits.json()[0]["document"]["id"] == doc_id

        whole = await client.post("/api/v1/projects/garden/reindex", headers=KEY)
        assert whole.status_code == 202 and [r["partition"] for r in whole.json()["runs"]] == [
            "garden/bees.md"
        ]


QUEUED_RUNS = """
query {
  runsOrError(filter: {statuses: [QUEUED]}) { ... on Runs { results { runId tags { key value } } } }
}"""


def queued_runs(url: str) -> dict[str, str]:
    """Run id → partition of every queued run."""
    body = httpx.post(f"{url}/graphql", json={"query": QUEUED_RUNS}, timeout=30).json()
    return {
        run["runId"]: next(t["value"] for t in run["tags"] if t["key"] == "dagster/partition")
        for run in body["data"]["runsOrError"]["results"]
    }


async def test_a_reindex_flood_queues_one_run_per_document(
    queued_dagster, database_url, local_embedder, tmp_path
):
    url, docs = queued_dagster
    settings = Settings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",), documents_dir=docs, dagster_url=url
    )
    # over real HTTP, so the calls really are concurrent (the test client runs one at a time)
    with live_service(settings, local_embedder) as api_url:
        client = httpx.AsyncClient(base_url=api_url.removesuffix("/api/v1"), timeout=120)
        ids = []
        for name in ("a.md", "b.md", "c.md"):
            uploaded = await client.post(
                "/api/v1/projects/garden/documents",
                files={"file": (name, f"# {name}\n\nText.\n".encode(), "text/markdown")},
                headers=KEY,
            )
            assert uploaded.status_code == 202, uploaded.text
            ids.append(uploaded.json()["id"])
        calls = [
            client.post(f"/api/v1/projects/garden/documents/{ids[i % 3]}/reindex", headers=KEY)
            if i % 5
            else client.post("/api/v1/projects/garden/reindex", headers=KEY)
            for i in range(190)
        ]
        answers = await asyncio.gather(*calls)
        assert all(a.status_code == 202 for a in answers), {a.text for a in answers}
        runs = [run for a in answers for run in a.json()["runs"]]
        queued = queued_runs(url)
        assert sorted(queued.values()) == ["garden/a.md", "garden/b.md", "garden/c.md"]
        assert {run["run_id"] for run in runs} == set(queued)
        assert sum(not run["already_queued"] for run in runs) == 3

        # a run that ended no longer counts: asking again queues a new one
        first = next(r for r, key in queued.items() if key == "garden/a.md")
        terminate = "mutation($id: String!) { terminateRun(runId: $id) { __typename } }"
        httpx.post(f"{url}/graphql", json={"query": terminate, "variables": {"id": first}})
        again = await client.post(
            f"/api/v1/projects/garden/documents/{ids[0]}/reindex", headers=KEY
        )
        (run,) = again.json()["runs"]
        assert run["already_queued"] is False and run["run_id"] not in queued
        assert len(queued_runs(url)) == 3
        await client.aclose()
