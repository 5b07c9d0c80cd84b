"""The chart's init container script (helm/mirage/files/wait_for_dependencies.py) against a real
PostgreSQL and a small local server speaking Ollama's /api/embed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.helm.conftest import CHART

SCRIPT = CHART / "files" / "wait_for_dependencies.py"
pytestmark = pytest.mark.integration


class FakeOllama(ThreadingHTTPServer):
    """Answers 404 ("model not found") until `pulled` is set, as Ollama does before a pull."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.pulled = threading.Event()
        self.requests: list[dict] = []


class _Handler(BaseHTTPRequestHandler):
    server: FakeOllama

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.requests.append({"path": self.path, **body})
        if self.path != "/api/embed" or not self.server.pulled.is_set():
            self._reply(404, {"error": f"model '{body.get('model')}' not found"})
            return
        self._reply(200, {"model": body["model"], "embeddings": [[0.6, 0.8]]})
        self.server.pulled.clear()  # only the first success counts

    def _reply(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    server = FakeOllama()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run_script(env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT)],
        env={**os.environ, "MIRAGE_WAIT_INTERVAL": "0.2", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_waits_until_the_model_answers(database_url, ollama):
    host = f"http://127.0.0.1:{ollama.server_address[1]}"
    threading.Timer(1.0, ollama.pulled.set).start()
    result = run_script(
        {
            "MIRAGE_DATABASE_URL": database_url,
            "MIRAGE_EMBEDDER": "ollama:mxbai-embed-large",
            "OLLAMA_HOST": host,
            "MIRAGE_WAIT_TIMEOUT": "30",
        }
    )
    assert result.returncode == 0, result.stderr
    assert "not ready (404)" in result.stdout
    assert "PostgreSQL and the embedder answer" in result.stdout
    assert {r["model"] for r in ollama.requests} == {"mxbai-embed-large"}
    assert len(ollama.requests) >= 2


def test_gives_up_with_the_reason_when_the_database_never_answers():
    result = run_script(
        {
            "MIRAGE_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
            "MIRAGE_EMBEDDER": "ollama:mxbai-embed-large",
            "MIRAGE_WAIT_TIMEOUT": "1",
        }
    )
    assert result.returncode == 1
    assert "gave up waiting: PostgreSQL" in result.stderr


def test_local_embedder_needs_only_the_database(database_url):
    result = run_script(
        {
            "MIRAGE_DATABASE_URL": database_url,
            "MIRAGE_EMBEDDER": "local:multilingual-e5-small",
            "OLLAMA_HOST": "http://127.0.0.1:1",
            "MIRAGE_WAIT_TIMEOUT": "5",
        }
    )
    assert result.returncode == 0, result.stderr


def test_the_query_service_waits_for_the_schema_the_migrate_step_brings(
    empty_database_url, monkeypatch
):
    from mirage_pipeline.store.migrate import main as migrate

    env = {
        "MIRAGE_DATABASE_URL": empty_database_url,
        "MIRAGE_EMBEDDER": "local:multilingual-e5-small",
        "MIRAGE_WAIT_FOR_SCHEMA": "1",
        "MIRAGE_WAIT_TIMEOUT": "1",
    }
    behind = run_script(env)
    assert behind.returncode == 1 and "gave up waiting: schema:" in behind.stderr
    for name in ("MIRAGE_DATABASE_URL", "MIRAGE_EMBEDDER"):
        monkeypatch.setenv(name, env[name])
    assert migrate() == 0
    assert run_script(env).returncode == 0
