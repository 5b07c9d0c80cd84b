"""Every failure a run can have is said in words, and says whether miRAGe retries it."""

from __future__ import annotations

import errno

import dagster as dg
import psycopg
import pytest

from mirage_pipeline.defs.failures import RETRIED, cause_of_error_info, cause_of_exception
from mirage_pipeline.defs.run_failures import run_cause
from mirage_pipeline.embedders import EmbedderUnavailable
from mirage_pipeline.parsing import OverBudget


@pytest.mark.parametrize(
    ("exc", "reason", "machine"),
    [
        (
            OSError(errno.ENAMETOOLONG, "File name too long", "/s/" + "ж" * 200),
            "file name too long for the filesystem (/s/" + "ж" * 200 + ")",
            False,
        ),
        (OSError(errno.EROFS, "Read-only file system", "/s/x"), "the storage is read-only", True),
        (OSError(errno.ENOSPC, "No space left on device"), "no space left on the storage", True),
        (psycopg.OperationalError("connection refused\nmore"), "PostgreSQL is unreachable", True),
        (EmbedderUnavailable("cannot reach Ollama"), "the embedder is unavailable", True),
        (OverBudget("over the budget of 3 pages"), "over the budget of 3 pages", False),
    ],
)
def test_exceptions_in_words(exc: Exception, reason: str, machine: bool) -> None:
    cause = cause_of_exception(exc)
    assert cause.reason.startswith(reason) and cause.machine is machine
    assert cause.message.endswith(RETRIED) is machine
    assert "Errno" not in cause.message


def test_errors_dagster_recorded_in_words_deepest_cause_first() -> None:
    try:
        try:
            raise OSError(errno.ENAMETOOLONG, "File name too long", "/storage/raw_file/x")
        except OSError as inner:
            raise dg.DagsterExecutionHandleOutputError("Error occurred while handling") from inner
    except Exception:
        import sys

        from dagster._utils.error import serializable_error_info_from_exc_info

        info = serializable_error_info_from_exc_info(sys.exc_info())
    cause = cause_of_error_info(info)
    assert cause is not None
    assert cause.reason == "file name too long for the filesystem (/storage/raw_file/x)"


def test_the_time_budget_of_a_run_is_named() -> None:
    instance = dg.DagsterInstance.ephemeral()

    @dg.asset
    def nothing() -> None:
        return None

    run = dg.materialize([nothing], instance=instance).dagster_run
    instance.report_engine_event(
        "Canceling due to exceeding maximum runtime of 10800 seconds.", run
    )
    cause = run_cause(instance, run)
    assert cause.reason == (
        "over the budget of 180 minutes per indexing run (MIRAGE_MAX_RUN_MINUTES)"
    )
    assert not cause.machine
