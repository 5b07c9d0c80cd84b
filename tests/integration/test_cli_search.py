"""`mirage search` against the real query service on a free port."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from click.testing import CliRunner

from mirage_pipeline.settings import Settings
from mirage_pipeline.store import prepare_database
from mirage_query.app import create_app
from mirage_query.cli import cli
from tests.integration.test_search_api import NOTES, index_markdown

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def api_url(database_url, local_embedder, tmp_path) -> Iterator[str]:
    prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    index_markdown(database_url, local_embedder, "kitchen", "notes.md", NOTES)
    settings = Settings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("secret",)
    )
    port = free_port()
    config = uvicorn.Config(
        create_app(settings, embedder=local_embedder),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "query service did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/api/v1"
    server.should_exit = True
    thread.join(10)


def run(args: list[str], api_url: str, key: str | None = "secret", home=None):
    env = {"MIRAGE_API_URL": api_url, "MIRAGE_API_KEY": key, "MIRAGE_HOME": home}
    return CliRunner().invoke(cli, args, env=env)


def test_search_prints_cited_passages(api_url, tmp_path):
    result = run(["search", "--project", "kitchen", "coffee brewing temperature"], api_url)
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("1. Kitchen › Coffee (lines ")
    assert "ninety-three degrees" in result.output


def test_search_json_is_the_api_response(api_url):
    result = run(["search", "-p", "kitchen", "bread dough", "--limit", "1", "--json"], api_url)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 1
    assert set(hits[0]) == {"chunk_id", "content", "score", "structure", "document"}
    assert hits[0]["structure"]["section"] == "Bread"


def test_search_reads_the_key_file_of_mirage_home(api_url, tmp_path):
    (tmp_path / "api-key").write_text("secret\n")
    result = run(["search", "-p", "kitchen", "bread"], api_url, key=None, home=str(tmp_path))
    assert result.exit_code == 0, result.output


def test_search_exit_codes(api_url, tmp_path):
    assert run(["search", "-p", "nope", "bread"], api_url).exit_code == 3
    wrong = run(["search", "-p", "kitchen", "bread"], api_url, key="wrong")
    assert wrong.exit_code == 5
    dead = run(["search", "-p", "kitchen", "bread"], f"http://127.0.0.1:{free_port()}/api/v1")
    assert dead.exit_code == 4
    assert "is `mirage up` running?" in dead.output
    assert run(["search", "-p", "kitchen", "bread", "--limit", "0"], api_url).exit_code == 2


def test_a_bad_setting_is_a_usage_error_naming_it(api_url):
    result = CliRunner().invoke(
        cli, ["search", "-p", "kitchen", "bread"], env={"MIRAGE_API_URL": "ftp://x"}
    )
    assert result.exit_code == 2
    assert "MIRAGE_API_URL" in result.output
