"""Crashes and outages heal themselves: embedder turns are fair and never leak, documents left
unfinished or in `error` by a cause of the machine are retried by the sensor with backoff, and
PostgreSQL stopped and restarted mid-index leaves the document `ready` with no manual step."""

from __future__ import annotations

import threading
import time
import warnings
from pathlib import Path

import dagster as dg
import psycopg
import pytest

from mirage_pipeline.defs import healing
from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.failures import RETRIED
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.defs.sensors import FolderState
from mirage_pipeline.embedded_postgres import start_embedded_postgres
from mirage_pipeline.store.embedder_turns import embedder_turn
from tests.integration.test_pipeline_to_search import age, run_sensor
from tests.support.batches import requested_keys, run_all, run_batch
from tests.support.fake_ollama import FakeOllama, running_fake_ollama
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration
BOOK = "# Manual\n\n" + "\n\n".join(
    f"## Part {n}\n\nPart {n} explains step {n} of the process in plain words, with enough "
    "detail that it stands alone as a passage of its own." * 3
    for n in range(1, 6)
)


def test_embedder_turns_alternate_between_a_big_and_a_small_run(database_url):
    order: list[str] = []
    small_started = threading.Event()

    def run(name: str, turns: int) -> None:
        with psycopg.connect(database_url, autocommit=True) as conn:
            for i in range(turns):
                if name == "big" and i == 2:
                    small_started.set()
                with embedder_turn(conn, slots=1):
                    order.append(name)
                    time.sleep(0.05)

    big = threading.Thread(target=run, args=("big", 20))
    big.start()
    small_started.wait(10)
    time.sleep(0.02)  # the small run queues while the big one holds the turn
    run("small", 3)
    big.join(30)
    last_small = max(i for i, name in enumerate(order) if name == "small")
    assert order.count("big") == 20 and order.count("small") == 3
    assert last_small <= 9, order  # served in turn, not after the big run's 20 batches


def test_a_dead_session_never_keeps_a_turn(database_url):
    holder = psycopg.connect(database_url, autocommit=True)
    turn = embedder_turn(holder, slots=1)
    turn.__enter__()
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks"
            " WHERE locktype = 'advisory' AND classid = %s",
            (0x6D697267,),
        )
    with psycopg.connect(database_url, autocommit=True) as conn:
        started = time.monotonic()
        with embedder_turn(conn, slots=1):
            assert time.monotonic() - started < 5
    holder.close()


@pytest.fixture
def fake():
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as server:
        yield server


def stale(url: str, path: str, status: str, error: str | None) -> None:
    """Put the document in `status` as if it had been left there a minute ago."""
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE documents SET status = %s, error_message = %s,"
            " updated_at = now() - interval '1 minute' WHERE path = %s",
            (status, error, path),
        )


