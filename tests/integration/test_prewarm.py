"""The service's page cache prewarm (mirage_query/prewarm.py) on the embedded server."""

from __future__ import annotations

import psycopg
import pytest

from mirage_query.prewarm import prewarm
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration


def _sizes(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')"
        ).fetchall()
    return dict(rows)


def test_the_index_files_are_read_hnsw_graphs_first_within_the_budget(
    database_url, local_embedder
) -> None:
    passages = [
        Passage(f"Passage {i} about topic {i % 7} and its details.", "S") for i in range(40)
    ]
    write_document(database_url, local_embedder, "p", "a.md", passages)
    sizes = _sizes(database_url)
    result = prewarm(database_url)
    assert result is not None
    assert result.bytes_read == sum(sizes[name] for name in result.relations) > 0
    assert {"chunks", "chunk_parts", "documents"} <= set(result.relations)
    graphs = [name for name in result.relations if name.endswith("_hnsw")]
    assert graphs and result.relations[: len(graphs)] == graphs  # the graphs come first
    assert "chunks_tsv_idx" in result.relations
    assert result.relations.index("chunks_tsv_idx") < result.relations.index("chunks")

    assert prewarm(database_url, budget=0).relations == []
    smallest = min(sizes[name] for name in result.relations)
    only = prewarm(database_url, budget=smallest)
    assert only.bytes_read <= smallest and len(only.relations) >= 1


def test_a_server_whose_files_are_elsewhere_is_left_alone(database_url, monkeypatch) -> None:
    import mirage_query.prewarm as module

    monkeypatch.setattr(
        module,
        "_RELATIONS",
        module._RELATIONS.replace("current_setting('data_directory')", "'/nonexistent/pgdata'"),
    )
    assert prewarm(database_url) is None
