"""The daemon's sensor loop waits between looks until the documents folder changes
(mirage_pipeline/dagster_wakeup.py): Dagster's own loop, a real folder, real inotify."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dagster._daemon import daemon, sensor

from mirage_pipeline import dagster_wakeup
from mirage_pipeline.dagster_wakeup import FolderChanges, IdleWait
from mirage_pipeline.names import DAEMON_WATCH_FLAG
from mirage_query.stack import _commands

pytestmark = pytest.mark.integration


def _until(condition, seconds: float = 10.0) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, "timed out"
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture
def changes(tmp_path: Path) -> Iterator[FolderChanges]:
    (tmp_path / "project" / "sub").mkdir(parents=True)
    (tmp_path / "project" / "old.md").write_text("# Old\n")
    watched = FolderChanges()
    assert watched.start(tmp_path)
    yield watched
    watched.stop()


def test_writes_deletes_and_moves_are_changes_reads_are_not(tmp_path: Path, changes) -> None:
    assert changes.last == float("-inf")
    (tmp_path / "project" / "old.md").read_text()  # the sensor hashing a file, a run parsing it
    list((tmp_path / "project").iterdir())
    time.sleep(0.5)
    assert changes.last == float("-inf")

    for change in (
        lambda: (tmp_path / "project" / "sub" / "new.md").write_text("# New\n"),
        lambda: (tmp_path / "project" / "sub" / "new.md").rename(tmp_path / "project" / "n.md"),
        lambda: (tmp_path / "project" / "n.md").unlink(),
        lambda: (tmp_path / "second-project").mkdir(),
        lambda: (tmp_path / "second-project" / "deep.md").write_text("a folder made after start"),
    ):
        before = changes.last
        change()
        _until(lambda before=before: changes.last > before)


def test_a_wait_lasts_until_a_change_or_the_idle_time(tmp_path: Path, changes) -> None:
    shutdown = threading.Event()
    wait = IdleWait(shutdown, changes, idle=1.5)
    started = time.monotonic()
    assert wait.wait(0.2) is False
    assert time.monotonic() - started >= 1.4  # nothing changed: the idle time in all

    waiting = IdleWait(shutdown, changes, idle=60)
    threading.Timer(0.3, (tmp_path / "project" / "note.md").write_text, ["# Note\n"]).start()
    started = time.monotonic()
    assert waiting.wait(0.2) is False
    assert time.monotonic() - started < 10  # woken by the note, not after 60 s

    started = time.monotonic()
    waiting.wait(0.2)  # a change in the last `idle` seconds: only the loop's own time
    assert time.monotonic() - started < 10

    threading.Timer(0.3, shutdown.set).start()
    started = time.monotonic()
    assert IdleWait(shutdown, FolderChanges(), idle=60).wait(0.2) is True
    assert time.monotonic() - started < 10


def test_dagsters_sensor_loop_looks_again_when_the_folder_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project").mkdir()
    looks: list[float] = []

    def look(*args: object, **kwargs: object) -> Iterator[None]:
        looks.append(time.monotonic())
        yield None

    # Dagster's own loop, around a look that stands for evaluating the sensors
    monkeypatch.setattr(sensor, "execute_sensor_iteration", look)
    monkeypatch.setattr(sensor, "MIN_INTERVAL_LOOP_TIME", 0.2)
    monkeypatch.setattr(
        daemon, "execute_sensor_iteration_loop", daemon.execute_sensor_iteration_loop
    )
    monkeypatch.setattr(dagster_wakeup, "IDLE_LOOP_SECONDS", 30.0)
    assert dagster_wakeup.install(tmp_path / "missing") is None  # nothing to watch: unchanged
    changes = dagster_wakeup.install(tmp_path)
    assert changes is not None
    assert dagster_wakeup.install(tmp_path) is None  # installed once
    stop = threading.Event()

    def loop() -> None:
        for _ in daemon.execute_sensor_iteration_loop(None, None, stop):
            if stop.is_set():
                return

    worker = threading.Thread(target=loop, daemon=True)
    worker.start()
    try:
        _until(lambda: len(looks) == 1)
        time.sleep(1.5)
        assert len(looks) == 1  # idle: no look every 0.2 s
        (tmp_path / "project" / "note.md").write_text("# Note\n")
        waited = _until(lambda: len(looks) >= 2)
        assert waited < 5  # the note woke the loop long before its 30 s
    finally:
        stop.set()
        worker.join(10)
        changes.stop()
    assert not worker.is_alive()


def test_the_local_stack_asks_its_daemon_to_watch_and_dagster_never_sees_the_flag(
    tmp_path: Path,
) -> None:
    """`mirage up` starts the daemon with the flag; the daemon takes it off its arguments
    before Dagster's command line reads them (an unknown option would stop it)."""
    from mirage_query.settings import ServiceSettings

    daemon_command = _commands(ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}))
    assert DAEMON_WATCH_FLAG in daemon_command["dagster-daemon"]
    env = {**os.environ, "MIRAGE_DOCUMENTS_DIR": str(tmp_path)}
    for extra in ([DAEMON_WATCH_FLAG], []):
        done = subprocess.run(
            [sys.executable, "-m", "mirage_pipeline.dagster_daemon", "run", *extra, "--help"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "--workspace" in done.stdout
