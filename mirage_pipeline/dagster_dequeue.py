"""The daemon's run queue, dequeued as soon as the daemon itself queued a run.

Dagster's `QueuedRunCoordinatorDaemon` looks at the queue every `dequeue_interval_seconds`
(an integer in dagster.yaml, 1 s here): a run the documents sensor requests waited 0.5 s on
average, up to 1 s, before it was launched — a tenth of the time a new note takes to become
searchable. The sensor (and the backfill daemon) submit their runs in the daemon's own process,
so submitting a run there wakes the queue at once; a run queued elsewhere (the UI, another
process) is still found within the interval. `mirage_pipeline/dagster_daemon.py` installs it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

from dagster._core.run_coordinator.queued_run_coordinator import QueuedRunCoordinator
from dagster._daemon import controller
from dagster._daemon.daemon import SpanMarker
from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import (
    QueuedRunCoordinatorDaemon,
)
from dagster._utils.error import serializable_error_info_from_exc_info

# set by a run submitted in this process; the dequeue loop waits on it between iterations
_SUBMITTED = threading.Event()
WAIT_STEP_SECONDS = 0.5  # the daemon's heartbeats need the loop to yield this often
_submit_run = QueuedRunCoordinator.submit_run


def _submit_run_and_wake(self: QueuedRunCoordinator, context: Any) -> Any:
    run = _submit_run(self, context)
    _SUBMITTED.set()
    return run


class PromptDequeueDaemon(QueuedRunCoordinatorDaemon):
    """`IntervalDaemon.core_loop`, whose wait between iterations ends when a run is submitted
    in this process."""

    def core_loop(self, workspace_process_context: Any, shutdown_event: Any) -> Iterator:
        while True:
            _SUBMITTED.clear()  # a run submitted during the iteration wakes the next one
            yield SpanMarker.START_SPAN
            try:
                yield from self.run_iteration(workspace_process_context)
            except Exception:
                error = serializable_error_info_from_exc_info(sys.exc_info())
                self._logger.error("Caught error:\n%s", error)
                yield error
            yield SpanMarker.END_SPAN
            deadline = time.monotonic() + self.interval_seconds
            while (left := deadline - time.monotonic()) > 0 and not shutdown_event.is_set():
                if _SUBMITTED.wait(min(left, WAIT_STEP_SECONDS)):
                    break
                yield None
            yield None


def install() -> bool:
    """Wake the dequeue loop of this process on every run submitted in it; False (nothing
    changed) when this Dagster's controller runs another queue daemon than the one this was
    made for."""
    daemon = getattr(controller, "QueuedRunCoordinatorDaemon", None)
    if daemon is PromptDequeueDaemon:
        return True
    if daemon is not QueuedRunCoordinatorDaemon:
        return False
    QueuedRunCoordinator.submit_run = _submit_run_and_wake
    controller.QueuedRunCoordinatorDaemon = PromptDequeueDaemon
    return True
