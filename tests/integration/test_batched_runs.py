"""Batched runs keep per-document truth: one broken file in a batch ends `error` with its
reason while the others end `ready`, and every document of the run has its own
materializations (with metadata) and check results in the Dagster instance."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import psycopg
import pytest

from mirage_pipeline.defs.run_failures import indexing_run_failed
from tests.integration.test_pipeline_to_search import age, run_sensor
from tests.support.batches import requested_keys, run_batch
from tests.support.fake_ollama import FakeOllama, running_fake_ollama
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration
ASSETS = ["raw_file", "parsed_document", "document_chunks", "chunk_embeddings", "chunk_index"]


@pytest.fixture
def folder(tmp_path: Path, database_url: str):
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as fake:
        docs = tmp_path / "documents"
        (docs / "vault").mkdir(parents=True)
        mirage = indexing_resources(
            documents_dir=str(docs),
            database_url=database_url,
            embedder="ollama:mxbai-embed-large",
            ollama_host=fake.url,
        )
        yield docs, mirage, dg.DagsterInstance.ephemeral()


def statuses(url: str) -> dict[str, tuple[str, str | None, int]]:
    with psycopg.connect(url) as conn:
        return {
            path: (status, error, count)
            for path, status, error, count in conn.execute(
                "SELECT path, status, error_message, chunk_count FROM documents"
            )
        }


def test_one_broken_file_in_a_batch_ends_error_and_the_rest_ready(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    for i in range(4):
        (docs / "vault" / f"note{i}.md").write_text(
            f"# Note {i}\n\nBees of hive {i} make honey in summer.\n\n## More\n\nAnd wax {i}.\n"
        )
    (docs / "vault" / "broken.pdf").write_bytes(b"%PDF-1.4\n this is not a PDF at all")
    age(docs)
    tick = run_sensor(instance, mirage, None)
    assert len(tick.run_requests) == 1 and len(requested_keys(tick)) == 5  # one batched run
    result, outcome = run_batch(instance, mirage, tick.run_requests[0], tmp_path / "storage")

    good = [f"vault/note{i}.md" for i in range(4)]
    assert outcome == {**{k: True for k in good}, "vault/broken.pdf": False}
    rows = statuses(database_url)
    status, error, _ = rows.pop("broken.pdf")
    assert status == "error" and error and "PDF" in error
    assert all(s == "ready" and e is None and n >= 1 for s, e, n in rows.values()), rows
    # the run itself fails, naming the document and its reason
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert "1 of 5 document(s) failed: vault/broken.pdf" in failure.step_failure_data.error.message

    # each document has its own materialization of each asset, with its own metadata
    for asset in ASSETS:
        key = dg.AssetKey(asset)
        assert instance.get_materialized_partitions(key) == set(good), asset
    for k in good:
        events = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunk_index"), asset_partitions=[k]),
            limit=1,
        ).records
        metadata = events[0].asset_materialization.metadata
        assert metadata["chunks"].value >= 1 and metadata["partition_key"].value == k
        chunks = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("document_chunks"), asset_partitions=[k]),
            limit=1,
        ).records[0]
        assert chunks.asset_materialization.metadata["chunks"].value == metadata["chunks"].value
        assert chunks.run_id == result.run_id
    # and its own check results
    checks = instance.all_logs(result.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
    evaluated = {e.dagster_event.event_specific_data.partition for e in checks}
    assert evaluated == set(good)
    assert all(e.dagster_event.event_specific_data.passed for e in checks)

    # the run-failure sensor leaves finished documents alone
    context = dg.build_run_status_sensor_context(
        sensor_name=indexing_run_failed.name,
        dagster_instance=instance,
        dagster_run=result.dagster_run,
        dagster_event=failure,
        resources=mirage,
    ).for_run_failure()
    indexing_run_failed(context)
    assert {p: s for p, (s, _, _) in statuses(database_url).items()} == {
        **{f"note{i}.md": "ready" for i in range(4)},
        "broken.pdf": "error",
    }


def test_a_batch_killed_midway_leaves_its_unfinished_documents_error(
    folder, database_url, tmp_path
):
    docs, mirage, instance = folder
    for i in range(3):
        (docs / "vault" / f"note{i}.md").write_text(f"# Note {i}\n\nText of note {i}.\n")
    age(docs)
    tick = run_sensor(instance, mirage, None)
    (request,) = tick.run_requests
    # the run was launched and its worker died before any step: nothing of it finished
    run = instance.create_run_for_job(
        job_def=_batch_job(), run_config=request.run_config, tags=request.tags
    )
    instance.report_run_failed(run, "the run worker is gone")
    context = dg.build_run_status_sensor_context(
        sensor_name=indexing_run_failed.name,
        dagster_instance=instance,
        dagster_run=instance.get_run_by_id(run.run_id),
        dagster_event=instance.all_logs(run.run_id)[-1].dagster_event,
        resources=mirage,
    ).for_run_failure()
    indexing_run_failed(context)
    rows = statuses(database_url)
    assert set(rows) == {f"note{i}.md" for i in range(3)}
    assert all(s == "error" and run.run_id[:8] in (e or "") for s, e, _ in rows.values()), rows


def _batch_job():
    from mirage_pipeline.definitions import defs

    return defs.resolve_job_def("index_batch")


def test_a_long_document_goes_in_as_its_vectors_arrive_and_a_failure_midway_loses_nothing(
    database_url, tmp_path, monkeypatch
):
    """The rows of a document that takes many embedding turns are written piece by piece;
    when the embedder fails halfway, what was written is rolled back (the previous version
    stays searchable), the step is retried, and the document ends `ready` and whole."""
    monkeypatch.setenv("MIRAGE_EMBED_BATCH", "4")
    note = tmp_path / "documents" / "vault" / "long.md"
    note.parent.mkdir(parents=True)
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as fake:
        mirage = indexing_resources(
            documents_dir=str(tmp_path / "documents"),
            database_url=database_url,
            embedder="ollama:mxbai-embed-large",
            ollama_host=fake.url,
        )
        instance = dg.DagsterInstance.ephemeral()
        note.write_text("# Old\n\nThe old version about beekeeping.\n")
        age(note.parent)
        tick = run_sensor(instance, mirage, None)
        assert run_batch(instance, mirage, tick.run_requests[0], tmp_path / "s")[0].success

        sections = [
            f"## Chapter {i}\n\n"
            + " ".join(f"Hive {i} sentence {k} tells how the colony {i} works." for k in range(9))
            for i in range(40)
        ]
        note.write_text("# New\n\n" + "\n\n".join(sections) + "\n")
        age(note.parent)
        fake.fail_after, fake.fail_next = len(fake.requests) + 20, 1  # a turn halfway fails
        tick = run_sensor(instance, mirage, tick.cursor)
        result, outcome = run_batch(instance, mirage, tick.run_requests[0], tmp_path / "s")

    assert result.success and outcome == {"vault/long.md": True}
    retried = instance.all_logs(result.run_id, of_type=dg.DagsterEventType.STEP_UP_FOR_RETRY)
    assert len(retried) == 1
    record = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunk_index")), limit=1
    ).records[0]
    metadata = record.asset_materialization.metadata
    assert metadata["chunks"].value >= 30 and metadata["copies"].value >= 2
    with psycopg.connect(database_url) as conn:
        contents = [r[0] for r in conn.execute("SELECT content FROM chunks ORDER BY position")]
        (windows,) = conn.execute("SELECT count(*) FROM chunk_parts").fetchone()
    assert statuses(database_url) == {"long.md": ("ready", None, len(contents))}
    assert len(contents) == metadata["chunks"].value
    assert not any("old version" in c for c in contents)
    assert all(f"colony {i} works" in "\n".join(contents) for i in range(40))
    assert windows > len(contents)  # the chunks' sentence windows came along


def test_a_short_note_in_a_batch_with_a_long_one_is_ready_first(folder, tmp_path):
    """The batch embeds its documents shortest first: a note dropped beside a long document
    commits (and is searchable) before the long one, whatever their order in the run."""
    docs, mirage, instance = folder
    paragraphs = "\n\n".join(
        f"Paragraph {i} of the beekeeping manual describes frames, smoke and the queen."
        for i in range(400)
    )
    (docs / "vault" / "a-manual.md").write_text(f"# Manual\n\n{paragraphs}\n")
    (docs / "vault" / "z-note.md").write_text("# Note\n\nThe hive was calm today.\n")
    age(docs)
    tick = run_sensor(instance, mirage, None)
    (request,) = tick.run_requests
    assert requested_keys(tick) == ["vault/a-manual.md", "vault/z-note.md"]
    result, outcome = run_batch(instance, mirage, request, tmp_path / "storage")
    assert result.success and all(outcome.values())
    order = [
        e.dagster_event.partition
        for e in instance.all_logs(result.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
        if e.dagster_event.asset_key == dg.AssetKey("chunk_index")
    ]
    assert order == ["vault/z-note.md", "vault/a-manual.md"]
