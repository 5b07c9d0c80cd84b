"""Self-healing of the index, run by the documents sensor at each tick, so that it converges to
the folder with no manual step after a crash:

- a run whose worker process is gone (killed; the local run launcher cannot tell) is failed;
- a document left `pending` or `indexing` by a run that ended (or never came) gets its run's
  cause, or a new run;
- a document in `error` for a cause of the machine (database or embedder unreachable, a killed
  worker, full or read-only storage) is re-requested with backoff, up to `MAX_ATTEMPTS`;
- a row whose file is no longer in the folder is deleted (a vanished file never leaves one).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import dagster as dg
import psutil
import psycopg

from mirage_pipeline.defs.batch import Wanted
from mirage_pipeline.defs.failures import RETRIED
from mirage_pipeline.defs.resources import PostgresResource
from mirage_pipeline.defs.run_failures import record_unfinished_run, run_cause, run_documents
from mirage_pipeline.documents_folder import document_key
from mirage_pipeline.names import BATCH_JOB, INDEX_JOB, PARTITION_TAG, RETRY_TAG
from mirage_pipeline.store.documents import (
    delete_document,
    document_keys,
    set_error_message,
    unsettled_documents,
)

RECENT_BATCHES = 200  # batched runs looked through for a document's latest run
SETTLE_SECONDS = 15.0  # a row this fresh may still be on its way (its run being created)
BACKOFF = (10, 30, 60, 120, 300)  # seconds before automatic retry 1, 2, 3…; then the last
MAX_ATTEMPTS = 10
_ACTIVE = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


@dataclass
class Healing:
    """What one tick decided."""

    wanted: list[Wanted] = field(default_factory=list)
    retries: dict[str, list[float]] = field(default_factory=dict)  # key → [attempts, not before]
    log: list[str] = field(default_factory=list)


def heal(
    instance: dg.DagsterInstance,
    postgres: PostgresResource,
    conn: psycopg.Connection,
    *,
    present: set[str],
    requested: set[str],
    retries: dict[str, list[float]],
    folder_readable: bool,
) -> Healing:
    """One pass over runs and rows; `present`: keys of the folder's files and links,
    `requested`: keys this tick already queues, `retries`: the cursor's attempts so far."""
    result = Healing()
    active = _active_runs(instance)
    result.log += fail_dead_run_workers(instance, active)
    busy = {key for r in active if r.status in _ACTIVE for key in run_documents(r)} | requested
    now = time.time()
    for project, path, status, error in unsettled_documents(
        conn, retried_suffix=RETRIED, older_than_seconds=SETTLE_SECONDS
    ):
        key = document_key(project, path)
        if key in busy or key not in present:
            continue
        if status in ("pending", "indexing"):
            last = _latest_run(instance, key)
            if last is not None and last.status in (
                dg.DagsterRunStatus.FAILURE,
                dg.DagsterRunStatus.CANCELED,
            ):
                if record_unfinished_run(postgres, last, run_cause(instance, last)):
                    result.log.append(f"{key}: its run {last.run_id[:8]} ended; marked error")
                continue
            error = None  # no run, or one that succeeded without finishing: run it again
        attempts, not_before = retries.get(key, [0, 0.0])
        if error is not None and attempts >= MAX_ATTEMPTS:
            final = error[: -len(RETRIED)] + f"; gave up after {int(attempts)} automatic retries"
            set_error_message(conn, project=project, path=path, old=error, new=final)
            continue
        if now < not_before:
            result.retries[key] = [attempts, not_before]
            continue
        attempts += 1
        delay = BACKOFF[min(int(attempts), len(BACKOFF)) - 1]
        result.retries[key] = [attempts, now + delay]
        result.wanted.append(
            Wanted(
                key, f"heal-{key}@{int(attempts)}@{int(now)}", tags={RETRY_TAG: str(int(attempts))}
            )
        )
        result.log.append(f"{key}: automatic retry {int(attempts)} ({error or status})")
    if folder_readable:
        for project, path in document_keys(conn, older_than_seconds=2 * SETTLE_SECONDS):
            key = document_key(project, path)
            if key not in present and key not in busy:
                delete_document(conn, project=project, path=path)
                result.log.append(f"{key}: the file is gone; its row deleted")
    return result


def _active_runs(instance: dg.DagsterInstance) -> list[dg.DagsterRun]:
    return [
        run
        for job in (INDEX_JOB, BATCH_JOB)
        for run in instance.get_runs(dg.RunsFilter(job_name=job, statuses=_ACTIVE))
    ]


def _latest_run(instance: dg.DagsterInstance, key: str) -> dg.DagsterRun | None:
    """The newest run that indexed the document: its own, or a batch that listed it."""
    runs = list(
        instance.get_runs(dg.RunsFilter(job_name=INDEX_JOB, tags={PARTITION_TAG: key}), limit=1)
    )
    recent = instance.get_runs(dg.RunsFilter(job_name=BATCH_JOB), limit=RECENT_BATCHES)
    runs += [next((r for r in recent if key in run_documents(r)), None)] if recent else []
    runs = [r for r in runs if r is not None]
    return max(runs, key=lambda r: _created(instance, r), default=None)


def _created(instance: dg.DagsterInstance, run: dg.DagsterRun) -> float:
    record = instance.get_run_record_by_id(run.run_id)
    return record.create_timestamp.timestamp() if record else 0.0


def fail_dead_run_workers(instance: dg.DagsterInstance, runs: list[dg.DagsterRun]) -> list[str]:
    """Fail the started runs whose worker process no longer exists. Only for the local run
    launcher (its runs live on this machine); others have Dagster's own run monitoring."""
    if type(instance.run_launcher).__name__ != "DefaultRunLauncher":
        return []
    failed = []
    for run in runs:
        if run.status != dg.DagsterRunStatus.STARTED:
            continue
        starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START)
        pid = starts[-1].dagster_event.pid if starts and starts[-1].dagster_event else None
        if pid and not _alive(pid):
            instance.report_run_failed(
                run, f"the run worker (pid {pid}) is gone: it was killed or crashed"
            )
            failed.append(f"run {run.run_id[:8]}: its worker (pid {pid}) is gone; run failed")
    return failed


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
