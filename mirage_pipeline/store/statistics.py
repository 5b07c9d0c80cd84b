"""The planner statistics of `chunks`, refreshed in the transaction that makes a document `ready`.

The query service weighs a question's words by how common they are in the index, which it reads
from PostgreSQL's statistics of the chunks' `tsvector`s (`pg_stats`, mirage_query/term_stats.py).
Autovacuum refreshes them up to a minute after a change, so a book searched as soon as it turned
`ready` was ranked with the statistics of the index before it — for a new index none at all,
every word weighing alike. Measured on the dev eval indexed through `mirage up` and asked at
once: 15 of 253 hybrid ranks differed from the same index analyzed (recall@10 0.929 → 0.921).

So a document's swap runs ANALYZE itself, before it commits, when the table has no statistics
yet or when what changed since the last ANALYZE (with this document's rows) passes autovacuum's
own threshold — 50 rows and 10 % of the table: a small note added to a large index costs
nothing. ANALYZE sees the transaction's own rows, and its statistics become visible with them,
at the commit; `index_statistics.generation` moves in the same transaction, which tells the
query service to read them again. ANALYZE keeps its lock on `chunks` until that commit: another
swap's ANALYZE waits for it (writes and searches do not).
"""

from __future__ import annotations

import psycopg

STALE_ROWS = 50  # autovacuum_analyze_threshold's default
STALE_SHARE = 0.1  # autovacuum_analyze_scale_factor's default

_STATE_SQL = """
SELECT coalesce(s.n_live_tup, 0), coalesce(s.n_mod_since_analyze, 0),
       EXISTS (SELECT 1 FROM pg_stats p WHERE p.schemaname = current_schema()
               AND p.tablename = 'chunks' AND p.attname = 'tsv')
FROM (SELECT 1) one
LEFT JOIN pg_stat_user_tables s ON s.relid = 'chunks'::regclass
"""


def statistics_stale(conn: psycopg.Connection, changed: int) -> bool:
    """Whether `chunks`' statistics are stale once `changed` more rows (this transaction's
    inserts and deletes, which the server's counters do not show yet) are in."""
    if changed <= 0:
        return False
    live, modified, analyzed = conn.execute(_STATE_SQL).fetchone()
    return not analyzed or modified + changed > STALE_ROWS + STALE_SHARE * live


def refresh_statistics(conn: psycopg.Connection, changed: int) -> bool:
    """ANALYZE `chunks` inside the caller's transaction if its statistics are stale (see the
    module's docstring); True if it did."""
    if not statistics_stale(conn, changed):
        return False
    conn.execute("ANALYZE chunks")
    conn.execute("UPDATE index_statistics SET generation = generation + 1, analyzed_at = now()")
    return True
