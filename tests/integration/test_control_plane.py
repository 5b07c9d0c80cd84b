"""Dagster as the control plane: edit → only changed chunks embedded, delete → nothing left,
retries, settling files, the embedding cache across projects, a second model's index, Parquet
stages re-materialized alone, and the asset checks."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from pathlib import Path

import dagster as dg
import numpy as np
import psycopg
import pytest

from mirage_pipeline.defs.assets import chunk_embeddings, chunk_index, document_assets
from mirage_pipeline.defs.io_managers import ParquetIOManager, storage_name
from mirage_pipeline.store.schema import read_embedding_indexes
from mirage_query.catalog import project_id as find_project_id
from mirage_query.search import SearchPlan
from mirage_query.search_run import search_hybrid
from tests.integration.test_pipeline_to_search import age, run_sensor
from tests.support.batches import requested_keys, run_all
from tests.support.fake_ollama import FakeOllama, running_fake_ollama
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration


def chapter(n: int) -> str:
    paragraphs = [
        f"Paragraph {p} of chapter {n} explains step {p} of process {n} in plain words, "
        f"with enough detail that it stands alone as a passage of its own."
        for p in range(1, 4)
    ]
    return f"## Chapter {n}\n\n" + "\n\n".join(paragraphs) + "\n"


BOOK = "# Manual\n\n" + "\n".join(chapter(n) for n in range(1, 7))


def embedded_texts(fake: FakeOllama) -> list[str]:
    texts = []
    for request in fake.requests:
        inputs = request.get("input")
        texts += [inputs] if isinstance(inputs, str) else list(inputs)
    return [t for t in texts if t != "dimension probe"]


def materialize(instance, mirage, key: str, tmp: Path, selection=None) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        document_assets,
        selection=selection,
        partition_key=key,
        instance=instance,
        resources={**mirage, "io_manager": ParquetIOManager(base_dir=str(tmp / "storage"))},
        raise_on_error=False,
    )


def tick_and_run(instance, mirage, cursor, tmp) -> tuple[str, dict[str, bool]]:
    result = run_sensor(instance, mirage, cursor)
    return result.cursor, run_all(instance, mirage, result.run_requests, tmp / "storage")


def search_text(url: str, query: str) -> list[str]:
    """Contents of the text-mode hits for `query` in project demo, as the service finds them."""

    async def run() -> list[str]:
        async with await psycopg.AsyncConnection.connect(url) as conn:
            project = await find_project_id(conn, "demo")
            (index,) = await asyncio.to_thread(indexes, url)
            plan = SearchPlan(query=query, mode="text")
            return [h.content for h in await search_hybrid(conn, index, project, plan, None)]

    return asyncio.run(run())


def indexes(url: str):
    with psycopg.connect(url) as conn:
        return read_embedding_indexes(conn)


def rows(url: str, sql: str, *args) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, args).fetchall()


@pytest.fixture
def fake():
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as server:
        yield server


@pytest.fixture
def setup(tmp_path: Path, database_url: str, fake: FakeOllama):
    docs = tmp_path / "documents"
    (docs / "demo").mkdir(parents=True)
    mirage = indexing_resources(
        documents_dir=str(docs),
        database_url=database_url,
        embedder="ollama:mxbai-embed-large",
        ollama_host=fake.url,
    )
    return docs, mirage, dg.DagsterInstance.ephemeral()


def test_edit_embeds_only_changed_chunks_and_delete_leaves_nothing(
    setup, fake, database_url, tmp_path
) -> None:
    docs, mirage, instance = setup
    book = docs / "demo" / "manual.md"
    book.write_text(BOOK, encoding="utf-8")
    age(docs)
    cursor, outcome = tick_and_run(instance, mirage, None, tmp_path)
    assert outcome == {"demo/manual.md": True}
    first = len(embedded_texts(fake))
    ((status, count),) = rows(database_url, "SELECT status, chunk_count FROM documents")
    ((windows,),) = rows(database_url, "SELECT count(*) FROM chunk_parts")
    assert status == "ready" and count >= 6 and first == count + windows

    # Asset checks ran with the write and passed.
    event = instance.get_latest_materialization_event(dg.AssetKey("chunk_index"))
    assert event is not None
    checks = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [dg.AssetCheckKey(dg.AssetKey("chunk_index"), "chunk_count_matches")]
    )
    assert all(c.status.value == "SUCCEEDED" for c in checks.values())

    # A touch is no change; an edited paragraph re-embeds only the chunks it is in.
    age(docs, seconds=20)
    cursor, outcome = tick_and_run(instance, mirage, cursor, tmp_path)
    assert outcome == {}
    book.write_text(BOOK.replace("step 2 of process 4", "step 2 of the REVISED process 4"))
    age(docs, seconds=10)
    fake.requests.clear()
    cursor, outcome = tick_and_run(instance, mirage, cursor, tmp_path)
    assert outcome == {"demo/manual.md": True}
    again = embedded_texts(fake)
    # the chunk around the edit and sentence windows of that chunk only (windows after the
    # edited sentence may shift), nothing of the other chapters
    assert 1 <= len(again) <= 8 and any("REVISED" in t for t in again)
    assert all("process 4" in t for t in again)
    contents = [c for (c,) in rows(database_url, "SELECT content FROM chunks")]
    assert any("REVISED process 4" in c for c in contents)
    assert not any("step 2 of process 4" in c for c in contents)
    # Search (the query service's own statement) finds the new text and never the old.
    hits = search_text(database_url, '"step 2 of the REVISED process 4"')
    assert hits and all("REVISED" in h for h in hits[:1])
    assert not any(
        "step 2 of process 4" in h for h in search_text(database_url, "step 2 of process 4")
    )

    # Deleted: no row of the document remains and its partition is gone.
    book.unlink()
    cursor, outcome = tick_and_run(instance, mirage, cursor, tmp_path)
    assert outcome == {}
    assert rows(database_url, "SELECT count(*) FROM chunks") == [(0,)]
    assert rows(database_url, "SELECT count(*) FROM documents") == [(0,)]
    assert instance.get_dynamic_partitions("documents") == []


def test_copy_into_another_project_costs_no_embedding(setup, fake, database_url, tmp_path):
    docs, mirage, instance = setup
    (docs / "demo" / "manual.md").write_text(BOOK, encoding="utf-8")
    age(docs)
    cursor, _ = tick_and_run(instance, mirage, None, tmp_path)
    fake.requests.clear()
    (docs / "other").mkdir()
    shutil.copy(docs / "demo" / "manual.md", docs / "other" / "manual.md")
    age(docs)
    cursor, outcome = tick_and_run(instance, mirage, cursor, tmp_path)
    assert outcome == {"other/manual.md": True}
    assert embedded_texts(fake) == []
    event = instance.get_latest_materialization_event(dg.AssetKey("chunk_embeddings"))
    meta = event.asset_materialization.metadata
    assert meta["embedded"].value == 0 and meta["cache_hits"].value >= 6
    assert rows(database_url, "SELECT count(DISTINCT project_id) FROM chunks") == [(2,)]


def test_an_embedders_new_revision_embeds_again(setup, fake, database_url, tmp_path, monkeypatch):
    """Vectors an embedder gave before its revision changed (the bundled model's engine, under
    the same name) are not read back from the cache: the copy is embedded anew and cached
    under the new revision, beside the old vectors."""
    from mirage_pipeline.embedders.ollama import OllamaEmbedder

    docs, mirage, instance = setup
    (docs / "demo" / "manual.md").write_text(BOOK, encoding="utf-8")
    age(docs)
    cursor, _ = tick_and_run(instance, mirage, None, tmp_path)
    fake.requests.clear()
    monkeypatch.setattr(OllamaEmbedder, "revision", "2", raising=False)
    (docs / "other").mkdir()
    shutil.copy(docs / "demo" / "manual.md", docs / "other" / "manual.md")
    age(docs)
    cursor, outcome = tick_and_run(instance, mirage, cursor, tmp_path)
    assert outcome == {"other/manual.md": True}
    assert len(embedded_texts(fake)) >= 6
    event = instance.get_latest_materialization_event(dg.AssetKey("chunk_embeddings"))
    assert event.asset_materialization.metadata["cache_hits"].value == 0
    models = rows(database_url, "SELECT DISTINCT model FROM embedding_cache ORDER BY model")
    assert models == [("ollama:mxbai-embed-large",), ("ollama:mxbai-embed-large@2",)]


def test_embedder_failing_twice_then_recovering_ends_ready(setup, fake, database_url, tmp_path):
    docs, mirage, instance = setup
    (docs / "demo" / "a.md").write_text("# A\n\nSome text to embed.\n", encoding="utf-8")
    age(docs)
    assert mirage["embedder"].get_client().dimension == 1024  # probe first, then arm the failures
    fake.fail_next = 2
    _, outcome = tick_and_run(instance, mirage, None, tmp_path)
    assert outcome == {"demo/a.md": True}
    assert rows(database_url, "SELECT status, error_message FROM documents") == [("ready", None)]


def test_an_embedder_that_stays_down_ends_in_error(setup, fake, database_url, tmp_path):
    docs, mirage, instance = setup
    (docs / "demo" / "a.md").write_text("# A\n\nSome text to embed.\n", encoding="utf-8")
    age(docs)
    assert mirage["embedder"].get_client().dimension == 1024
    fake.fail_next = 100
    _, outcome = tick_and_run(instance, mirage, None, tmp_path)
    assert outcome == {"demo/a.md": False}
    ((status, error),) = rows(
        database_url, "SELECT status, error_message FROM documents WHERE path = 'a.md'"
    )
    assert status == "error" and "gave up after 4 attempts" in error and "OLLAMA_HOST" in error


def test_files_being_written_wait_until_settled(setup, database_url, tmp_path):
    docs, mirage, instance = setup
    big = docs / "demo" / "big.md"
    big.write_text("# Big\n\npart one\n", encoding="utf-8")
    (docs / "demo" / "book.pdf.part").write_bytes(b"%PDF-1.4 half")
    (docs / "demo" / "~$draft.md").write_text("lock file")
    stop = threading.Event()

    def keep_writing() -> None:  # a slow copy: a few bytes every 0.2 s
        with big.open("a", encoding="utf-8") as out:
            while not stop.wait(0.2):
                out.write("more text\n")
                out.flush()

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        first = run_sensor(instance, mirage, None)
        assert first.run_requests == []  # changed during the settle window
        second = run_sensor(instance, mirage, first.cursor)
        assert second.run_requests == []  # still changing
    finally:
        stop.set()
        writer.join()
    third = run_sensor(instance, mirage, second.cursor)
    assert requested_keys(third) == ["demo/big.md"]  # quiet for a second: taken
    assert rows(database_url, "SELECT path, status FROM documents") == [("big.md", "pending")]
    assert rows(database_url, "SELECT name FROM projects") == [("demo",)]


def test_a_note_saved_a_moment_ago_is_requested_by_the_same_tick(setup):
    docs, mirage, instance = setup
    (docs / "demo" / "note.md").write_text("# Note\n\nJust saved.\n", encoding="utf-8")
    started = time.monotonic()
    tick = run_sensor(instance, mirage, None)
    assert requested_keys(tick) == ["demo/note.md"]
    # the tick waited out the rest of the settle window, no more
    assert mirage["documents"].settle_seconds * 0.8 <= time.monotonic() - started < 10


def test_a_second_model_gets_its_own_index(setup, database_url, tmp_path, local_embedder):
    docs, ollama_mirage, instance = setup
    (docs / "demo" / "manual.md").write_text(BOOK, encoding="utf-8")
    age(docs)
    instance.add_dynamic_partitions("documents", ["demo/manual.md"])
    assert materialize(instance, ollama_mirage, "demo/manual.md", tmp_path).success
    local = indexing_resources(
        documents_dir=str(docs), database_url=database_url, embedder="local:multilingual-e5-small"
    )
    assert materialize(instance, local, "demo/manual.md", tmp_path).success
    per_index = rows(
        database_url,
        "SELECT e.model, e.dimension, count(*), min(vector_dims(c.embedding)),"
        " max(vector_dims(c.embedding)) FROM chunks c JOIN embedding_indexes e"
        " ON e.id = c.index_id GROUP BY e.model, e.dimension ORDER BY e.dimension",
    )
    assert [(m, d, lo, hi) for m, d, _, lo, hi in per_index] == [
        ("local:multilingual-e5-small", 384, 384, 384),
        ("ollama:mxbai-embed-large", 1024, 1024, 1024),
    ]


def test_one_stage_rematerializes_alone_from_parquet(setup, fake, database_url, tmp_path):
    docs, mirage, instance = setup
    (docs / "demo" / "manual.md").write_text(BOOK, encoding="utf-8")
    age(docs)
    _, outcome = tick_and_run(instance, mirage, None, tmp_path)  # a batched run writes stages
    assert outcome == {"demo/manual.md": True}
    stored = sorted(
        p.relative_to(tmp_path / "storage").as_posix()
        for p in (tmp_path / "storage").rglob("*.parquet")
    )
    name = storage_name("demo/manual.md")  # a hash: any document name fits a file name
    assert stored == [
        f"chunk_embeddings/{name}.parquet",
        f"document_chunks/{name}.parquet",
        f"parsed_document/{name}.parquet",
        f"raw_file/{name}.parquet",
    ]
    fake.requests.clear()
    before = rows(database_url, "SELECT id, content FROM chunks ORDER BY position")
    again = materialize(
        instance, mirage, "demo/manual.md", tmp_path, selection=[chunk_embeddings, chunk_index]
    )
    assert again.success
    assert embedded_texts(fake) == []  # inputs came from Parquet, vectors from the cache
    after = rows(database_url, "SELECT id, content FROM chunks ORDER BY position")
    assert [c for _, c in after] == [c for _, c in before]
    vectors = np.asarray(
        rows(database_url, "SELECT embedding::text FROM chunks LIMIT 1")[0][0]
        .strip("[]")
        .split(","),
        dtype=float,
    )
    assert vectors.shape == (1024,)


def test_reindex_project_job_requests_one_run_per_document(setup, tmp_path):
    from mirage_pipeline.defs.reindex import reindex_project

    docs, mirage, instance = setup
    (docs / "demo" / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    (docs / "demo" / "b.md").write_text("# B\n\nBeta.\n", encoding="utf-8")
    (docs / "other").mkdir()
    (docs / "other" / "c.md").write_text("# C\n\nGamma.\n", encoding="utf-8")
    age(docs)
    cursor, outcome = tick_and_run(instance, mirage, None, tmp_path)
    assert len(outcome) == 3 and all(outcome.values())

    def launch(config: dict) -> bool:
        return reindex_project.execute_in_process(
            run_config={"ops": {"request_project_reindex": {"config": config}}},
            resources=mirage,
            instance=instance,
            raise_on_error=False,
        ).success

    assert launch({"project": "demo"})
    result = run_sensor(instance, mirage, cursor)
    assert sorted(requested_keys(result)) == ["demo/a.md", "demo/b.md"]
    assert all(r.tags["mirage/project"] == "demo" for r in result.run_requests)
    assert run_sensor(instance, mirage, result.cursor).run_requests == []  # served once
    assert launch({"project": "other", "document": "c.md"})
    result = run_sensor(instance, mirage, result.cursor)
    assert requested_keys(result) == ["other/c.md"]
    assert not launch({"project": "nope"})
