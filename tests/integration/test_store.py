"""The index in PostgreSQL: migrations, one embedding index per model, atomic chunk swaps."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import psycopg
import pytest

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.store import (
    IndexModelMismatch,
    apply_migrations,
    bind_embedding_index,
    prepare_database,
    read_embedding_indexes,
)
from mirage_pipeline.store.checks import ChecksFailed
from mirage_pipeline.store.connections import connect
from mirage_pipeline.store.documents import start_document
from mirage_pipeline.store.embedding_index import EmbeddingIndex
from mirage_pipeline.store.swap import DocumentSwap, replace_chunks
from mirage_pipeline.store.vector_forms import stored_vectors

pytestmark = pytest.mark.integration


def chunks(n: int, text: str = "chunk") -> list[Chunk]:
    return [
        Chunk(
            position=i,
            content=f"{text} {i}",
            embed_text=f"{text} {i}",
            structure={"heading_path": ["T"]},
            tokens=3,
            lang="en",
            content_hash=f"{text}{i}",
        )
        for i in range(n)
    ]


def vectors(n: int, dim: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def new_document(conn: psycopg.Connection, path: str = "a.md"):
    return start_document(
        conn, project="p", path=path, file_type="markdown", content_hash="h", size_bytes=1
    )


def write_chunks(conn: psycopg.Connection, index, pid: uuid.UUID, doc: uuid.UUID, chunks):
    """The document's rows in `index` replaced by `chunks` (random vectors, no windows)."""
    return replace_chunks(
        conn,
        index=index,
        document_id=doc,
        project_id=pid,
        chunks=chunks,
        embeddings=vectors(len(chunks), index.dimension),
        metadata={},
    )


def write_new_document(conn: psycopg.Connection, index, chunks: list[Chunk]) -> uuid.UUID:
    """A new document holding `chunks` (random vectors); its id."""
    pid, doc = new_document(conn)
    write_chunks(conn, index, pid, doc, chunks)
    return doc


def test_migrations_apply_once(empty_database_url: str) -> None:
    with psycopg.connect(empty_database_url) as conn:
        first = apply_migrations(conn)
        again = apply_migrations(conn)
        tables = {
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            ).fetchall()
        }
    assert first and first == sorted(first)
    assert again == []
    assert {"projects", "documents", "chunks", "embedding_indexes"} <= tables


def test_the_float32_engine_migration_re_embeds_the_bundled_models_projects(
    database_url: str,
) -> None:
    """Migration 0013 on a database the int8 engine left: its cached vectors go, and each
    project holding the bundled model's passages (not another model's) is to be re-indexed."""
    from mirage_pipeline.store.cache import store_embeddings
    from mirage_pipeline.store.reindex import open_requests

    small = prepare_database(database_url, "local:multilingual-e5-small", 384)
    large = prepare_database(database_url, "ollama:mxbai-embed-large", 1024)
    with connect(database_url) as conn:
        for project, index in (("books", small), ("ollama-only", large)):
            pid, doc = start_document(
                conn,
                project=project,
                path="a.md",
                file_type="markdown",
                content_hash="h",
                size_bytes=1,
            )
            write_chunks(conn, index, pid, doc, chunks(2))
        start_document(
            conn, project="empty", path="b.md", file_type="markdown", content_hash="h", size_bytes=1
        )
        for model in ("local:multilingual-e5-small", "local:multilingual-e5-small@onnx2"):
            store_embeddings(conn, model, ["h1"], vectors(1, 384))
        conn.execute("DELETE FROM schema_migrations WHERE version = 13")
        conn.commit()
        assert apply_migrations(conn) == [13]
        cached = conn.execute("SELECT model FROM embedding_cache").fetchall()
        assert cached == [("local:multilingual-e5-small@onnx2",)]
        assert [(project, path) for _, project, path in open_requests(conn)] == [("books", None)]