def test_the_sensor_retries_what_a_crash_or_an_outage_left(tmp_path, database_url, fake):
    docs = tmp_path / "documents"
    (docs / "demo").mkdir(parents=True)
    for name in ("stuck.md", "outage.md", "parse.md"):
        (docs / "demo" / name).write_text(f"# {name}\n\nSome text of {name}.\n")
    age(docs)
    mirage = indexing_resources(
        documents_dir=str(docs),
        database_url=database_url,
        embedder="ollama:mxbai-embed-large",
        ollama_host=fake.url,
    )
    instance = dg.DagsterInstance.ephemeral()
    cursor = run_sensor(instance, mirage, None).cursor
    stale(database_url, "stuck.md", "indexing", None)  # its worker died, no run is left
    outage = f"PostgreSQL is unreachable: connection refused{RETRIED}"
    stale(database_url, "outage.md", "error", outage)
    stale(database_url, "parse.md", "error", "empty file")  # the document's fault: final

    tick = run_sensor(instance, mirage, cursor)
    assert sorted(requested_keys(tick)) == ["demo/outage.md", "demo/stuck.md"]
    assert [r.tags["mirage/retry"] for r in tick.run_requests] == ["1"]  # one batched run
    state = FolderState.load(tick.cursor)
    assert state.retries["demo/outage.md"][0] == 1
    assert state.retries["demo/outage.md"][1] >= time.time() + healing.BACKOFF[0] - 2

    # the retry failed again: the next one waits for its backoff, then comes
    stale(database_url, "outage.md", "error", outage)
    assert run_sensor(instance, mirage, tick.cursor).run_requests == []
    state = FolderState.load(tick.cursor)
    state.retries["demo/outage.md"] = [1, 0.0]
    again = run_sensor(instance, mirage, state.dump())
    assert [r.tags["mirage/retry"] for r in again.run_requests] == ["2"]

    # after MAX_ATTEMPTS the error becomes final and says so
    state.retries["demo/outage.md"] = [healing.MAX_ATTEMPTS, 0.0]
    stale(database_url, "outage.md", "error", outage)
    assert "demo/outage.md" not in requested_keys(run_sensor(instance, mirage, state.dump()))
    with psycopg.connect(database_url) as conn:
        (error,) = conn.execute(
            "SELECT error_message FROM documents WHERE path = 'outage.md'"
        ).fetchone()
    assert error.endswith(f"gave up after {healing.MAX_ATTEMPTS} automatic retries")

    # a retried run that succeeds ends `ready`
    assert dg.materialize(
        document_assets,
        partition_key="demo/stuck.md",
        instance=instance,
        resources={**mirage, "io_manager": ParquetIOManager(base_dir=str(tmp_path / "s"))},
    ).success


class OutageOllama(FakeOllama):
    """Stops PostgreSQL at the first passage embedding and starts it again `seconds` later."""

    def __init__(self, server, seconds: float) -> None:
        super().__init__(models={"mxbai-embed-large": 1024})
        self.server, self.seconds = server, seconds
        self.restarted = threading.Event()
        self._once = threading.Lock()

    def answer(self, body: dict) -> tuple[int, dict]:
        probe = "dimension probe" in (body.get("input") or [])
        if not probe and self._once.acquire(blocking=False):
            pgdata = self.server.pgdata
            self.server.stop()

            def restart() -> None:
                time.sleep(self.seconds)
                self.server = start(pgdata)
                self.restarted.set()

            threading.Thread(target=restart, daemon=True).start()
        return super().answer(body)


def start(pgdata: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return start_embedded_postgres(pgdata)


def test_postgres_stopped_and_restarted_mid_index_ends_ready(tmp_path):
    server = start(tmp_path / "pgdata")
    fake = OutageOllama(server, seconds=20)  # about as long as the step's retries (2, 4, 8 s ±)
    try:
        with running_fake_ollama(fake):
            docs = tmp_path / "documents"
            (docs / "demo").mkdir(parents=True)
            (docs / "demo" / "manual.md").write_text(BOOK, encoding="utf-8")
            age(docs)
            mirage = indexing_resources(
                documents_dir=str(docs),
                database_url=server.url,
                embedder="ollama:mxbai-embed-large",
                ollama_host=fake.url,
            )
            instance = dg.DagsterInstance.ephemeral()
            first = run_sensor(instance, mirage, None)
            (request,) = first.run_requests
            result, _ = run_batch(instance, mirage, request, tmp_path / "storage")
            assert fake.restarted.wait(60)
            if not result.success:  # the outage outlived the step's retries: the sensor
                cursor, deadline = first.cursor, time.monotonic() + 60  # runs it again
                while True:
                    tick = run_sensor(instance, mirage, cursor)
                    cursor = tick.cursor
                    if tick.run_requests or time.monotonic() > deadline:
                        break
                    time.sleep(1)
                assert requested_keys(tick) == ["demo/manual.md"]
                assert run_all(instance, mirage, tick.run_requests, tmp_path / "storage") == {
                    "demo/manual.md": True
                }
            print(f"first run {'succeeded by its retries' if result.success else 'failed'}")
            with psycopg.connect(server.url) as conn:
                ((status, error, count),) = conn.execute(
                    "SELECT status, error_message, chunk_count FROM documents"
                ).fetchall()
            assert (status, error) == ("ready", None) and count >= 5
    finally:
        fake.server.stop()
