"""Running a search: its full-text and vector legs (one statement each, search_sql.py), their
fusion with the best candidates' rows, and neighbours on request. The search route runs the
legs side by side on two connections (search_api.py); anything else runs them in turn."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from uuid import UUID

import numpy as np
from psycopg import AsyncConnection, sql

from mirage_pipeline.chunk_parts import chunk_parts
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.gloss import gloss_for, glossed_candidates
from mirage_query.schemas import DocumentRef, Scores, SearchResult
from mirage_query.search import (
    FRAGMENT_DELIMITER,
    SearchPlan,
    clean_query,
    query_terms,
    scanned_rows,
    search_params,
)
from mirage_query.search_sql import (
    TAG_MARK,
    TEXT_COLUMNS,
    VECTOR_COLUMNS,
    build_fusion_sql,
    build_leg_sql,
)
from mirage_query.term_stats import IndexStats
from mirage_query.translation import Dictionary

_NEIGHBOURS = sql.SQL("""
SELECT h.id, c.id, c.position - h.position, c.content, c.structure,
       d.id, d.path, d.metadata ->> 'title'
FROM chunks h
JOIN chunks c ON c.document_id = h.document_id AND c.index_id = h.index_id
             AND c.position BETWEEN h.position - %(n)s AND h.position + %(n)s
             AND c.position <> h.position
             AND coalesce(c.structure -> 'heading_path', c.structure -> 'section')
                 IS NOT DISTINCT FROM
                 coalesce(h.structure -> 'heading_path', h.structure -> 'section')
JOIN documents d ON d.id = c.document_id
WHERE h.id = ANY(%(ids)s) AND h.project_id = %(project_id)s AND c.index_id = {index_id}
ORDER BY h.id, c.position
""")


def _array(values: Sequence[int | float | UUID | None]) -> str:
    """An array literal of numbers or UUIDs (cast in the statement): psycopg's list dumper
    checks each element's type and escaping, ~2 ms of the service's CPU for a fusion's 240.
    What the legs' rows hold and nothing else: a NULL stays NULL (not "None")."""
    return "{" + ",".join("NULL" if v is None else str(v) for v in values) + "}"


_BOLD = re.compile(r"<b>(.*?)</b>", re.S)


def _highlights(
    headline: str | None,
    content: str,
    part: int | None,
    vector_rank: int | None,
    text_rank: int | None,
) -> list[str]:
    """Up to two fragments with the query's words in <b>. A passage the vector leg ranks above
    the full-text leg is shown first by the sentence window that matched it best (its number
    among the chunk's windows: chunk_parts.py), the words the full-text leg highlighted in bold
    there too; found by meaning alone, by that window alone."""
    fragments = [
        f.strip().replace(TAG_MARK, "<")
        for f in (headline or "").split(FRAGMENT_DELIMITER)
        if "<b>" in f
    ]
    if part is None:
        return fragments
    if fragments and text_rank is not None and (vector_rank is None or text_rank <= vector_rank):
        return fragments
    windows = chunk_parts(content)  # cut only for a hit that shows its window
    if part >= len(windows):  # a chunk that is its own one window
        return fragments
    words = {w for f in fragments for w in _BOLD.findall(f)}
    window = windows[part]
    if words:
        alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        window = re.sub(rf"(?<!\w)({alternatives})(?!\w)", r"<b>\1</b>", window, flags=re.I)
    return [window, *fragments[:1]]


async def vector_candidates(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    query_vector: np.ndarray,
) -> list[tuple]:
    """The vector leg's candidates (VECTOR_COLUMNS), best first."""
    statement, params = build_leg_sql(index, "vector", plan.filters)
    params |= search_params(project_id, plan, query_vector)
    return await scanned_rows(conn, statement, params)


async def text_candidates(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    stats: IndexStats | None = None,
    dictionary: Dictionary | None = None,
) -> list[tuple]:
    """The full-text leg's candidates (TEXT_COLUMNS), best first.

    `stats`: the index's term statistics (IndexStatsCache); `dictionary`: translates the
    question's words (translation.py)."""
    stats = stats or IndexStats()
    terms = await query_terms(conn, clean_query(plan.query), stats, dictionary)
    statement, params = build_leg_sql(
        index, "text", plan.filters, strict=plan.strict, configs=stats.configs
    )
    params |= search_params(project_id, plan, None, terms)
    return await (await conn.execute(statement, params)).fetchall()


