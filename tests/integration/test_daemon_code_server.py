"""The daemon keeps its code server while it lives (mirage_pipeline/dagster_daemon.py): Dagster's
own controller would start a new one every minute; a dead one is replaced at the next check."""

from __future__ import annotations

import time
from collections.abc import Iterator

import dagster as dg
import pytest
from dagster._core.workspace.load_target import ModuleTarget
from dagster._daemon.controller import DagsterDaemonController, daemon_controller_from_instance
from dagster._daemon.daemon import SchedulerDaemon

from mirage_pipeline import dagster_daemon


def _server_processes(controller: DagsterDaemonController) -> list:
    registry = controller._grpc_server_registry
    return [entry.process.server_process for entry in registry._active_entries.values()]


@pytest.fixture
def controller(monkeypatch: pytest.MonkeyPatch) -> Iterator[DagsterDaemonController]:
    # restored after the test: keep_code_servers() replaces the controller's method
    original = DagsterDaemonController.check_workspace_freshness
    monkeypatch.setattr(DagsterDaemonController, "check_workspace_freshness", original)
    assert dagster_daemon.keep_code_servers()
    target = ModuleTarget(
        module_name="mirage_pipeline.definitions",
        attribute=None,
        working_directory=None,
        location_name="mirage",
    )
    with (
        dg.instance_for_test() as instance,
        daemon_controller_from_instance(
            instance, workspace_load_target=target, gen_daemons=lambda _: [SchedulerDaemon()]
        ) as daemon,
    ):
        yield daemon


def test_a_live_code_server_is_kept_and_a_dead_one_replaced(
    controller: DagsterDaemonController,
) -> None:
    [server] = _server_processes(controller)
    assert server.poll() is None
    assert dagster_daemon.servers_alive(controller._grpc_server_registry)

    # two minutes after the last refresh Dagster would have started a new server: kept
    last = time.time() - 120
    assert controller.check_workspace_freshness(last) == last
    assert _server_processes(controller) == [server]

    server.kill()
    server.wait(timeout=30)
    assert not dagster_daemon.servers_alive(controller._grpc_server_registry)
    assert controller.check_workspace_freshness(last) > last  # refreshed
    [replacement] = _server_processes(controller)
    assert replacement is not server and replacement.poll() is None


def test_an_old_code_server_is_replaced(controller: DagsterDaemonController) -> None:
    [server] = _server_processes(controller)
    last = time.time() - dagster_daemon.KEEP_CODE_SERVER_SECONDS - 1
    assert controller.check_workspace_freshness(last) > last
    [replacement] = _server_processes(controller)
    assert replacement is not server


def test_no_server_of_its_own_refreshes_at_dagsters_pace() -> None:
    assert not dagster_daemon.servers_alive(None)
    assert not dagster_daemon.servers_alive(object())
