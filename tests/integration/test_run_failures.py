"""A run that fails outside the steps' own error handling does not leave its document
`indexing`: the run-failure sensor gives it `error` with the run's reason, and keeps the
step's own reason when there is one."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from mirage_pipeline.definitions import defs
from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.failures import RETRIED
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.defs.jobs import index_document_job
from mirage_pipeline.defs.run_failures import (
    PARTITION_TAG,
    indexing_run_canceled,
    indexing_run_failed,
)
from mirage_pipeline.store.documents import start_document
from tests.integration.test_control_plane import rows
from tests.support.fake_ollama import FakeOllama, running_fake_ollama
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration


def failed_run(instance, mirage, key: str, storage: Path) -> dg.ExecuteInProcessResult:
    instance.add_dynamic_partitions("documents", [key])
    result = dg.materialize(
        document_assets,
        partition_key=key,
        instance=instance,
        resources={**mirage, "io_manager": ParquetIOManager(base_dir=str(storage))},
        raise_on_error=False,
    )
    assert not result.success
    return result


def evaluate_failure_sensor(instance, mirage, result: dg.ExecuteInProcessResult) -> None:
    context = dg.build_run_status_sensor_context(
        sensor_name=indexing_run_failed.name,
        dagster_event=result.get_run_failure_event(),
        dagster_instance=instance,
        dagster_run=result.dagster_run,
        resources=mirage,
    ).for_run_failure()
    indexing_run_failed(context)


def test_a_run_dying_outside_its_steps_ends_in_error(tmp_path, database_url):
    docs = tmp_path / "documents"
    (docs / "demo").mkdir(parents=True)
    (docs / "demo" / "a.md").write_text("# A\n\nSome text worth indexing.\n", encoding="utf-8")
    (docs / "demo" / "empty.md").write_text("", encoding="utf-8")
    blocked = tmp_path / "storage"
    blocked.write_text("a file where the storage folder should be")
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as fake:
        mirage = indexing_resources(
            documents_dir=str(docs),
            database_url=database_url,
            embedder="ollama:mxbai-embed-large",
            ollama_host=fake.url,
        )
        instance = dg.DagsterInstance.ephemeral()

        # The Parquet write fails after raw_file set `indexing`: no step recorded anything.
        result = failed_run(instance, mirage, "demo/a.md", blocked)
        sql = "SELECT status, error_message FROM documents WHERE path = %s"
        assert rows(database_url, sql, "a.md") == [("indexing", None)]
        evaluate_failure_sensor(instance, mirage, result)
        ((status, message),) = rows(database_url, sql, "a.md")
        assert status == "error"
        # the real cause in words, where it happened, and that it is retried by itself
        assert message.startswith("a file stands where a folder should be ("), message
        assert f"(step raw_file, run {result.run_id[:8]})" in message
        assert message.endswith(RETRIED)
        assert "Steps failed" not in message

        # A step that recorded its own reason keeps it.
        result = failed_run(instance, mirage, "demo/empty.md", tmp_path / "ok-storage")
        assert rows(database_url, sql, "empty.md") == [("error", "empty file")]
        evaluate_failure_sensor(instance, mirage, result)
        assert rows(database_url, sql, "empty.md") == [("error", "empty file")]


def test_a_canceled_run_leaves_its_document_error_not_indexing(tmp_path, database_url):
    """The issue's case: a run canceled mid-way (by a person or the time budget's cancel)
    left its document `indexing` for minutes; the cancel sensor ends it in words at once."""
    mirage = indexing_resources(documents_dir=str(tmp_path), database_url=database_url)
    with mirage["postgres"].store_connection() as conn:
        start_document(
            conn,
            project="demo",
            path="big.md",
            file_type="markdown",
            content_hash="h",
            size_bytes=1,
        )
    instance = dg.DagsterInstance.ephemeral()
    run = instance.create_run_for_job(
        defs.resolve_job_def(index_document_job.name), tags={PARTITION_TAG: "demo/big.md"}
    )
    instance.report_run_canceled(run)
    run = instance.get_run_by_id(run.run_id)
    assert run.status == dg.DagsterRunStatus.CANCELED
    (event,) = [
        e.dagster_event
        for e in instance.all_logs(run.run_id)
        if e.dagster_event and e.dagster_event.event_type == dg.DagsterEventType.RUN_CANCELED
    ]
    context = dg.build_run_status_sensor_context(
        sensor_name=indexing_run_canceled.name,
        dagster_event=event,
        dagster_instance=instance,
        dagster_run=run,
        resources=mirage,
    )
    indexing_run_canceled(context)
    sql = "SELECT status, error_message FROM documents WHERE path = %s"
    ((status, message),) = rows(database_url, sql, "big.md")
    assert status == "error"
    assert message.startswith(f"the indexing run was canceled (run {run.run_id[:8]})"), message
