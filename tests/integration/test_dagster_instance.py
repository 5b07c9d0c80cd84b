"""The repository's dagster.yaml gives a working instance on PostgreSQL (psycopg2 URL)."""

from __future__ import annotations

import time

import dagster as dg
import psycopg
import pytest
from dagster_postgres import PostgresEventLogStorage, PostgresScheduleStorage

from mirage_pipeline.dagster_storage import MAX_OVERFLOW
from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.batch import Wanted, batch_requests
from mirage_pipeline.embedded_postgres import with_database
from mirage_pipeline.settings import Settings
from tests.support.batches import run_batch
from tests.support.dagster_home import repository_dagster_home
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration


def test_dagster_yaml_runs_on_postgres(postgres, database_url, tmp_path, monkeypatch):
    home, dagster_db = repository_dagster_home(
        postgres.url, database_url, tmp_path, monkeypatch, "dagster"
    )
    monkeypatch.setenv("MIRAGE_MAX_CONCURRENT_RUNS", "2")

    docs = tmp_path / "documents" / "demo"
    docs.mkdir(parents=True)
    (docs / "a.md").write_text("# A\n\n## One\n\nThe first section of A.\n", encoding="utf-8")

    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert type(instance.run_storage).__name__ == "PooledRunStorage"
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        assert instance.get_concurrency_config().pool_config.default_pool_limit == 1
        instance.add_dynamic_partitions("documents", ["demo/a.md"])
        result = dg.materialize(
            document_assets,
            partition_key="demo/a.md",
            instance=instance,
            resources=indexing_resources(
                documents_dir=str(tmp_path / "documents"), database_url=database_url
            ),
        )
        assert result.success
        # the run and its events were written to (and read back from) PostgreSQL
        records = instance.get_run_records()
        assert [r.dagster_run.run_id for r in records] == [result.run_id]
        event = instance.get_latest_materialization_event(dg.AssetKey("chunk_index"))
        assert event is not None
        assert event.asset_materialization.metadata["chunks"].value == 1

        # a batched run on the same instance: its events land per document in PostgreSQL
        (docs / "b.md").write_text("# B\n\nThe text of B.\n", encoding="utf-8")
        instance.add_dynamic_partitions("documents", ["demo/b.md"])
        wanted = [Wanted("demo/a.md", "a2"), Wanted("demo/b.md", "b1")]
        (request,) = batch_requests(wanted, Settings.from_env())
        mirage = indexing_resources(
            documents_dir=str(tmp_path / "documents"), database_url=database_url
        )
        batch, outcome = run_batch(instance, mirage, request, tmp_path / "storage")
        assert batch.success and outcome == {"demo/a.md": True, "demo/b.md": True}
        assert instance.get_materialized_partitions(dg.AssetKey("chunk_index")) == {
            "demo/a.md",
            "demo/b.md",
        }
        # each document's check results are in the checks' table too (each event is stored in
        # one transaction: dagster_storage.PooledEventLogStorage)
        with psycopg.connect(with_database(postgres.url, dagster_db)) as conn:
            checked = conn.execute(
                "SELECT partition, count(*) FROM asset_check_executions"
                " WHERE run_id = %s AND execution_status = 'SUCCEEDED' GROUP BY partition",
                (batch.run_id,),
            ).fetchall()
        assert dict(checked) == {"demo/a.md": 4, "demo/b.md": 4}

        # an event is stored whole or not at all: the asset index's update failing takes the
        # event row back with it
        storage = instance.event_log_storage
        before = len(instance.all_logs(batch.run_id))

        def broken(*args: object) -> None:
            raise RuntimeError("the asset index cannot be written")

        materialized = dg.DagsterEventType.ASSET_MATERIALIZATION
        entry = instance.all_logs(batch.run_id, of_type=materialized)[-1]
        with monkeypatch.context() as patch, pytest.raises(RuntimeError, match="asset index"):
            patch.setattr(storage, "_store_asset_event", broken)
            storage.store_event(entry)
        assert len(instance.all_logs(batch.run_id)) == before

        # the storage keeps its connections (mirage_pipeline/dagster_storage.py): calls to each
        # part reuse them instead of opening one per call, as dagster-postgres's NullPool does
        def calls() -> None:
            for _ in range(10):
                instance.get_run_records()
                instance.get_latest_materialization_event(dg.AssetKey("chunk_index"))
                instance.all_instigator_state()

        calls()
        kept = _backends(postgres.url, dagster_db)
        assert 1 <= len(kept) <= 3 * (1 + MAX_OVERFLOW)
        calls()
        assert _backends(postgres.url, dagster_db) == kept

        # that the schedule storage's tables exist is asked once, not on every call (the sensor
        # daemon reads and writes an instigator's state every tick)
        def asked_again(*args: object) -> bool:
            raise AssertionError("the tables were listed again")

        with monkeypatch.context() as patch:
            for name in ("_has_instigators_table", "has_secondary_index_table", "has_built_index"):
                patch.setattr(PostgresScheduleStorage, name, asked_again)
            patch.setattr(PostgresEventLogStorage, "has_table", asked_again)
            calls()
            assert "demo/b.md" in instance.get_dynamic_partitions("documents")
            # nor by the next instance of the process: a code server builds one per sensor tick
            with dg.DagsterInstance.from_config(str(home)) as tick:
                assert "demo/b.md" in tick.get_dynamic_partitions("documents")
                tick.all_instigator_state()
    # a disposed instance leaves no connection open
    deadline = time.monotonic() + 10
    while _backends(postgres.url, dagster_db) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _backends(postgres.url, dagster_db) == set()


def _backends(url: str, database: str) -> set[int]:
    """The server processes of the connections open to `database`."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        ).fetchall()
    return {pid for (pid,) in rows}
