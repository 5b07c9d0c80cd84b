"""The daemon's run queue is looked at as soon as a run is queued in its process
(mirage_pipeline/dagster_dequeue.py), on the repository's dagster.yaml instance."""

from __future__ import annotations

import threading
import time

import dagster as dg
import pytest
from dagster._core.remote_origin import (
    InProcessCodeLocationOrigin,
    RemoteJobOrigin,
    RemoteRepositoryOrigin,
)
from dagster._core.run_coordinator import SubmitRunContext
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._daemon import controller

from mirage_pipeline import dagster_dequeue
from tests.support.dagster_home import repository_dagster_home

pytestmark = pytest.mark.integration
INTERVAL = 30.0  # far longer than the test waits: only the wake-up can explain a prompt look


@dg.op
def _nothing() -> None:
    pass


@dg.job
def _a_job() -> None:
    _nothing()


def test_a_run_queued_in_the_daemon_is_dequeued_at_once(
    postgres, database_url, tmp_path, monkeypatch
):
    home, _ = repository_dagster_home(postgres.url, database_url, tmp_path, monkeypatch, "dequeue")

    assert dagster_dequeue.install()
    daemon_class = dagster_dequeue.PromptDequeueDaemon
    assert controller.QueuedRunCoordinatorDaemon is daemon_class
    assert dagster_dequeue.install()  # a second install changes nothing

    with dg.DagsterInstance.from_config(str(home)) as instance:
        daemon = controller.create_daemon_of_type(daemon_class.daemon_type(), instance)
        assert isinstance(daemon, daemon_class)
        daemon.interval_seconds = INTERVAL
        seen: list[tuple[float, list[str]]] = []

        def look(context: object):
            queued = instance.get_run_records(dg.RunsFilter(statuses=[dg.DagsterRunStatus.QUEUED]))
            seen.append((time.monotonic(), [r.dagster_run.run_id for r in queued]))
            yield None

        monkeypatch.setattr(daemon, "run_iteration", look)
        stop = threading.Event()

        def loop() -> None:
            for _ in daemon.core_loop(None, stop):
                if stop.is_set():
                    return

        worker = threading.Thread(target=loop, daemon=True)
        worker.start()
        try:
            deadline = time.monotonic() + 10
            while not seen and time.monotonic() < deadline:
                time.sleep(0.01)
            assert seen and seen[0][1] == []  # the first look, at start: nothing queued

            location = InProcessCodeLocationOrigin(
                LoadableTargetOrigin(python_file=__file__, attribute="_a_job")
            )
            origin = RemoteJobOrigin(RemoteRepositoryOrigin(location, "__repository__"), "_a_job")
            run = instance.create_run_for_job(_a_job, remote_job_origin=origin)
            submitted = time.monotonic()
            instance.run_coordinator.submit_run(SubmitRunContext(run, workspace=None))
            while len(seen) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(seen) == 2, "the queue was not looked at again after the submission"
            at, queued = seen[1]
            assert queued == [run.run_id]
            assert at - submitted < 2.0  # not INTERVAL later
        finally:
            stop.set()
            worker.join(5)
        assert not worker.is_alive()
