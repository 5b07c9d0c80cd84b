"""The full-text leg's word weights follow the index as soon as a document is `ready`: its swap
refreshes the planner statistics (store/statistics.py) and the query service reads them again
when their generation moves (mirage_query/term_stats.py), not minutes later."""

from __future__ import annotations

import psycopg

from mirage_pipeline.store.connections import connect
from mirage_pipeline.store.statistics import STALE_ROWS, statistics_stale
from mirage_query.term_stats import IndexStatsCache
from tests.support.seed import Passage, write_document


def _state(url: str) -> tuple[bool, int]:
    with psycopg.connect(url) as conn:
        analyzed = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE tablename = 'chunks'"
            " AND attname = 'tsv' AND most_common_elems IS NOT NULL)"
        ).fetchone()[0]
        generation = conn.execute("SELECT generation FROM index_statistics").fetchone()[0]
    return analyzed, generation


def _notes(word: str, count: int) -> list[Passage]:
    return [
        Passage(f"Note {i}: the {word} crossed field number {i} before noon.", f"Note {i}")
        for i in range(count)
    ]


def test_the_first_document_is_ready_with_statistics(database_url, local_embedder):
    assert _state(database_url) == (False, 0)
    write_document(database_url, local_embedder, "p", "a.md", _notes("heron", 3))
    # autovacuum would take up to a minute; the swap analyzed before it committed
    assert _state(database_url) == (True, 1)


def test_a_small_change_to_an_analyzed_table_is_not_analyzed_again(database_url, local_embedder):
    write_document(database_url, local_embedder, "p", "a.md", _notes("heron", 3))
    with connect(database_url) as conn:
        assert not statistics_stale(conn, 1)
        assert not statistics_stale(conn, 0)
        assert statistics_stale(conn, STALE_ROWS + 1)
    write_document(database_url, local_embedder, "p", "b.md", _notes("otter", 2))
    assert _state(database_url) == (True, 1)


async def test_the_service_reads_new_statistics_at_once(database_url, local_embedder):
    write_document(database_url, local_embedder, "p", "a.md", _notes("heron", 3))
    cache = IndexStatsCache(ttl=300)  # the service's: minutes between plain re-reads
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        before = (await cache.current(conn)).column("tsv")
        assert before.rows == 3
        write_document(database_url, local_embedder, "p", "b.md", _notes("zebra", STALE_ROWS + 5))
        after = (await cache.current(conn)).column("tsv")
    assert after.rows == 3 + STALE_ROWS + 5
    assert after.share("zebra") > 0.9  # in every note of b.md: weighs next to nothing now
    assert after.idf("zebra") < before.idf("zebra")
