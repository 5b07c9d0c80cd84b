"""One batched run of real notes, in process, on a Dagster instance in PostgreSQL. Prints JSON.

    PYTHONPATH=. .venv/bin/python bench/index_batch.py [--notes 100] [--repeat 3]

`bench/index_folder.py` measures the stack (sensor, queue, fork server, two runs at a time);
this measures what one `index_batch` run costs beyond its embedder, without the stack: `--notes`
of Git's documentation sections (the `--many` notes of index_folder.py, fetched the same way)
through `index_batch.execute_in_process` with the repository's Dagster storage
(`PooledPostgresStorage`) and the index on one embedded PostgreSQL. Per repeat, on a fresh
database: the run's wall time, PostgreSQL's CPU seconds (its server processes, ended ones
included) and this process's; then the embedder alone on the same texts, and the ratio of the
median run to it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_folder import embedder_only, git_sections


def _postgres_cpu_seconds(pgdata: Path) -> float:
    """CPU seconds of the server of `pgdata` and of its children, ended ones included."""
    import psutil

    from mirage_query.stack_checks import running_postgres

    pid = running_postgres(pgdata)
    if pid is None:
        raise SystemExit(f"no PostgreSQL server runs on {pgdata}")
    server = psutil.Process(pid)
    total = 0.0
    for process in [server, *server.children()]:
        with contextlib.suppress(psutil.NoSuchProcess):  # ended meanwhile
            total += sum(process.cpu_times()[:4])  # user, system, children's user and system
    return total


def one_run(root: Path, notes: list[tuple[str, str]]) -> dict:
    import dagster as dg
    from dagster._core.instance import DagsterInstance
    from dagster._core.instance.ref import InstanceRef

    from mirage_pipeline.defs.batch import index_batch
    from mirage_pipeline.defs.io_managers import ParquetIOManager
    from mirage_pipeline.embedded_postgres import (
        ensure_database,
        start_embedded_postgres,
        with_database,
    )
    from tests.support.resources import indexing_resources

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = start_embedded_postgres(root / "pgdata")
    try:
        ensure_database(server.url, "index")
        ensure_database(server.url, "dagster")
        home = root / "dagster"
        home.mkdir()
        dagster_url = with_database(server.url, "dagster", driver="psycopg2")
        (home / "dagster.yaml").write_text(
            "storage:\n  custom:\n    module: mirage_pipeline.dagster_storage\n"
            f"    class: PooledPostgresStorage\n    config:\n      postgres_url: '{dagster_url}'\n"
            "telemetry:\n  enabled: false\n",
            encoding="utf-8",
        )
        folder = root / "documents" / "notes"
        folder.mkdir(parents=True)
        for name, text in notes:
            (folder / name).write_text(text, encoding="utf-8")
        resources = indexing_resources(
            documents_dir=str(root / "documents"),
            database_url=with_database(server.url, "index"),
            embedder="local:multilingual-e5-small",
        )
        resources["io_manager"] = ParquetIOManager(base_dir=str(root / "stages"))
        resources["embedder"].get_client().warm_up()
        keys = [f"notes/{name}" for name, _ in notes]
        instance = DagsterInstance.from_ref(InstanceRef.from_dir(str(home)))
        instance.add_dynamic_partitions("documents", keys)
        logging.getLogger("dagster").setLevel(logging.WARNING)  # (the run's own log lines)
        pg_before, own_before = _postgres_cpu_seconds(server.pgdata), time.process_time()
        started = time.perf_counter()
        result = index_batch.execute_in_process(
            run_config={"ops": {"index_documents": {"config": {"documents": keys}}}},
            instance=instance,
            resources=resources,
            raise_on_error=False,
        )
        wall = time.perf_counter() - started
        ready = len(instance.get_materialized_partitions(dg.AssetKey("chunk_index")))
        instance.dispose()
        return {
            "success": result.success,
            "ready": ready,
            "wall_seconds": round(wall, 2),
            "postgres_cpu_seconds": round(_postgres_cpu_seconds(server.pgdata) - pg_before, 2),
            "process_cpu_seconds": round(time.process_time() - own_before, 2),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    notes = git_sections(args.notes)
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(one_run(Path(tmp), notes))
        print(json.dumps(runs[-1]), file=sys.stderr)
    alone = embedder_only(notes)
    median = statistics.median(r["wall_seconds"] for r in runs)
    print(
        json.dumps(
            {
                "notes": len(notes),
                "runs": runs,
                "median_wall_seconds": median,
                "embedder_only": alone,
                "ratio": round(median / alone["seconds"], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