def test_headings_migration_indexes_a_chunks_heading_words(database_url: str) -> None:
    """Migration 0014 on an index holding chunks: each chunk's tsv gains its heading path's
    words (in its own language), the column stays in the row (0010) and its GIN index keeps
    its short pending list (0012)."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with connect(database_url) as conn:
        pid, doc = start_document(
            conn, project="p", path="a.md", file_type="markdown", content_hash="h", size_bytes=1
        )
        written = [
            dataclasses.replace(c, structure={"heading_path": ["Beekeeping", "Swarming"]})
            for c in chunks(2)
        ]
        write_chunks(conn, index, pid, doc, written)
        conn.execute("DELETE FROM schema_migrations WHERE version = 14")
        conn.commit()
        assert apply_migrations(conn) == [14]
        found = conn.execute(
            "SELECT count(*) FROM chunks WHERE tsv @@ to_tsquery('english', 'swarm')"
        ).fetchone()[0]
        storage = conn.execute(
            "SELECT attstorage FROM pg_attribute"
            " WHERE attrelid = 'chunks'::regclass AND attname = 'tsv'"
        ).fetchone()[0]
        options = conn.execute(
            "SELECT reloptions FROM pg_class WHERE relname = 'chunks_tsv_idx'"
        ).fetchone()[0]
    assert found == 2
    assert storage == "m"
    assert options == ["gin_pending_list_limit=256"]


def test_titles_migration_indexes_a_chunks_document_title(database_url: str) -> None:
    """Migration 0015: each chunk's tsv also holds its document's title (`structure -> 'book'`),
    for chunks written after it and, migrating, for chunks already there."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with connect(database_url) as conn:
        pid, doc = start_document(
            conn, project="p", path="a.md", file_type="markdown", content_hash="h", size_bytes=1
        )
        written = [
            dataclasses.replace(c, structure={"book": "Beekeeping Handbook", "heading_path": []})
            for c in chunks(2)
        ]
        write_chunks(conn, index, pid, doc, written)
        query = "SELECT count(*) FROM chunks WHERE tsv @@ to_tsquery('english', 'beekeeping')"
        written_after = conn.execute(query).fetchone()[0]
        conn.execute("DELETE FROM schema_migrations WHERE version = 15")
        conn.commit()
        assert apply_migrations(conn) == [15]
        migrated = conn.execute(query).fetchone()[0]
    assert (written_after, migrated) == (2, 2)


def test_each_model_gets_its_own_index(database_url: str) -> None:
    small = prepare_database(database_url, "local:multilingual-e5-small", 384)
    large = prepare_database(database_url, "ollama:mxbai-embed-large", 1024)
    assert small.id != large.id
    assert prepare_database(database_url, "local:multilingual-e5-small", 384) == small
    with psycopg.connect(database_url) as conn:
        assert read_embedding_indexes(conn) == [small, large]
        names = {
            r[0]
            for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'chunks'")
        }
    assert {small.hnsw_name, large.hnsw_name} <= names


def test_a_model_that_changed_dimension_is_refused(database_url: str) -> None:
    prepare_database(database_url, "ollama:custom", 768)
    with pytest.raises(IndexModelMismatch, match=r"768-d.*ollama:custom|ollama:custom.*768-d"):
        prepare_database(database_url, "ollama:custom", 1024)


def test_vectors_of_the_wrong_dimension_never_enter_an_index(database_url: str) -> None:
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with connect(database_url) as conn:
        project_id, doc_id = new_document(conn)
        write_chunks(conn, index, project_id, doc_id, chunks(3))
        with pytest.raises(ValueError, match="1024-d embeddings for the 384-d index"):
            replace_chunks(
                conn,
                index=index,
                document_id=doc_id,
                project_id=project_id,
                chunks=chunks(2, "new"),
                embeddings=vectors(2, 1024),
                metadata={},
            )
        # and the database refuses them even if the check above were bypassed
        with pytest.raises(psycopg.errors.DataException), conn.transaction():
            conn.execute(
                "INSERT INTO chunks (index_id, document_id, project_id, position, content,"
                " content_hash, embedding) VALUES (%s, %s, %s, 99, 'x', 'x', %s)",
                (index.id, doc_id, project_id, vectors(1, 1024)[0]),
            )
        rows = conn.execute("SELECT content FROM chunks ORDER BY position").fetchall()
    assert [r[0] for r in rows] == ["chunk 0", "chunk 1", "chunk 2"]  # the old ones survive