async def fused_results(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    query_vector: np.ndarray | None,
    vector_rows: list[tuple],
    text_rows: list[tuple],
) -> list[SearchResult]:
    """The best of the legs' candidates for `plan`, best first, with neighbours if asked."""
    params = search_params(project_id, plan, query_vector)
    for names, rows in ((VECTOR_COLUMNS, vector_rows), (TEXT_COLUMNS, text_rows)):
        columns = list(zip(*rows, strict=True)) or [()] * len(names)
        params |= {name: _array(column) for name, column in zip(names, columns, strict=True)}
    statement = build_fusion_sql(index, plan.mode, plan.fusion)
    rows = await (await conn.execute(statement, params)).fetchall()
    hits = [
        SearchResult(
            chunk_id=row[0],
            content=row[1],
            score=round(float(row[2]), 8),
            scores=Scores(
                vector=None if row[3] is None else round(float(row[3]), 8),
                text=None if row[4] is None else round(float(row[4]), 8),
                vector_rank=row[5],
                text_rank=row[6],
            ),
            structure=row[7],
            highlights=_highlights(row[8], row[1], row[12], row[5], row[6]),
            document=DocumentRef(id=str(row[9]), filename=row[10], title=row[11]),
        )
        for row in rows
    ]
    if plan.expand and hits:
        return await _with_neighbours(conn, index, project_id, hits, plan.expand)
    return hits


async def search_hybrid(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    query_vector: np.ndarray | None,
    stats: IndexStats | None = None,
    dictionary: Dictionary | None = None,
    embed: Callable[[str], Awaitable[np.ndarray]] | None = None,
) -> list[SearchResult]:
    """The best chunks of one project for `plan`, best first, with neighbours if asked: its
    legs one after the other on one connection (search_api.py runs them side by side).

    `stats`: the index's term statistics (IndexStatsCache), for the full-text leg;
    `dictionary`: translates the question's words for it (translation.py); `embed`: a text's
    query vector, for the question's gloss across languages (gloss.py)."""
    vector_rows: list[tuple] = []
    text_rows: list[tuple] = []
    if plan.mode != "text" and query_vector is not None:
        vector_rows = await vector_candidates(conn, index, project_id, plan, query_vector)
    if plan.mode != "vector":
        text_rows = await text_candidates(conn, index, project_id, plan, stats, dictionary)
    if embed is not None and query_vector is not None:
        gloss = await gloss_for(conn, plan, text_rows, dictionary)
        if gloss is not None:
            vector = await embed(gloss.text)
            vector_rows = await glossed_candidates(
                conn, index, project_id, plan, query_vector, gloss, vector, vector_rows
            )
    return await fused_results(conn, index, project_id, plan, query_vector, vector_rows, text_rows)


async def _with_neighbours(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    hits: list[SearchResult],
    n: int,
) -> list[SearchResult]:
    """Each hit with up to `n` chunks of its section before and after it, marked as context."""
    query = _NEIGHBOURS.format(index_id=sql.Literal(index.id))
    cur = await conn.execute(
        query, {"ids": [h.chunk_id for h in hits], "project_id": project_id, "n": n}
    )
    around: dict[int, list[tuple[int, SearchResult]]] = {}
    for hit_id, chunk_id, offset, content, structure, doc_id, path, title in await cur.fetchall():
        neighbour = SearchResult(
            chunk_id=chunk_id,
            content=content,
            score=0.0,
            scores=Scores(),
            structure=structure,
            highlights=[],
            document=DocumentRef(id=str(doc_id), filename=path, title=title),
            context=True,
            context_for=hit_id,
        )
        around.setdefault(hit_id, []).append((offset, neighbour))
    seen = {h.chunk_id for h in hits}
    out: list[SearchResult] = []
    for hit in hits:
        neighbours = [(o, c) for o, c in around.get(hit.chunk_id, []) if c.chunk_id not in seen]
        seen.update(c.chunk_id for _, c in neighbours)
        out.extend(c for o, c in neighbours if o < 0)
        out.append(hit)
        out.extend(c for o, c in neighbours if o > 0)
    return out
