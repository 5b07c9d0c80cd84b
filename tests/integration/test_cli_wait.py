"""`mirage documents add --wait` while the real pipeline (sensor + materialize) indexes the file."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from mirage_query.settings import ServiceSettings
from tests.integration.test_pipeline_to_search import materialize_all, run_sensor
from tests.support.live_service import live_service
from tests.support.live_service import run_cli as run
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration

NOTE = """# Beekeeping

## Hives

Open the hive on a warm, windless afternoon, and move slowly so that the bees stay calm.
"""


@pytest.fixture
def pipeline_and_service(database_url, local_embedder, tmp_path) -> Iterator[tuple[str, Path]]:
    """The query service, and Dagster's sensor + materializations looping in a thread."""
    docs = tmp_path / "documents"
    docs.mkdir()
    mirage = indexing_resources(
        documents_dir=str(docs),
        database_url=database_url,
        embedder="local:multilingual-e5-small",
        settle_seconds=0.0,
    )
    stop = threading.Event()
    errors: list[BaseException] = []

    def loop() -> None:
        instance = dg.DagsterInstance.ephemeral()
        cursor = None
        try:
            while not stop.is_set():
                result = run_sensor(instance, mirage, cursor)
                cursor = result.cursor
                materialize_all(instance, mirage, result.run_requests)
                stop.wait(0.5)
        except BaseException as exc:  # surfaced by the test
            errors.append(exc)

    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url,
        api_keys=("secret",),
        documents_dir=docs,
    )
    with live_service(settings, local_embedder) as url:
        worker = threading.Thread(target=loop, daemon=True)
        worker.start()
        try:
            yield url, docs
        finally:
            stop.set()
            worker.join(120)
    assert not errors, errors


def test_add_wait_reaches_ready_then_searchable(pipeline_and_service, tmp_path):
    url, docs = pipeline_and_service
    assert not any(docs.iterdir())
    note = tmp_path / "bees.md"
    note.write_text(NOTE, encoding="utf-8")
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")

    added = run(["documents", "add", "-p", "garden", str(note), "--wait", "--timeout", "240"], url)
    assert added.exit_code == 0, added.output
    assert "uploaded bees.md → garden/bees.md (pending)" in added.output
    assert (docs / "garden" / "bees.md").is_file()
    assert "ready" in added.output and "#" * 20 in added.output  # the bar, full
    status = json.loads(
        run(["documents", "status", "-p", "garden", "bees.md", "--json"], url).stdout
    )
    assert status["status"] == "ready" and status["chunk_count"] >= 1
    hits = json.loads(
        run(["search", "-p", "garden", "when to open a beehive", "--json"], url).stdout
    )
    assert hits[0]["document"]["filename"] == "bees.md"

    failed = run(["documents", "add", "-p", "garden", str(empty), "--wait", "--json"], url)
    assert failed.exit_code == 1, failed.output
    final = json.loads(failed.stdout)  # the API's document objects; the bars go to stderr
    assert final[0]["status"] == "error" and final[0]["error"] == "empty file"
    assert "empty.md: empty file" in failed.stderr


def test_wait_for_files_written_into_the_folder(pipeline_and_service):
    """`documents wait` covers files no upload announced: new ones the sensor has not picked up
    yet, and an edit of an indexed file, which stays `ready` until the sensor sees it."""
    url, docs = pipeline_and_service
    folder = docs / "orchard"
    folder.mkdir()
    (folder / "bees.md").write_text(NOTE, encoding="utf-8")
    (folder / "pruning.md").write_text(
        "# Pruning\n\nCut apple trees in late winter, above an outward-facing bud.\n",
        encoding="utf-8",
    )
    (folder / "empty.md").write_bytes(b"")

    waited = run(["documents", "wait", "-p", "orchard", "--timeout", "240", "--json"], url)
    assert waited.exit_code == 1, waited.output  # one document ended in error
    final = {d["filename"]: d["status"] for d in json.loads(waited.stdout)}
    assert final == {"bees.md": "ready", "empty.md": "error", "pruning.md": "ready"}
    assert "empty.md: empty file" in waited.stderr
    assert run(["documents", "status", "-p", "orchard", "empty.md"], url).exit_code == 1
    assert run(["documents", "status", "-p", "orchard", "bees.md"], url).exit_code == 0

    (folder / "empty.md").unlink()
    (folder / "pruning.md").write_text(
        "# Pruning\n\nPear trees want a quince rootstock; prune them in midsummer.\n",
        encoding="utf-8",
    )
    waited = run(["documents", "wait", "-p", "orchard", "--timeout", "240"], url)
    assert waited.exit_code == 0, waited.output
    assert "orchard: 2 ready" in waited.stdout
    hits = json.loads(
        run(["search", "-p", "orchard", "quince rootstock", "--mode", "text", "--json"], url).stdout
    )
    assert hits and hits[0]["document"]["filename"] == "pruning.md"
    assert "quince" in hits[0]["content"]

    (folder / "bees.md").unlink()  # a deletion alone: no new write to wait for
    waited = run(["documents", "wait", "-p", "orchard", "--timeout", "240", "--json"], url)
    assert waited.exit_code == 0, waited.output
    assert [d["filename"] for d in json.loads(waited.stdout)] == ["pruning.md"]

    hand_made = docs / "my notes"  # a folder name the API would not create is a project too
    hand_made.mkdir()
    (hand_made / "bees.md").write_text(NOTE, encoding="utf-8")
    waited = run(["documents", "wait", "-p", "my notes", "--timeout", "240", "--json"], url)
    assert waited.exit_code == 0, waited.output
    assert [d["status"] for d in json.loads(waited.stdout)] == ["ready"]


def test_wait_on_a_project_that_does_not_exist(pipeline_and_service):
    url, _ = pipeline_and_service
    waited = run(["documents", "wait", "-p", "nowhere", "--timeout", "5"], url)
    assert waited.exit_code == 3, waited.output