def test_replacing_swaps_only_this_documents_chunks_in_this_index(database_url: str) -> None:
    small = prepare_database(database_url, "local:multilingual-e5-small", 384)
    large = prepare_database(database_url, "ollama:mxbai-embed-large", 1024)
    with connect(database_url) as conn:
        pid, a = new_document(conn, "a.md")
        _, b = new_document(conn, "b.md")
        for doc, index, n in ((a, small, 4), (b, small, 2), (a, large, 3)):
            write_chunks(conn, index, pid, doc, chunks(n))
        replace_chunks(
            conn,
            index=small,
            document_id=a,
            project_id=pid,
            chunks=chunks(1, "edited"),
            embeddings=vectors(1, 384),
            metadata={"title": "A"},
        )
        counts = dict(
            conn.execute(
                "SELECT d.path || '@' || c.index_id, count(*) FROM chunks c"
                " JOIN documents d ON d.id = c.document_id GROUP BY 1"
            ).fetchall()
        )
        status = conn.execute(
            "SELECT status, chunk_count, metadata->>'title' FROM documents WHERE id = %s", (a,)
        ).fetchone()
    assert counts == {f"a.md@{small.id}": 1, f"b.md@{small.id}": 2, f"a.md@{large.id}": 3}
    assert status == ("ready", 1, "A")


def _doc_chunks(texts: list[str]) -> list[Chunk]:
    return [
        Chunk(
            position=i,
            content=t,
            embed_text=t,
            structure={"heading_path": ["T"], "position_in_chapter": i},
            tokens=3,
            lang="en",
            content_hash=f"h:{t}",
        )
        for i, t in enumerate(texts)
    ]


def test_rewriting_keeps_the_rows_of_unchanged_chunks(database_url: str) -> None:
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with connect(database_url) as conn:
        pid, doc = new_document(conn)

        def write(texts: list[str]):
            new = _doc_chunks(texts)
            result = write_chunks(conn, index, pid, doc, new)
            rows = conn.execute(
                "SELECT content, id, structure->'position_in_chapter' FROM chunks"
                " WHERE document_id = %s ORDER BY position",
                (doc,),
            ).fetchall()
            assert [r[0] for r in rows] == texts  # the new chunks, in order
            assert [r[2] for r in rows] == list(range(len(texts)))
            return result, {content: row_id for content, row_id, _ in rows}

        _, first = write(["a", "b", "c", "d"])
        # one paragraph edited: only its chunk is rewritten, the others keep their ids
        result, second = write(["a", "B", "c", "d"])
        assert (result.kept, result.moved, result.inserted, result.deleted) == (3, 0, 1, 1)
        assert {k: second[k] for k in "acd"} == {k: first[k] for k in "acd"}
        assert second["B"] not in first.values()
        # a chunk inserted at the front moves the others (same rows, new positions)
        result, third = write(["x", "a", "B", "c", "d"])
        assert (result.kept, result.moved, result.inserted, result.deleted) == (0, 4, 1, 0)
        assert {k: third[k] for k in "aBcd"} == {k: second[k] for k in "aBcd"}
        # reversed: every position collides with another row's old one until the end
        result, fourth = write(["d", "c", "B", "a", "x"])
        assert (result.moved, result.inserted, result.deleted) == (4, 0, 0)
        assert fourth == third
        # repeated texts and a shorter document
        result, _ = write(["a", "a", "d"])
        assert result.total == 3 and result.deleted == 3
        (count,) = conn.execute(
            "SELECT chunk_count FROM documents WHERE id = %s", (doc,)
        ).fetchone()
        assert count == 3


