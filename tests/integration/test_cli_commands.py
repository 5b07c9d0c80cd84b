"""`mirage projects`, `documents`, `reindex` against the real query service on a free port."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mirage_query.settings import ServiceSettings
from tests.support.live_service import live_service
from tests.support.live_service import run_cli as run
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
KEY = {"X-API-Key": "secret"}


WARNING = "pages 1–2: text re-decoded from T2A (fonts without a Unicode map)"


@pytest.fixture
def service(database_url, local_embedder, tmp_path) -> Iterator[tuple[str, Path]]:
    docs = tmp_path / "documents"
    (docs / "library" / "books").mkdir(parents=True)
    (docs / "library" / "books" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    write_document(
        database_url,
        local_embedder,
        "library",
        "books/guide.md",
        [Passage(f"Step {i}: install the part number {i}.", "Install") for i in range(4)],
        title="Install guide",
        warnings=[WARNING],
    )
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url,
        api_keys=("secret",),
        documents_dir=docs,
    )
    with live_service(settings, local_embedder) as url:
        yield url, docs


def api_get(url: str, path: str) -> object:
    response = httpx.get(f"{url}{path}", headers=KEY)
    assert response.status_code == 200, response.text
    return response.json()


def test_projects_list_create_delete(service):
    url, docs = service
    listed = run(["projects", "list"], url)
    assert listed.exit_code == 0, listed.output
    header, row = listed.output.splitlines()[:2]
    assert header.split() == ["PROJECT", "DOCUMENTS", "CHUNKS", "READY", "PENDING", "ERRORS"]
    assert row.split() == ["library", "1", "4", "1", "0", "0"]
    as_json = run(["projects", "list", "--json"], url)
    assert json.loads(as_json.output) == api_get(url, "/projects")

    created = run(["projects", "create", "fresh", "--json"], url)
    assert created.exit_code == 0 and json.loads(created.output)["name"] == "fresh"
    assert (docs / "fresh").is_dir()
    again = run(["projects", "create", "fresh"], url)
    assert again.exit_code == 1 and "exists" in again.output
    assert run(["projects", "create", "bad name"], url).exit_code == 2
    assert "created project other" in run(["projects", "create", "other"], url).output

    assert run(["projects", "delete", "fresh"], url).exit_code == 2  # no --yes
    assert (docs / "fresh").is_dir()
    deleted = run(["projects", "delete", "fresh", "--yes", "--json"], url)
    assert deleted.exit_code == 0, deleted.output
    assert json.loads(deleted.output) == {"deleted": True, "name": "fresh", "id": None}
    assert not (docs / "fresh").exists()
    assert run(["projects", "delete", "fresh", "--yes"], url).exit_code == 3
    names = [line.split()[0] for line in run(["projects", "list"], url).output.splitlines()[1:]]
    assert names == ["library", "other"]


def test_documents_list_status_chunks(service):
    url, _ = service
    listed = run(["documents", "list", "-p", "library"], url)
    assert listed.exit_code == 0, listed.output
    header, row = listed.output.splitlines()[:2]
    assert header.split()[:4] == ["DOCUMENT", "TYPE", "STATUS", "CHUNKS"]
    assert row.split()[:4] == ["books/guide.md", "markdown", "ready", "4"]
    documents = json.loads(run(["documents", "list", "-p", "library", "--json"], url).output)
    assert documents == api_get(url, "/projects/library/documents")
    doc_id = documents[0]["id"]

    for ref in ["books/guide.md", "guide.md", doc_id]:  # path, unique base name, id
        status = run(["documents", "status", "-p", "library", ref, "--json"], url)
        assert status.exit_code == 0, status.output
        assert json.loads(status.output) == api_get(url, f"/projects/library/documents/{doc_id}")
    human = run(["documents", "status", "-p", "library", "guide.md"], url)
    assert "status:    ready" in human.output and "chunks:    4" in human.output
    assert f"warning:   {WARNING}" in human.output  # what its parser warned about
    assert documents[0]["warnings"] == [WARNING]

    chunks = run(["documents", "chunks", "-p", "library", "guide.md", "--limit", "2"], url)
    assert chunks.exit_code == 0, chunks.output
    lines = chunks.output.splitlines()
    assert lines[0].split() == ["#", "TOKENS", "WHERE", "TEXT"]
    assert "Install guide › Install" in lines[1] and "Step 0" in lines[1]
    assert lines[-1] == "books/guide.md: chunks 1–2 of 4"
    page = json.loads(
        run(["documents", "chunks", "-p", "library", doc_id, "--offset", "2", "--json"], url).output
    )
    assert page == api_get(url, f"/projects/library/documents/{doc_id}/chunks?offset=2")
    assert page["total"] == 4 and [c["position"] for c in page["items"]] == [2, 3]


def test_documents_add_and_remove(service, tmp_path):
    url, docs = service
    first, second = tmp_path / "a.md", tmp_path / "b.txt"
    first.write_text("# A\n\nalpha\n")
    second.write_text("beta\n")
    added = run(["documents", "add", "-p", "library", str(first), str(second), "--json"], url)
    assert added.exit_code == 0, added.output
    accepted = json.loads(added.output)
    assert [(a["filename"], a["status"]) for a in accepted] == [
        ("a.md", "pending"),
        ("b.txt", "pending"),
    ]
    assert (docs / "library" / "a.md").read_text() == "# A\n\nalpha\n"
    human = run(["documents", "add", "-p", "new-project", str(first)], url)
    assert human.exit_code == 0 and "uploaded a.md → new-project/a.md (pending)" in human.output

    exists = run(["documents", "add", "-p", "library", str(first)], url)
    assert exists.exit_code == 1 and "replace" in exists.output
    first.write_text("# A\n\nalpha two\n")
    replaced = run(["documents", "add", "-p", "library", str(first), "--replace"], url)
    assert replaced.exit_code == 0, replaced.output
    assert (docs / "library" / "a.md").read_text() == "# A\n\nalpha two\n"

    removed = run(["documents", "remove", "-p", "library", "a.md", "--json"], url)
    assert removed.exit_code == 0, removed.output
    assert json.loads(removed.output) == {"deleted": True, "name": "a.md", "id": accepted[0]["id"]}
    assert not (docs / "library" / "a.md").exists()
    gone = run(["documents", "status", "-p", "library", "a.md"], url)
    assert gone.exit_code == 3 and "no document 'a.md'" in gone.output
    assert (
        "removed b.txt from library"
        in run(["documents", "remove", "-p", "library", "b.txt"], url).output
    )


def test_not_found_is_exit_3(service):
    url, _ = service
    for args in [
        ["documents", "list", "-p", "nope"],
        ["documents", "status", "-p", "library", "missing.md"],
        ["documents", "status", "-p", "library", "00000000-0000-0000-0000-000000000000"],
        ["documents", "chunks", "-p", "nope", "x.md"],
        ["documents", "remove", "-p", "library", "missing.md"],
        ["reindex", "-p", "nope"],
        ["reindex", "-p", "library", "--document", "missing.md"],
        ["search", "-p", "nope", "anything"],
    ]:
        result = run(args, url)
        assert result.exit_code == 3, (args, result.output)


def test_ambiguous_base_name_asks_for_the_path(service, tmp_path, database_url, local_embedder):
    url, _ = service
    write_document(database_url, local_embedder, "library", "old/guide.md", [Passage("x", "X")])
    ambiguous = run(["documents", "status", "-p", "library", "guide.md"], url)
    assert ambiguous.exit_code == 2 and "books/guide.md, old/guide.md" in ambiguous.output
    other = tmp_path / "guide.md"
    other.write_text("# Other guide\n")
    assert run(["documents", "add", "-p", "library", str(other)], url).exit_code == 0
    exact = run(["documents", "status", "-p", "library", "guide.md", "--json"], url)
    assert json.loads(exact.output)["filename"] == "guide.md"  # the exact path wins
    nested = run(["documents", "status", "-p", "library", "books/guide.md", "--json"], url)
    assert json.loads(nested.output)["filename"] == "books/guide.md"


def test_reindex_needs_no_dagster_and_says_what_happens(service):
    url, _ = service
    result = run(["reindex", "-p", "library"], url)
    assert result.exit_code == 0, result.output
    assert "re-index request" in result.output and "pending" in result.output
    one = run(["reindex", "-p", "library", "--document", "guide.md", "--json"], url)
    assert one.exit_code == 0, one.output
    assert [d["filename"] for d in json.loads(one.output)["documents"]] == ["books/guide.md"]


def test_project_comes_from_mirage_yaml(service, tmp_path, monkeypatch):
    url, _ = service
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert run(["init", "library"], url).exit_code == 0
    listed = run(["documents", "list", "--json"], url)
    assert listed.exit_code == 0, listed.output
    assert [d["filename"] for d in json.loads(listed.output)] == ["books/guide.md"]


def test_wait_without_a_pipeline_hints_and_times_out(service, tmp_path, monkeypatch):
    url, _ = service
    monkeypatch.setattr("mirage_query.cli.progress.HINT_AFTER_SECONDS", 0.0)
    note = tmp_path / "n.md"
    note.write_text("# N\n\nnothing indexes this\n")
    result = run(["documents", "add", "-p", "library", str(note), "--wait", "--timeout", "2"], url)
    assert result.exit_code == 1
    assert "is the pipeline running?" in result.stderr
    assert "n.md: still pending after 2 s" in result.stderr
