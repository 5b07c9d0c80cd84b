"""`dagster-daemon`, with the sensor loop every second instead of every five, runs started
from a preloaded fork server (mirage_pipeline/dagster_code_server.py), and the run queue
dequeued as soon as the sensor queued a run (mirage_pipeline/dagster_dequeue.py).

Dagster's sensor daemon evaluates sensors at most once per `MIN_INTERVAL_LOOP_TIME` (5 s, not
configurable in dagster.yaml), whatever a sensor's `minimum_interval_seconds`: a new note waited
up to 5 s to be seen, then up to 5 s more to be found settled. `mirage up` and the Helm chart
start the daemon through this module so the documents sensor can tick every second. A Dagster
without that constant runs unchanged (at its own pace), with a warning.

    python -m mirage_pipeline.dagster_daemon run -w workspace.yaml
"""

import sys
import warnings

SENSOR_LOOP_SECONDS = 1


def main() -> int:
    from dagster._daemon import sensor
    from dagster._daemon.cli import main as daemon_main
    from dagster._grpc import server

    from mirage_pipeline import dagster_code_server, dagster_dequeue

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
    if hasattr(sensor, "MIN_INTERVAL_LOOP_TIME"):
        sensor.MIN_INTERVAL_LOOP_TIME = SENSOR_LOOP_SECONDS
    else:
        warnings.warn(
            "this Dagster has no MIN_INTERVAL_LOOP_TIME: sensors tick at Dagster's own pace",
            stacklevel=1,
        )
    sys.argv[0] = "dagster-daemon"
    return daemon_main()


if __name__ == "__main__":
    sys.exit(main())