def test_what_full_text_search_reads_of_a_long_chunk_stays_in_its_row(database_url: str) -> None:
    """A full-text search runs `@@` and `ts_rank` on a candidate's tsvectors some twenty times:
    they stay in the row (migration 0010), where a long chunk's text does not need to, and
    the language → configuration function is inlined into the statement, not called per row."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    rng = np.random.default_rng(3)
    letters = list("абвгдежзиклмнопрстуфхцчшэюя")
    words = ["".join(rng.choice(letters, int(rng.integers(6, 11)))) for _ in range(160)]
    content = " ".join(words)  # a long chunk's worth of distinct words: ~2.5 kB tsvectors
    chunk = dataclasses.replace(_doc_chunks([content])[0], lang="ru", lemmas=content)
    with connect(database_url) as conn:
        doc = write_new_document(conn, index, [chunk])
        tsv_out, lemma_out, tsv_size = conn.execute(
            "SELECT pg_column_toast_chunk_id(tsv) IS NOT NULL,"
            " pg_column_toast_chunk_id(lemma_tsv) IS NOT NULL, pg_column_size(tsv)"
            " FROM chunks WHERE document_id = %s",
            (doc,),
        ).fetchone()
        plan = "\n".join(
            row[0]
            for row in conn.execute(
                "EXPLAIN (VERBOSE) SELECT mirage_text_config(lang) FROM chunks"
            ).fetchall()
        )
    assert tsv_size > 2000  # long enough that PostgreSQL would have moved it out of line
    assert (tsv_out, lemma_out) == (False, False)
    assert "mirage_text_config" not in plan and "CASE" in plan


def _with_parts(texts: list[str], windows: int) -> list[Chunk]:
    return [
        dataclasses.replace(c, parts=tuple(f"{c.content} window {k}" for k in range(windows)))
        for c in _doc_chunks(texts)
    ]


def test_windows_are_written_once_per_chunk_row_and_go_with_it(database_url: str) -> None:
    """A chunk row gets its windows when it is written (or when it has none yet); a kept row
    keeps them, a deleted row takes them along."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)

    def write(conn, texts: list[str], windows: int) -> None:
        docs = _with_parts(texts, windows)
        replace_chunks(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=docs,
            embeddings=vectors(len(docs), 384),
            part_embeddings=vectors(windows * len(docs), 384, seed=1).reshape(-1, 384),
            metadata={},
        )

    def parts(conn) -> dict[str, int]:
        return dict(
            conn.execute(
                "SELECT c.content, count(p.part) FROM chunks c"
                " LEFT JOIN chunk_parts p ON p.chunk_id = c.id GROUP BY c.content"
            ).fetchall()
        )

    with connect(database_url) as conn:
        project_id, document_id = new_document(conn)
        replace_chunks(  # written without window vectors
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=_doc_chunks(["a", "b"]),
            embeddings=vectors(2, 384),
            metadata={},
        )
        assert parts(conn) == {"a": 1, "b": 1}  # each its own one window
        write(conn, ["a", "b"], 2)  # same rows: their windows replace the stand-ins
        assert parts(conn) == {"a": 2, "b": 2}
        write(conn, ["a", "c"], 2)  # b's row and its windows go, c comes with its own
        assert parts(conn) == {"a": 2, "c": 2}
        (total,) = conn.execute("SELECT count(*) FROM chunk_parts").fetchone()
        assert total == 4
        write(conn, ["a", "e"], 0)  # a chunk too short for windows is its own one window
        assert parts(conn) == {"a": 1, "e": 1}  # (a's windows follow what it is given)
        with pytest.raises(ValueError, match="window vectors"):
            replace_chunks(
                conn,
                index=index,
                document_id=document_id,
                project_id=project_id,
                chunks=_with_parts(["a", "d"], 2),
                embeddings=vectors(2, 384),
                part_embeddings=vectors(3, 384),
                metadata={},
            )


