"""A run that failed or was canceled outside the steps' own error handling (a killed worker,
an unwritable stage file, a cancel, the time budget) must not leave its document `indexing`:
these sensors give it `error` with the run's real cause in words — the failed step's own
exception, not Dagster's summary ("Steps failed: […]")."""

from __future__ import annotations

import re

import dagster as dg

from mirage_pipeline.defs.batch import batch_documents, index_batch
from mirage_pipeline.defs.failures import Cause, cause_of_error_info
from mirage_pipeline.defs.jobs import index_document_job
from mirage_pipeline.defs.resources import PostgresResource
from mirage_pipeline.documents_folder import split_document_key
from mirage_pipeline.names import PARTITION_TAG
from mirage_pipeline.store.documents import mark_unfinished_document_error

_RUNTIME = re.compile(r"maximum runtime of (\d+) seconds")


def run_cause(instance: dg.DagsterInstance, run: dg.DagsterRun) -> Cause:
    """Why a failed or canceled run ended, in words."""
    events = instance.all_logs(run.run_id)
    for entry in events:  # the time budget cancels first, then fails the run
        match = _RUNTIME.search(_message(entry))
        if match:
            minutes = max(1, round(int(match.group(1)) / 60))
            return Cause(
                f"over the budget of {minutes} minutes per indexing run (MIRAGE_MAX_RUN_MINUTES)",
                False,
            )
    if run.status == dg.DagsterRunStatus.CANCELED:
        return Cause("the indexing run was canceled", False)
    for entry in reversed(events):
        event = entry.dagster_event
        if event is None or event.event_type != dg.DagsterEventType.STEP_FAILURE:
            continue
        cause = cause_of_error_info(event.step_failure_data.error)
        if cause is not None:
            return Cause(cause.reason, cause.machine, step=event.step_key)
        error = event.step_failure_data.error
        first = (error.message.strip().splitlines() or [error.cls_name or "error"])[0]
        return Cause(first, False, step=event.step_key)
    failure = next(
        (
            _message(e)
            for e in reversed(events)
            if e.dagster_event and e.dagster_event.event_type == dg.DagsterEventType.RUN_FAILURE
        ),
        "",
    )
    detail = (failure.strip().splitlines() or [""])[0]
    return Cause(
        "the indexing run stopped before its steps ended (a killed or lost worker)"
        + (f": {detail}" if detail else ""),
        True,
    )


def _message(entry: dg.EventLogEntry) -> str:
    """An event's text: Dagster's own events keep it on the event, not the entry."""
    return entry.user_message or (entry.dagster_event.message if entry.dagster_event else "") or ""


def run_documents(run: dg.DagsterRun) -> list[str]:
    """The documents a run indexes: its partition, or the list a batched run was given."""
    key = run.tags.get(PARTITION_TAG)
    return [key] if key else batch_documents(run)


def record_unfinished_run(
    postgres: PostgresResource, run: dg.DagsterRun, cause: Cause
) -> list[str]:
    """Mark the run's documents `error` where the run left them unfinished; returns their keys."""
    where = f"step {cause.step}, run {run.run_id[:8]}" if cause.step else f"run {run.run_id[:8]}"
    message = Cause(f"{cause.reason} ({where})", cause.machine).message
    marked = []
    with postgres.store_connection() as conn:
        for key in run_documents(run):
            try:
                project, path = split_document_key(key)
            except ValueError:
                continue
            if mark_unfinished_document_error(conn, project=project, path=path, message=message):
                marked.append(key)
    return marked


@dg.run_failure_sensor(
    monitored_jobs=[index_document_job, index_batch],
    minimum_interval_seconds=5,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="A failed indexing run leaves its document `error` with the run's cause.",
)
def indexing_run_failed(context: dg.RunFailureSensorContext, postgres: PostgresResource) -> None:
    run = context.dagster_run
    for key in record_unfinished_run(postgres, run, run_cause(context.instance, run)):
        context.log.info(f"{key}: marked error (run {run.run_id})")


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.CANCELED,
    monitored_jobs=[index_document_job, index_batch],
    minimum_interval_seconds=5,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="A canceled indexing run leaves its document `error` (it can be re-indexed).",
)
def indexing_run_canceled(context: dg.RunStatusSensorContext, postgres: PostgresResource) -> None:
    run = context.dagster_run
    for key in record_unfinished_run(postgres, run, run_cause(context.instance, run)):
        context.log.info(f"{key}: marked error (run {run.run_id} canceled)")


run_failure_sensors = [indexing_run_failed, indexing_run_canceled]
