"""`dagster-daemon`, with the sensor loop every second instead of every five, runs started
from a preloaded fork server (mirage_pipeline/dagster_code_server.py), and the run queue
dequeued as soon as the sensor queued a run (mirage_pipeline/dagster_dequeue.py).

Dagster's sensor daemon evaluates sensors at most once per `MIN_INTERVAL_LOOP_TIME` (5 s, not
configurable in dagster.yaml), whatever a sensor's `minimum_interval_seconds`: a new note waited
up to 5 s to be seen, then up to 5 s more to be found settled. `mirage up` and the Helm chart
start the daemon through this module so the documents sensor can tick every second. A Dagster
without that constant runs unchanged (at its own pace), with a warning.

Dagster's daemon also drops its code servers every 60 s (`RELOAD_WORKSPACE_INTERVAL`) and starts
new ones: in the local stack, where the daemon runs its own code server, that is a process that
imports Dagster and the code location and preloads its fork server — about 5 CPU-seconds a
minute taken from whatever is being indexed (a 320-page PDF: ~2.5 s of its ~90 s on two cores),
and from an idle machine. Here the daemon keeps a code server of its own that is alive for up
to `KEEP_CODE_SERVER_SECONDS`, and starts a new one within a minute when it died; a workspace
with no server of the daemon's own (the Helm chart's code location is a server of its own)
refreshes at Dagster's pace, so a redeployed code location is still picked up within a minute.

Started with `--watch-documents` (`mirage up`: the daemon, its code location and the documents
folder on one machine), its sensor loop waits between looks until the folder changes, up to 5 s
(mirage_pipeline/dagster_wakeup.py): an idle stack no longer pays Dagster's cost of a sensor
tick every second. The Helm chart's daemon, whose pod does not mount the documents volume (its
image has an empty folder of that name), goes without it.

    python -m mirage_pipeline.dagster_daemon run -w workspace.yaml [--watch-documents]
"""

import sys
import time
import warnings

SENSOR_LOOP_SECONDS = 1
KEEP_CODE_SERVER_SECONDS = 3600


def servers_alive(registry: object) -> bool:
    """Whether the daemon's registry of code servers it started holds some, all of them
    running (a failed load, a dead process or none at all: no)."""
    entries = list(getattr(registry, "_active_entries", {}).values())
    processes = [getattr(getattr(e, "process", None), "server_process", None) for e in entries]
    return bool(processes) and all(p is not None and p.poll() is None for p in processes)


def keep_code_servers() -> bool:
    """Refresh the daemon's workspace only when its own code servers died or are old; False
    when this Dagster's controller is not the one this was written for."""
    from dagster._daemon import controller

    daemon = getattr(controller, "DagsterDaemonController", None)
    original = getattr(daemon, "check_workspace_freshness", None)
    if original is None:
        return False

    def check_workspace_freshness(self: object, last_workspace_update_time: float) -> float:
        age = time.time() - last_workspace_update_time
        registry = getattr(self, "_grpc_server_registry", None)
        if age < KEEP_CODE_SERVER_SECONDS and servers_alive(registry):
            return last_workspace_update_time
        return original(self, last_workspace_update_time)

    daemon.check_workspace_freshness = check_workspace_freshness
    return True


def main() -> int:
    from dagster._daemon import sensor
    from dagster._daemon.cli import main as daemon_main
    from dagster._grpc import server

    from mirage_pipeline import dagster_code_server, dagster_dequeue, dagster_wakeup
    from mirage_pipeline.names import DAEMON_WATCH_FLAG
    from mirage_pipeline.settings import Settings

    watch = DAEMON_WATCH_FLAG in sys.argv
    if watch:
        sys.argv.remove(DAEMON_WATCH_FLAG)

    # the daemon's code server, which starts the runs, starts them from a preloaded fork server
    if hasattr(server, "get_python_environment_entry_point"):
        server.get_python_environment_entry_point = dagster_code_server.entry_point
    else:
        warnings.warn(
            "this Dagster opens its code server its own way: runs are spawned", stacklevel=1
        )

    if not dagster_dequeue.install():
        warnings.warn(
            "this Dagster's run queue is its own: runs wait for its interval", stacklevel=1
        )
    if not keep_code_servers():
        warnings.warn(
            "this Dagster's daemon refreshes its workspace its own way: a new code server a minute",
            stacklevel=1,
        )
    if hasattr(sensor, "MIN_INTERVAL_LOOP_TIME"):
        sensor.MIN_INTERVAL_LOOP_TIME = SENSOR_LOOP_SECONDS
        if watch and dagster_wakeup.install(Settings.from_env().documents_dir) is None:
            warnings.warn(
                "the documents folder cannot be watched: a look every second", stacklevel=1
            )
    else:
        warnings.warn(
            "this Dagster has no MIN_INTERVAL_LOOP_TIME: sensors tick at Dagster's own pace",
            stacklevel=1,
        )
    sys.argv[0] = "dagster-daemon"
    return daemon_main()


if __name__ == "__main__":
    sys.exit(main())