def test_an_index_of_raw_vectors_is_converted_to_its_models_form_in_place(
    database_url: str,
) -> None:
    """An index written before language centering holds raw vectors; binding the model again
    converts them (chunks and windows, each by its chunk's language) without embedding."""
    from mirage_pipeline.embedders.centering import FORM, center_passages

    model = "local:multilingual-e5-small"
    index = prepare_database(database_url, model, 384)
    assert index.vector_form == FORM
    raw, raw_parts = vectors(2, 384), vectors(4, 384, seed=1)
    docs = [
        dataclasses.replace(c, lang=lang)
        for c, lang in zip(_with_parts(["a", "b"], 2), ["ru", "en"], strict=True)
    ]
    with connect(database_url) as conn:
        conn.execute("UPDATE embedding_indexes SET vector_form = NULL")
        conn.commit()
        project_id, document_id = new_document(conn)
        replace_chunks(
            conn,
            index=dataclasses.replace(index, vector_form=None),
            document_id=document_id,
            project_id=project_id,
            chunks=docs,
            embeddings=raw,
            part_embeddings=raw_parts,
            metadata={},
        )
    again = prepare_database(database_url, model, 384)
    assert again.vector_form == FORM
    with connect(database_url) as conn:
        stored = conn.execute("SELECT embedding FROM chunks ORDER BY position").fetchall()
        parts = conn.execute(
            "SELECT p.embedding FROM chunk_parts p JOIN chunks c ON c.id = p.chunk_id"
            " ORDER BY c.position, p.part"
        ).fetchall()
    expected = center_passages(raw, ["ru", "en"], model, FORM)
    assert np.allclose([r[0].to_numpy() for r in stored], expected, atol=1e-5)
    expected_parts = center_passages(raw_parts, ["ru", "ru", "en", "en"], model, FORM)
    assert np.allclose([r[0].to_numpy() for r in parts], expected_parts, atol=2e-3)


def test_a_write_that_fails_a_check_is_rolled_back_and_the_old_rows_stay(database_url: str):
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with connect(database_url) as conn:
        pid, doc = new_document(conn)
        good = replace_chunks(
            conn,
            index=index,
            document_id=doc,
            project_id=pid,
            chunks=chunks(3, "good"),
            embeddings=vectors(3, 384),
            metadata={"title": "Good"},
            checked_window=512,
        )
        assert good.checks and all(passed for passed, _ in good.checks.values())
        too_long = [dataclasses.replace(c, tokens=900) for c in chunks(2, "long")]
        with pytest.raises(ChecksFailed) as failed:
            replace_chunks(
                conn,
                index=index,
                document_id=doc,
                project_id=pid,
                chunks=too_long,
                embeddings=vectors(2, 384, seed=1),
                metadata={"title": "Long"},
                checked_window=512,
            )
        assert "no_chunk_over_window (max_tokens 900, window 512)" in str(failed.value)
        assert "previous version of the document stays searchable" in str(failed.value)
        contents = [r[0] for r in conn.execute("SELECT content FROM chunks ORDER BY position")]
        title = conn.execute("SELECT metadata->>'title' FROM documents").fetchone()[0]
    assert contents == ["good 0", "good 1", "good 2"] and title == "Good"


def test_a_swap_written_piece_by_piece_is_seen_whole_or_not_at_all(database_url: str) -> None:
    """Rows copied in as vectors arrive stay invisible to search until the swap commits; an
    abandoned swap, or one missing vectors, leaves the previous rows as they were."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    new = _with_parts(["kept", "b", "c", "d", "e"], 2)
    embeddings, windows = vectors(5, 384), vectors(10, 384, seed=1)

    def swap(conn) -> DocumentSwap:
        return DocumentSwap(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=new,
            metadata={"title": "New"},
            checked_window=512,
        )

    def seen() -> dict[str, int]:  # what another session (the query service) reads
        with connect(database_url) as reader:
            return dict(
                reader.execute(
                    "SELECT c.content, count(p.part) FROM chunks c"
                    " LEFT JOIN chunk_parts p ON p.chunk_id = c.id GROUP BY c.content"
                ).fetchall()
            )

    with connect(database_url) as conn:
        project_id, document_id = new_document(conn)
        old = _with_parts(["kept", "old"], 2)
        replace_chunks(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=old,
            embeddings=vectors(2, 384, seed=2),
            part_embeddings=vectors(4, 384, seed=3),
            metadata={"title": "Old"},
        )
        before = seen()
        assert before == {"kept": 2, "old": 2}

        with pytest.raises(RuntimeError, match="embedder went away"), swap(conn) as pieces:
            pieces.add([1, 2], embeddings[1:3], windows[2:6])
            raise RuntimeError("the embedder went away")
        assert seen() == before
        with pytest.raises(ValueError, match="3 of 5 chunks got no vectors"), swap(conn) as pieces:
            pieces.add([0, 4], embeddings[[0, 4]], windows[[0, 1, 8, 9]])
        assert seen() == before

        with swap(conn) as pieces:
            assert pieces.add([0, 1], embeddings[:2], windows[:4]) == 1  # "kept" stays
            assert pieces.add([2, 3], embeddings[2:4], windows[4:8]) == 2
            assert seen() == before  # written, not yet visible
            pieces.add([4], embeddings[4:], windows[8:])
        assert seen() == {"kept": 2, "b": 2, "c": 2, "d": 2, "e": 2}
        assert pieces.result is not None
        assert (pieces.result.kept, pieces.result.inserted, pieces.result.deleted) == (1, 4, 1)
        assert all(passed for passed, _ in pieces.result.checks.values())
        stored = conn.execute(
            "SELECT p.embedding FROM chunk_parts p JOIN chunks c ON c.id = p.chunk_id"
            " WHERE c.content = 'd' ORDER BY p.part"
        ).fetchall()
    expected = stored_vectors(index, windows[6:8], ["en", "en"])
    assert np.allclose([r[0].to_numpy() for r in stored], expected, atol=2e-3)


@contextmanager
def _swap_under_way(database_url: str, index: EmbeddingIndex) -> Iterator[uuid.UUID]:
    """A swap of a two-chunk document whose first chunk's rows are in, not committed (its rows
    hold the project's row FOR KEY SHARE and the tables' ROW EXCLUSIVE locks); yields the
    project's id, then writes the second chunk and commits."""
    with connect(database_url) as conn:
        project_id, document_id = new_document(conn)
        conn.commit()
        with DocumentSwap(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=_with_parts(["a", "b"], 2),
            metadata={},
            checked_window=512,
        ) as swap:
            swap.add([0], vectors(1, 384), vectors(2, 384, seed=1))
            yield project_id
            swap.add([1], vectors(1, 384, seed=2), vectors(2, 384, seed=3))


