"""Lexemes too common to select full-text candidates by themselves.

A question's common words ("use", "file", "это") occur in a large share of a big index; a
chunk that matches only such a word is not a text hit worth ranking, and ranking the tens of
thousands that do is what makes a full-text leg slow. PostgreSQL's own statistics of the
chunk `tsvector` (`pg_stats.most_common_elems`, kept by ANALYZE/autovacuum) say which lexemes
these are; the search statement leaves them out when it picks candidates (they still count in
the ranking). Small indexes have none: a lexeme is common only when it is in at least
`MIN_ROWS` chunks.
"""

from __future__ import annotations

import time

from psycopg import AsyncConnection

MIN_ROWS = 1000
TTL_SECONDS = 300.0

_SQL = """
SELECT e.lexeme
FROM pg_stats s
JOIN pg_class t ON t.relname = s.tablename
JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = s.schemaname
CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs)
    AS e(lexeme, freq)
WHERE s.schemaname = current_schema() AND s.tablename = 'chunks' AND s.attname = 'tsv'
  AND e.lexeme IS NOT NULL AND e.freq * greatest(t.reltuples, 0) >= %(min_rows)s
"""


class CommonTerms:
    """The common lexemes of the chunk table, read again every `ttl` seconds."""

    def __init__(self, ttl: float = TTL_SECONDS, min_rows: int = MIN_ROWS) -> None:
        self.ttl = ttl
        self.min_rows = min_rows
        self._lexemes: list[str] = []
        self._read_at = float("-inf")

    async def current(self, conn: AsyncConnection) -> list[str]:
        if time.monotonic() - self._read_at >= self.ttl:
            cur = await conn.execute(_SQL, {"min_rows": self.min_rows})
            self._lexemes = sorted(row[0] for row in await cur.fetchall())
            self._read_at = time.monotonic()
        return self._lexemes
