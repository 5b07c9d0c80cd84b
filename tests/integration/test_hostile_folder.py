"""A hostile or unlucky documents folder, through the real sensor and materializations: links
never reach the index and say so, any name a filesystem accepts indexes, a huge file ends with
its budget named, and deleted files leave no row behind."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import psycopg
import pytest

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.batch import Wanted, batch_requests
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.defs.sensors import LINK_REFUSED, FolderState
from tests.integration.test_pipeline_to_search import age, run_sensor
from tests.support.batches import requested_keys, run_all, run_batch
from tests.support.fake_ollama import FakeOllama, running_fake_ollama
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration

BULGAKOV = "Михаил Булгаков — Записки юного врача (сборник).fb2"
FB2 = """<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">
 <description><title-info><genre>prose</genre>
  <author><first-name>Михаил</first-name><last-name>Булгаков</last-name></author>
  <book-title>Записки юного врача</book-title><lang>ru</lang>
 </title-info></description>
 <body>
  <section><title><p>Полотенце с петухом</p></title>
   <p>Если человек не ездил на лошадях по глухим проселочным дорогам, то рассказывать мне
   ему об этом нечего: все равно он не поймет.</p>
  </section>
  <section><title><p>Стальное горло</p></title>
   <p>Итак, я остался один. Вокруг меня — ноябрьская тьма с вертящимся снегом.</p>
  </section>
 </body>