def test_a_document_starts_while_another_of_its_project_is_being_swapped_in(
    database_url: str,
) -> None:
    """An open swap's chunk rows hold their project's row FOR KEY SHARE until it commits;
    starting another document of the project must not wait for that (two batched runs would
    take turns document by document)."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with _swap_under_way(database_url, index) as project_id, connect(database_url) as other:
        other.execute("SET lock_timeout = '2s'")
        assert new_document(other, "b.md")[0] == project_id
        assert new_document(other, "a.md")[0] == project_id  # the one being swapped


def test_a_process_binds_the_index_while_another_writes_chunks(database_url: str) -> None:
    """Binding the model's index (every run does it at start) must not wait for an open swap:
    `CREATE INDEX IF NOT EXISTS` on an existing index would, for the table's SHARE lock."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    with _swap_under_way(database_url, index), connect(database_url) as other:
        other.execute("SET lock_timeout = '2s'")
        assert bind_embedding_index(other, "local:multilingual-e5-small", 384) == index


def test_a_search_never_reads_more_than_a_short_pending_list_of_new_index_entries(
    database_url: str,
) -> None:
    """New chunks' full-text entries wait in each GIN index's pending list until it is merged
    into the index, and every search reads that list whole: the writes merge it once it holds
    256 kB (migration 0012), not PostgreSQL's default 4 MB."""
    index = prepare_database(database_url, "local:multilingual-e5-small", 384)
    rng = np.random.default_rng(5)
    letters = list("абвгдежзиклмнопрстуфхцчшэюя")
    texts = [" ".join("".join(rng.choice(letters, 8)) for _ in range(120)) for _ in range(400)]
    chunks = [dataclasses.replace(c, lang="ru", lemmas=c.content) for c in _doc_chunks(texts)]
    with connect(database_url) as conn:
        write_new_document(conn, index, chunks)
        written = conn.execute(
            "SELECT sum(pg_column_size(tsv) + pg_column_size(lemma_tsv)) FROM chunks"
        ).fetchone()[0]
        pending = conn.execute(
            "SELECT gin_clean_pending_list('chunks_tsv_idx'::regclass),"
            " gin_clean_pending_list('chunks_lemma_tsv_idx'::regclass)"
        ).fetchone()
    assert written > 2 * 1024 * 1024  # more new entries than either list would hold
    assert all(pages <= 256 // 8 + 1 for pages in pending), pending  # 8 kB pages
