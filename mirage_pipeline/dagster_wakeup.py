"""The daemon's sensor loop, idle until the documents folder changes.

With the sensor loop at 1 s (`dagster_daemon.py`) the documents sensor ticks every second, and
each tick costs more in Dagster than in the sensor: a tick row written and updated, the
sensor's state saved, an instance and its resources rebuilt in the code server, a few new
PostgreSQL connections. An idle local stack spent ~14 % of a core on it (60 s with nothing to
do: code server 2.8 s, daemon 2.8 s, PostgreSQL 2.2 s of CPU), and the same on top of every
indexing run.

Where the daemon sees the documents folder (the local stack), the loop now waits, after its
second, until something in the folder changes — created, written, deleted or moved, told by
inotify through watchdog, which Dagster itself depends on — or `IDLE_LOOP_SECONDS` have
passed; for `IDLE_LOOP_SECONDS` after a change it keeps its second (a tick still busy when the
change came is followed by one that sees it). A file written is looked at within the second,
as before; a file still being copied keeps the loop at its second until it settles; an idle
stack ticks every 5 s, and re-index requests and the sensor's healing (automatic retries, dead
run workers) are seen within those 5 s. Where the daemon does not see the folder (the Helm
chart: the code location scans it) or cannot watch it, the loop stays at its second.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

IDLE_LOOP_SECONDS = 5.0  # the longest wait between two looks with nothing changed
WAIT_STEP_SECONDS = 0.5  # how often a wait looks at the daemon's shutdown
# what inotify reports of a file's or folder's change; not opens and reads (the sensor's own
# scan and hashing, a run reading its file), which would wake the loop for nothing
CHANGES = ("created", "modified", "deleted", "moved", "closed")

log = logging.getLogger(__name__)


class FolderChanges:
    """When something under a folder last changed (a watchdog observer)."""

    def __init__(self) -> None:
        self.last = float("-inf")  # time.monotonic() of the last change
        self._observer: Any = None

    def seen(self) -> None:
        self.last = time.monotonic()

    def start(self, folder: Path) -> bool:
        """Watch `folder` and everything under it; False if it is not there or cannot be
        watched (too many folders for the inotify limit, a file system without it)."""
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        seen = self.seen

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in CHANGES:
                    seen()

        if not folder.is_dir():
            return False
        observer = Observer()
        try:
            observer.schedule(_Handler(), str(folder), recursive=True)
            observer.start()
        except OSError as exc:
            log.warning("cannot watch %s (%s): the sensor looks every second", folder, exc)
            observer.stop()
            return False
        self._observer = observer
        return True

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(5)
            self._observer = None


class IdleWait:
    """The shutdown event the sensor loop waits on between iterations. Its `wait` first waits
    out the loop's own time, then — unless the daemon is stopping or the folder changed in the
    last `idle` seconds — up to `idle` seconds in all for a change."""

    def __init__(
        self, shutdown: threading.Event, changes: FolderChanges, idle: float | None = None
    ) -> None:
        self._shutdown = shutdown
        self._changes = changes
        self._idle = IDLE_LOOP_SECONDS if idle is None else idle

    def is_set(self) -> bool:
        return self._shutdown.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        if self._shutdown.wait(timeout):
            return True
        deadline = time.monotonic() + max(0.0, self._idle - (timeout or 0.0))
        while (left := deadline - time.monotonic()) > 0 and not self._changed_lately():
            if self._shutdown.wait(min(left, WAIT_STEP_SECONDS)):
                return True
        return self._shutdown.is_set()

    def _changed_lately(self) -> bool:
        return time.monotonic() - self._changes.last < self._idle


def install(folder: Path) -> FolderChanges | None:
    """Make the daemon's sensor loop idle between changes of `folder`; None (the loop
    unchanged) when the folder cannot be watched or this Dagster's daemon runs its sensor
    loop another way."""
    from dagster._daemon import daemon

    loop = getattr(daemon, "execute_sensor_iteration_loop", None)
    if loop is None or getattr(loop, "__wrapped__", None) is not None:
        return None
    changes = FolderChanges()
    if not changes.start(folder):
        return None
    daemon.execute_sensor_iteration_loop = _idle_between_changes(loop, changes)
    return changes


def _idle_between_changes(loop: Callable[..., Iterator], changes: FolderChanges) -> Callable:
    def execute_sensor_iteration_loop(
        workspace_process_context: Any, logger: Any, shutdown_event: threading.Event, **kwargs: Any
    ) -> Iterator:
        return loop(workspace_process_context, logger, IdleWait(shutdown_event, changes), **kwargs)

    execute_sensor_iteration_loop.__wrapped__ = loop  # type: ignore[attr-defined]
    return execute_sensor_iteration_loop
