"""How common each lexeme of the index is: the full-text leg's weights and candidate rules.

A question's words are not equally telling: "use" or "это" occur in a large share of the index,
a command name or a rare noun in a handful of chunks. The full-text leg scores a chunk as the
sum, over the query's lexemes it holds, of the lexeme's inverse document frequency times its
(saturating, length-normalised) `ts_rank` — BM25's shape, on PostgreSQL's own ranking. The
frequencies come from PostgreSQL's statistics of the chunk `tsvector`s
(`pg_stats.most_common_elems`, kept by ANALYZE and autovacuum); a lexeme not listed there is
rarer than the rarest listed one. A lexeme in at least `MIN_ROWS` chunks is "common": it still
scores, but does not pick candidates by itself (ranking the tens of thousands of chunks that
hold it is what makes a full-text leg slow).

The statistics cover the whole table (every project). They are read again when the pipeline
has refreshed them (`index_statistics.generation` moved: it runs ANALYZE in the transaction that
makes a document `ready`, mirage_pipeline/store/statistics.py), and every `ttl` seconds for what
autovacuum refreshes on its own.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from psycopg import AsyncConnection

MIN_ROWS = 1000
TTL_SECONDS = 300.0
COLUMNS = ("tsv", "lemma_tsv")

_STATS_SQL = """
SELECT s.attname, greatest(t.reltuples, 0), s.most_common_elems::text::text[],
       s.most_common_elem_freqs
FROM pg_stats s
JOIN pg_class t ON t.relname = s.tablename
JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = s.schemaname
WHERE s.schemaname = current_schema() AND s.tablename = 'chunks'
  AND s.attname = ANY(%(columns)s)
"""
# The text-search configurations of the languages the index holds (pg_stats of `lang`).
_CONFIGS_SQL = """
SELECT DISTINCT mirage_text_config(v.lang)::text
FROM pg_stats s CROSS JOIN LATERAL unnest(s.most_common_vals::text::text[]) AS v(lang)
WHERE s.schemaname = current_schema() AND s.tablename = 'chunks' AND s.attname = 'lang'
"""
# Russian text is `mirage_russian`: `russian` keeping its Latin words (migration 0011).
RUSSIAN_CONFIG = "mirage_russian"
BASE_CONFIGS = ("english", RUSSIAN_CONFIG, "simple")
_GENERATION_SQL = "SELECT generation FROM index_statistics"
# Each of `texts` as the lexemes of configuration `cfg`, with its number in `words` (what a
# question's word and its translations or equivalents are, as the index holds them).
TEXT_LEXEMES = """
SELECT t.word, tsvector_to_array(to_tsvector(%(cfg)s::regconfig, t.text))
FROM unnest(%(texts)s::text[], %(words)s::int[]) AS t(text, word)
"""


def quoted(lexeme: str) -> str:
    """A lexeme as tsquery input: quoted, quotes doubled, backslashes escaped."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass(frozen=True)
class TermStats:
    """Document frequencies of one `tsvector` column, as shares of its rows."""

    rows: float = 0.0
    shares: dict[str, float] = field(default_factory=dict)
    floor: float = 0.0  # the smallest listed share: anything unlisted is rarer
    min_rows: int = MIN_ROWS  # in this many chunks or more, a lexeme is common

    def share(self, lexeme: str) -> float:
        found = self.shares.get(lexeme)
        return found if found is not None else self.floor / 2

    def idf(self, lexeme: str) -> float:
        """BM25's inverse document frequency (never below zero)."""
        return self.idf_of_share(self.share(lexeme))

    def idf_of_share(self, share: float) -> float:
        """The idf of a term in `share` of the rows."""
        n = max(self.rows, 1.0)
        df = share * n
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def is_common(self, lexeme: str) -> bool:
        return self.is_common_share(self.share(lexeme))

    def is_common_share(self, share: float) -> bool:
        """Whether a term in `share` of the rows (an OR of lexemes: their shares summed) is
        common: it still scores, but picks no candidates by itself."""
        return share * self.rows >= self.min_rows


@dataclass(frozen=True)
class IndexStats:
    """What the search statement needs to know about the index as a whole."""

    terms: dict[str, TermStats] = field(default_factory=dict)  # column → its statistics
    configs: tuple[str, ...] = BASE_CONFIGS

    def column(self, name: str) -> TermStats:
        return self.terms.get(name) or TermStats()


class IndexStatsCache:
    """The index's statistics, read again when the pipeline refreshed them and every `ttl`
    seconds (a search first reads their one-row generation: a primary-key lookup)."""

    def __init__(self, ttl: float = TTL_SECONDS, min_rows: int = MIN_ROWS) -> None:
        self.ttl = ttl
        self.min_rows = min_rows
        self._stats = IndexStats()
        self._read_at = float("-inf")
        self._generation: int | None = None

    async def current(self, conn: AsyncConnection) -> IndexStats:
        cur = await conn.execute(_GENERATION_SQL)
        row = await cur.fetchone()
        generation = None if row is None else int(row[0])
        if generation != self._generation or time.monotonic() - self._read_at >= self.ttl:
            self._stats = await read_index_stats(conn, self.min_rows)
            self._read_at = time.monotonic()
            self._generation = generation
        return self._stats


async def read_index_stats(conn: AsyncConnection, min_rows: int = MIN_ROWS) -> IndexStats:
    cur = await conn.execute(_STATS_SQL, {"columns": list(COLUMNS)})
    terms = {}
    for column, rows, lexemes, freqs in await cur.fetchall():
        lexemes, freqs = lexemes or [], freqs or []
        shares = dict(zip(lexemes, freqs, strict=False))
        # after the per-lexeme frequencies: the minimum, the maximum and the null frequency
        floor = freqs[len(lexemes)] if len(freqs) > len(lexemes) else 0.0
        terms[column] = TermStats(float(rows), shares, float(floor), min_rows)
    cur = await conn.execute(_CONFIGS_SQL)
    configs = {row[0] for row in await cur.fetchall()} | set(BASE_CONFIGS)
    return IndexStats(terms=terms, configs=tuple(sorted(configs)))
