"""`mirage search` against the real query service on a free port."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from mirage_pipeline.store import prepare_database
from mirage_query.settings import ServiceSettings
from tests.integration.test_search_api import NOTES, index_markdown
from tests.support.live_service import free_port, live_service
from tests.support.live_service import run_cli as run
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

TAGGED = b"""---
title: Tea
tags: [drinks]
---
# Tea

## Green tea

Green tea is brewed at about seventy-five degrees, for two minutes.

## Black tea

Black tea takes boiling water and four minutes.
"""
STEPS = ["Fill the basket.", "Tamp the grounds firmly.", "Pull the shot.", "Steam milk."]


@pytest.fixture
def api_url(database_url, local_embedder, tmp_path) -> Iterator[str]:
    prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    index_markdown(database_url, local_embedder, "kitchen", "notes.md", NOTES)
    index_markdown(database_url, local_embedder, "kitchen", "tea.md", TAGGED)
    write_document(
        database_url, local_embedder, "kitchen", "espresso.md", [Passage(t, "Steps") for t in STEPS]
    )
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("secret",), documents_dir=tmp_path / "documents"
    )
    with live_service(settings, local_embedder) as url:
        yield url


def api(url: str, path: str, body: dict) -> object:
    response = httpx.post(f"{url}{path}", json=body, headers={"X-API-Key": "secret"})
    assert response.status_code == 200, response.text
    return response.json()


def test_search_prints_cited_passages(api_url, tmp_path):
    result = run(["search", "--project", "kitchen", "coffee brewing temperature"], api_url)
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("1. Kitchen › Coffee (line"), first
    assert " — notes.md  [" in first  # the file of every hit
    assert "ninety-three degrees" in result.output


def test_search_json_is_the_api_response(api_url):
    result = run(["search", "-p", "kitchen", "bread dough", "--limit", "1", "--json"], api_url)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 1
    assert hits == api(api_url, "/projects/kitchen/search", {"query": "bread dough", "limit": 1})
    assert {"chunk_id", "content", "score", "structure", "document", "highlights"} <= set(hits[0])
    assert hits[0]["structure"]["section"] == "Bread"


def test_search_options_reach_the_api(api_url):
    text = run(["search", "-p", "kitchen", "tea", "--mode", "text", "--json"], api_url)
    hits = json.loads(text.output)
    assert hits and all(h["scores"]["vector"] is None for h in hits)
    tagged = run(["search", "-p", "kitchen", "brewing", "--tag", "drinks", "--json"], api_url)
    assert {h["document"]["filename"] for h in json.loads(tagged.output)} == {"tea.md"}
    one_doc = run(["search", "-p", "kitchen", "brewing", "-d", "notes.md", "--json"], api_url)
    assert {h["document"]["filename"] for h in json.loads(one_doc.output)} == {"notes.md"}
    expanded = run(
        ["search", "-p", "kitchen", "tamp the grounds", "-n", "1", "--expand", "1", "--json"],
        api_url,
    )
    items = json.loads(expanded.output)
    assert [i["content"] for i in items] == STEPS[:3], items
    assert [i["context"] for i in items] == [True, False, True]
    human = run(
        ["search", "-p", "kitchen", "tamp the grounds", "-n", "1", "--expand", "1"], api_url
    )
    assert human.exit_code == 0 and "┆" in human.output


def test_batch_search(api_url):
    queries = ["how long to knead dough", "water temperature for green tea"]
    result = run(
        ["search", "-p", "kitchen", "--batch", *queries, "--limit", "2", "--json"], api_url
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer == api(
        api_url,
        "/projects/kitchen/search/batch",
        {"queries": [{"query": q} for q in queries], "limit": 2, "mode": "hybrid", "expand": 0},
    )
    assert set(answer) == {"results", "union"} and len(answer["results"]) == 2
    human = run(["search", "-p", "kitchen", "--batch", *queries, "--limit", "2"], api_url)
    assert human.exit_code == 0, human.output
    assert human.output.startswith("Q1: how long to knead dough")
    assert "Q2: water temperature for green tea" in human.output
    assert "(queries 1" in human.output and "Kitchen › Bread" in human.output


def test_search_reads_the_key_file_of_mirage_home(api_url, tmp_path):
    (tmp_path / "api-key").write_text("secret\n")
    result = run(["search", "-p", "kitchen", "bread"], api_url, key=None, home=str(tmp_path))
    assert result.exit_code == 0, result.output
    (tmp_path / "api-key").write_text("stale\n")
    stale = run(["search", "-p", "kitchen", "bread"], api_url, key=None, home=str(tmp_path))
    assert stale.exit_code == 5 and "$MIRAGE_HOME/api-key" in stale.output


def test_search_project_from_mirage_yaml(api_url, tmp_path, monkeypatch):
    (tmp_path / ".mirage.yaml").write_text("project_id: kitchen\n")
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "deep")
    result = run(["search", "grind the coffee beans", "--json"], api_url)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["document"]["filename"] == "notes.md"


def test_search_exit_codes(api_url, tmp_path):
    missing = run(["search", "-p", "nope", "bread"], api_url)
    assert missing.exit_code == 3 and "nope" in missing.output
    wrong = run(["search", "-p", "kitchen", "bread"], api_url, key="wrong")
    assert wrong.exit_code == 5
    no_key = run(["search", "-p", "kitchen", "bread"], api_url, key=None, home=str(tmp_path))
    assert no_key.exit_code == 5 and "MIRAGE_API_KEY" in no_key.output
    dead = run(["search", "-p", "kitchen", "bread"], f"http://127.0.0.1:{free_port()}/api/v1")
    assert dead.exit_code == 4
    assert "is `mirage up` running?" in dead.output
    assert run(["search", "-p", "kitchen", "bread", "--limit", "0"], api_url).exit_code == 2
    unknown = run(["search", "-p", "kitchen", "bread", "-d", "nonexistent.pdf"], api_url)
    assert unknown.exit_code == 3 and "no document 'nonexistent.pdf'" in unknown.output
    bad_name = run(["search", "-p", "kitchen", "x", "-d", "y" * 2000], api_url)
    assert bad_name.exit_code == 2, bad_name.output  # the API's 400


def test_a_bad_setting_is_a_usage_error_naming_it(api_url):
    result = run(["search", "-p", "kitchen", "bread"], "ftp://x")
    assert result.exit_code == 2
    assert "MIRAGE_API_URL" in result.output
