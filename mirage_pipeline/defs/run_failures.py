"""A run that failed or was canceled outside the steps' own error handling (a killed worker,
an unreadable Parquet file, a cancel from the UI) must not leave its document `indexing`
forever: this sensor gives it `error` with the run's reason."""

from __future__ import annotations

import dagster as dg

from mirage_pipeline.defs.resources import MirageResource
from mirage_pipeline.defs.sensors import index_document_job
from mirage_pipeline.documents_folder import split_document_key
from mirage_pipeline.store.documents import mark_unfinished_document_error

PARTITION_TAG = "dagster/partition"


def record_unfinished_run(mirage: MirageResource, run: dg.DagsterRun, reason: str) -> str | None:
    """Mark the run's document `error` if the run left it unfinished; returns its key if so."""
    key = run.tags.get(PARTITION_TAG)
    if not key:
        return None
    try:
        project, path = split_document_key(key)
    except ValueError:
        return None
    message = f"the indexing run {run.run_id[:8]} {reason}"
    with mirage.store_connection() as conn:
        changed = mark_unfinished_document_error(conn, project=project, path=path, message=message)
    return key if changed else None


def _reason(context: dg.RunStatusSensorContext, verb: str) -> str:
    event = context.dagster_event
    message = (event.message or "").strip() if event else ""
    return f"{verb}: {message}" if message else verb


@dg.run_failure_sensor(
    monitored_jobs=[index_document_job],
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="A failed indexing run leaves its document `error` with the run's reason.",
)
def indexing_run_failed(context: dg.RunFailureSensorContext, mirage: MirageResource) -> None:
    key = record_unfinished_run(mirage, context.dagster_run, _reason(context, "failed"))
    if key:
        context.log.info(f"{key}: marked error (run {context.dagster_run.run_id})")


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.CANCELED,
    monitored_jobs=[index_document_job],
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="A canceled indexing run leaves its document `error` (it can be re-indexed).",
)
def indexing_run_canceled(context: dg.RunStatusSensorContext, mirage: MirageResource) -> None:
    key = record_unfinished_run(mirage, context.dagster_run, "was canceled")
    if key:
        context.log.info(f"{key}: marked error (run {context.dagster_run.run_id} canceled)")


run_failure_sensors = [indexing_run_failed, indexing_run_canceled]