</FictionBook>
"""


@pytest.fixture
def fake():
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as server:
        yield server


@pytest.fixture
def folder(tmp_path: Path, database_url: str, fake: FakeOllama):
    docs = tmp_path / "documents"
    (docs / "demo").mkdir(parents=True)
    mirage = indexing_resources(
        documents_dir=str(docs),
        database_url=database_url,
        embedder="ollama:mxbai-embed-large",
        ollama_host=fake.url,
    )
    return docs, mirage, dg.DagsterInstance.ephemeral()


def materialize(instance, mirage, key: str, tmp: Path) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        document_assets,
        partition_key=key,
        instance=instance,
        resources={**mirage, "io_manager": ParquetIOManager(base_dir=str(tmp / "storage"))},
        raise_on_error=False,
    )


def documents(url: str) -> dict[str, tuple[str, str | None]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT path, status, error_message FROM documents").fetchall()
    return {path: (status, error) for path, status, error in rows}


def chunk_texts(url: str) -> str:
    with psycopg.connect(url) as conn:
        return "\n".join(r[0] for r in conn.execute("SELECT content FROM chunks"))


def test_links_to_a_file_and_a_folder_outside_are_refused_visibly(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (outside / "folder" / "secret.md").write_text("# Secret\n\nThe vault code is 4711.\n")
    (docs / "demo" / "notes.md").write_text("# Notes\n\nOur own notes about bees.\n")
    (docs / "demo" / "passwd.md").symlink_to(outside / "passwd")
    (docs / "demo" / "linked").symlink_to(outside / "folder")
    (docs / "stolen").symlink_to(outside / "folder")  # would be a project
    age(docs)
    age(outside)

    first = run_sensor(instance, mirage, None)
    assert requested_keys(first) == ["demo/notes.md"]
    assert instance.get_dynamic_partitions("documents") == ["demo/notes.md"]
    assert materialize(instance, mirage, "demo/notes.md", tmp_path).success
    # the linked file is visible as an error with the reason; the linked folders are logged once
    assert documents(database_url) == {
        "notes.md": ("ready", None),
        "passwd.md": ("error", LINK_REFUSED),
    }
    state = FolderState.load(first.cursor)
    assert state.folder_links == ["demo/linked", "stolen"] and state.projects == ["demo"]
    text = chunk_texts(database_url)
    assert "bees" in text and "root:x" not in text and "4711" not in text
    with psycopg.connect(database_url) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM projects")] == ["demo"]

    # the next tick changes nothing; removing the link removes its row
    second = run_sensor(instance, mirage, first.cursor)
    assert second.run_requests == []
    (docs / "demo" / "passwd.md").unlink()
    run_sensor(instance, mirage, second.cursor)
    assert set(documents(database_url)) == {"notes.md"}


def test_a_file_swapped_for_a_link_after_the_scan_is_not_read(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    (docs / "demo" / "a.md").write_text("# A\n\nHarmless text.\n")
    (tmp_path / "secret").write_text("# Secret\n\nroot:x:0:0\n")
    age(docs)
    first = run_sensor(instance, mirage, None)
    assert requested_keys(first) == ["demo/a.md"]
    (docs / "demo" / "a.md").unlink()
    (docs / "demo" / "a.md").symlink_to(tmp_path / "secret")
    assert not materialize(instance, mirage, "demo/a.md", tmp_path).success
    ((status, error),) = documents(database_url).values()
    assert status == "error" and "symbolic link" in error
    assert "root:x" not in chunk_texts(database_url)


def test_long_cyrillic_names_index(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    longest = "Ж" * 125 + ".md"  # 253 bytes: about the longest name ext4 takes
    assert len(longest.encode()) <= 255 and len(f"demo/{longest}".encode()) > 255
    (docs / "demo" / BULGAKOV).write_text(FB2, encoding="utf-8")
    (docs / "demo" / longest).write_text("# Заметка\n\nКороткая заметка о пчёлах и мёде.\n")
    age(docs)
    first = run_sensor(instance, mirage, None)
    assert sorted(requested_keys(first)) == sorted([f"demo/{BULGAKOV}", f"demo/{longest}"])
    outcome = run_all(instance, mirage, first.run_requests, tmp_path / "storage")
    assert all(outcome.values()), documents(database_url)
    assert documents(database_url) == {BULGAKOV: ("ready", None), longest: ("ready", None)}
    assert "ноябрьская тьма" in chunk_texts(database_url)
    stored = {p.name for p in (tmp_path / "storage" / "raw_file").iterdir()}
    assert len(stored) == 2 and all(len(name) == 64 + len(".parquet") for name in stored)


def test_a_one_line_40_mb_markdown_file_ends_with_its_budget_named(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    with (docs / "demo" / "one-line.md").open("wb") as out:
        for _ in range(40):
            out.write(b"word " * (1024 * 1024 // 5) + b"word")
    age(docs)
    first = run_sensor(instance, mirage, None)
    assert not materialize(instance, mirage, "demo/one-line.md", tmp_path).success
    ((status, error),) = documents(database_url).values()
    assert status == "error"
    assert error.startswith("over the budget of 20,000,000 characters per document")
    assert "MIRAGE_MAX_CHARACTERS" in error
    assert first.run_requests  # it was queued like any file


def test_files_deleted_after_their_runs_were_queued_leave_no_row(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    for i in range(10):
        (docs / "demo" / f"note{i}.md").write_text(f"# Note {i}\n\nText of note {i}.\n")
    age(docs)
    first = run_sensor(instance, mirage, None)
    keys = requested_keys(first)
    assert len(keys) == 10 and len(first.run_requests) == 1  # one batched run
    assert {s for s, _ in documents(database_url).values()} == {"pending"}
    for i in range(10):
        (docs / "demo" / f"note{i}.md").unlink()
    # a batch of five starts before the sensor notices, five single runs after it deleted rows
    (batch,) = batch_requests([Wanted(k, k) for k in keys[:5]], mirage["documents"].settings())
    result, outcome = run_batch(instance, mirage, batch, tmp_path / "storage")
    assert not result.success and not any(outcome.values())
    assert set(documents(database_url)) == {f"note{i}.md" for i in range(5, 10)}
    second = run_sensor(instance, mirage, first.cursor)
    assert documents(database_url) == {}
    for key in keys[5:]:
        instance.add_dynamic_partitions("documents", [key])  # already running
        assert not materialize(instance, mirage, key, tmp_path).success
    run_sensor(instance, mirage, second.cursor)
    assert documents(database_url) == {}


def test_a_row_whose_file_is_gone_is_deleted_by_the_sensor(folder, database_url, tmp_path):
    docs, mirage, instance = folder
    (docs / "demo" / "kept.md").write_text("# Kept\n\nStill here.\n")
    age(docs)
    first = run_sensor(instance, mirage, None)
    assert materialize(instance, mirage, "demo/kept.md", tmp_path).success
    with psycopg.connect(database_url) as conn:  # a row a lost race left behind
        conn.execute(
            "INSERT INTO documents (project_id, path, file_type, status, error_message, updated_at)"
            " SELECT id, 'gone.md', 'markdown', 'error', 'the file disappeared', now() - interval"
            " '1 hour' FROM projects WHERE name = 'demo'"
        )
    run_sensor(instance, mirage, first.cursor)
    assert documents(database_url) == {"kept.md": ("ready", None)}
