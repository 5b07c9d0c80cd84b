"""Upload over the API, re-index through a real Dagster webserver's GraphQL, search the result."""

from __future__ import annotations

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dagster(tmp_path: Path, database_url: str):
    """dagster-webserver on a free port, its instance in tmp_path, runs launched at once."""
    home = tmp_path / "dagster"
    home.mkdir()
    (home / "dagster.yaml").write_text(INSTANCE, encoding="utf-8")
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
