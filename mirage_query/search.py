"""The search SQL, shared by the HTTP handlers and anything else that searches.

Hybrid search is one statement: vector candidates from the model's partial HNSW index, full-text
candidates from the chunk `tsvector` in the chunk's own language configuration, fused with
weighted Reciprocal Rank Fusion (score = Σ weight / (k + rank)).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import numpy as np
from psycopg import AsyncConnection, sql

from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.schemas import DocumentRef, Filters, Scores, SearchResult

DEFAULT_RRF_K = 60
EF_SEARCH = 350  # HNSW search list: ANN recall@10 0.98+ at 100 000 chunks (bench/search_latency.py)
# The full-text leg counts half as much as the vector leg in the fusion: chosen on the tuning
# half of eval/questions.json, it also wins on the held-out half (notes: /work/notes/issue-5.md).
DEFAULT_TEXT_WEIGHT = 0.5
# Full-text candidates are pre-ranked with ts_rank (term frequencies, ~2 µs a chunk) and only
# the best TEXT_POOL of them with ts_rank_cd (cover density, ~25 µs a chunk): a query whose
# terms occur in thousands of chunks costs milliseconds, not a tenth of a second.
TEXT_POOL = 100
HEADLINE_OPTIONS = "MaxFragments=2, MaxWords=24, MinWords=8, FragmentDelimiter=\x1e"
_FRAGMENT_DELIMITER = "\x1e"
# websearch syntax the user meant: "phrases", -exclusions, or OR; then the query is taken as is.
_STRICT_SYNTAX = re.compile(r'"|(^|\s)-\w|\sor\s', re.IGNORECASE)

# The index id and dimension are literals, not parameters: the planner must see
# `index_id = <id>` and `embedding::vector(<d>)` to use that model's partial HNSW index.
_VECTOR_SEARCH = sql.SQL("""
SELECT c.id, c.content, 1 - (c.embedding::{vtype} <=> %(q)s::{vtype}) AS score, c.structure,
       d.id, d.path, d.metadata ->> 'title'
FROM chunks c
JOIN documents d ON d.id = c.document_id
WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s
ORDER BY c.embedding::{vtype} <=> %(q)s::{vtype}
LIMIT %(limit)s
""")

_VECTOR_LEG = """
vec AS (
    SELECT id, 1 - dist AS similarity, row_number() OVER (ORDER BY dist, id) AS rank FROM (
        SELECT c.id, c.embedding::{vtype} <=> %(q)s::{vtype} AS dist
        FROM chunks c
        WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
        ORDER BY c.embedding::{vtype} <=> %(q)s::{vtype}
        LIMIT %(candidates)s
    ) v
)"""

# Full-text candidates are the chunks holding any of the query's informative lexemes (those
# not in `common`, see common_terms.py), or, when every lexeme is common, all of them; they
# are ranked with every lexeme of the query. A query in websearch syntax ("phrase", -word, or)
# picks exactly the chunks that match it. A lexeme is quoted for tsquery input: quotes and
# backslashes doubled/escaped.
_TEXT_LEG = """
lexemes AS (
    SELECT v.cfg, l.lexeme
    FROM (VALUES ('russian'), ('english'), ('simple')) AS v(cfg)
    CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector(v.cfg::regconfig, %(text)s)))
        AS l(lexeme)
    WHERE NOT l.lexeme = ANY(%(common)s::text[])
),
rare AS MATERIALIZED (
    SELECT cfg, string_agg(
        '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''',
        ' | ')::tsquery AS q
    FROM lexemes GROUP BY cfg
),
txt AS (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank FROM (
        SELECT p.id, ts_rank_cd(p.tsv, CASE p.lang WHEN 'ru' THEN {q_ru} WHEN 'en' THEN {q_en}
                                                   ELSE {q_simple} END) AS score
        FROM (
            SELECT c.id, c.tsv, c.lang
            FROM chunks c
            WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
              AND ((c.lang = 'ru' AND c.tsv @@ {pick_ru})
                   OR (c.lang = 'en' AND c.tsv @@ {pick_en})
                   OR (c.lang NOT IN ('ru', 'en') AND c.tsv @@ {pick_simple}))
            ORDER BY ts_rank(c.tsv, CASE c.lang WHEN 'ru' THEN {q_ru} WHEN 'en' THEN {q_en}
                                                ELSE {q_simple} END) DESC
            LIMIT %(text_pool)s
        ) p
        ORDER BY score DESC
        LIMIT %(candidates)s
    ) t
)"""

_FUSED = {
    "hybrid": """
fused AS (
    SELECT coalesce(v.id, t.id) AS id, v.similarity, v.rank AS vector_rank, t.rank AS text_rank,
           t.score AS text_score,
           coalesce(%(wv)s / (%(k)s + v.rank), 0) + coalesce(%(wt)s / (%(k)s + t.rank), 0) AS rrf
    FROM vec v FULL JOIN txt t ON t.id = v.id
)""",
    "vector": """
fused AS (
    SELECT id, similarity, rank AS vector_rank, NULL::bigint AS text_rank,
           NULL::real AS text_score, 1.0 / (%(k)s + rank) AS rrf
    FROM vec
)""",
    "text": """
fused AS (
    SELECT id, NULL::float8 AS similarity, NULL::bigint AS vector_rank, rank AS text_rank,
           score AS text_score, 1.0 / (%(k)s + rank) AS rrf
    FROM txt
)""",
}

# The best `limit` candidates are chosen from ids, scores and vectors alone (a full-text-only
# candidate gets its similarity here, for the threshold); content is read, and highlighted,
# for those few rows only.
_FINAL = """,
ranked AS (
    SELECT f.id, f.vector_rank, f.text_rank, f.text_score, f.rrf, {similarity} AS similarity
    FROM fused f
    JOIN chunks c ON c.id = f.id
),
top AS (
    SELECT * FROM ranked r
    WHERE {threshold}
    ORDER BY {score} DESC, r.id
    LIMIT %(limit)s
)
SELECT c.id, c.content, {score} AS score, r.similarity, r.text_score,
       r.vector_rank, r.text_rank, c.structure,
       CASE WHEN r.text_rank IS NULL THEN NULL ELSE
           ts_headline(CASE c.lang WHEN 'ru' THEN 'russian'::regconfig
                                   WHEN 'en' THEN 'english'::regconfig
                                   ELSE 'simple'::regconfig END,
                       c.content,
                       CASE c.lang WHEN 'ru' THEN {q_ru} WHEN 'en' THEN {q_en}
                                   ELSE {q_simple} END,
                       %(headline)s) END AS headline,
       d.id, d.path, d.metadata ->> 'title'
FROM top r
JOIN chunks c ON c.id = r.id
JOIN documents d ON d.id = c.document_id
ORDER BY {score} DESC, r.id
"""

_FILTERS = {
    "documents": " AND c.document_id IN (SELECT id FROM documents WHERE project_id ="
    " %(project_id)s AND (id::text = ANY(%(f_documents)s) OR path = ANY(%(f_documents)s)))",
    "file_types": " AND c.document_id IN (SELECT id FROM documents WHERE project_id ="
    " %(project_id)s AND file_type = ANY(%(f_file_types)s))",
    "tags": " AND (c.metadata -> 'tags') ?| %(f_tags)s",
    "types": " AND (c.metadata ->> 'type') = ANY(%(f_types)s)",
}

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


@dataclass(frozen=True)
class SearchPlan:
    """What one search asks for, after the request was validated."""

    query: str
    limit: int = 10
    mode: str = "hybrid"
    threshold: float | None = None
    filters: Filters | None = None
    expand: int = 0
    rrf_k: int = DEFAULT_RRF_K
    vector_weight: float = 1.0
    text_weight: float = DEFAULT_TEXT_WEIGHT


def clean_query(text: str) -> str:
    """The query as PostgreSQL accepts it: no NUL bytes, no lone surrogates."""
    return text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")


def _tsquery(config: str, strict: bool, *, any_term: bool = False) -> sql.Composable:
    """The query in one configuration: websearch syntax when the user used it, else all terms
    (or, with `any_term`, any of them: a question is not a conjunction of all its words)."""
    cfg = sql.Literal(config)
    if strict:
        return sql.SQL("websearch_to_tsquery({}::regconfig, %(text)s)").format(cfg)
    plain = sql.SQL("plainto_tsquery({}::regconfig, %(text)s)").format(cfg)
    if not any_term:
        return plain
    # plainto_tsquery has no negations to flip: only its ANDs become ORs
    return sql.SQL("replace(({})::text, ' & ', ' | ')::tsquery").format(plain)


def _filter_sql(filters: Filters | None) -> tuple[str, dict[str, Any]]:
    if filters is None:
        return "", {}
    clauses, params = [], {}
    for key, clause in _FILTERS.items():
        values = getattr(filters, key)
        if values is not None:
            clauses.append(clause)
            params[f"f_{key}"] = list(values)
    return "".join(clauses), params


def build_search_sql(
    index: EmbeddingIndex, mode: str, filters: Filters | None, *, strict: bool = False
) -> tuple[sql.Composed, dict[str, Any]]:
    """The statement for `mode` and the filter parameters it needs."""
    filter_clauses, params = _filter_sql(filters)
    parts = {
        f"pick_{short}": _tsquery(cfg, True)
        if strict
        else sql.SQL("coalesce((SELECT q FROM rare WHERE cfg = {}), {})").format(
            sql.Literal(cfg), _tsquery(cfg, False)
        )
        for short, cfg in (("ru", "russian"), ("en", "english"), ("simple", "simple"))
    }
    parts |= {
        "vtype": index.vector_type(),
        "index_id": sql.Literal(index.id),
        "filters": sql.SQL(filter_clauses),
        "q_ru": _tsquery("russian", strict, any_term=True),
        "q_en": _tsquery("english", strict, any_term=True),
        "q_simple": _tsquery("simple", strict, any_term=True),
    }
    legs = {"hybrid": [_VECTOR_LEG, _TEXT_LEG], "vector": [_VECTOR_LEG], "text": [_TEXT_LEG]}
    if mode == "text":
        similarity = "NULL::float8"
        threshold = "true"
    else:
        similarity = "coalesce(f.similarity, 1 - (c.embedding::{vtype} <=> %(q)s::{vtype}))"
        threshold = "(%(threshold)s::float8 IS NULL OR r.similarity >= %(threshold)s::float8)"
    score = {"hybrid": "r.rrf", "vector": "r.similarity", "text": "r.text_score"}[mode]
    text = (
        "WITH "
        + ",".join([*legs[mode], _FUSED[mode]])
        + _FINAL.format(score=score, similarity=similarity, threshold=threshold, **_KEEP)
    )
    return sql.SQL(text).format(**parts), params


# placeholders _FINAL keeps for the second (psycopg) formatting pass
_KEEP = {k: "{" + k + "}" for k in ("q_ru", "q_en", "q_simple", "vtype")}


def _highlights(headline: str | None) -> list[str]:
    if not headline:
        return []
    fragments = (f.strip() for f in headline.split(_FRAGMENT_DELIMITER))
    return [f for f in fragments if "<b>" in f]


async def configure_session(conn: AsyncConnection) -> None:
    """Per connection: iterative index scans keep project and tag filters from starving the
    vector candidates; the search list is wide enough for the recall the bench measures."""
    await conn.execute("SET hnsw.iterative_scan = relaxed_order")
    await conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
    # Short statements: JIT compilation and parallel workers cost more than they save, and
    # concurrent searches already use every core (measured: hybrid p50 34 → 18 ms).
    await conn.execute("SET jit = off")
    await conn.execute("SET max_parallel_workers_per_gather = 0")
    if not conn.autocommit:
        await conn.commit()


async def find_project_id(conn: AsyncConnection, name: str) -> UUID | None:
    cur = await conn.execute("SELECT id FROM projects WHERE name = %s", (name,))
    row = await cur.fetchone()
    return row[0] if row else None


def search_statement(
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    query_vector: np.ndarray | None,
    common: Sequence[str] = (),
) -> tuple[sql.Composed, dict[str, Any]]:
    """The one statement that answers `plan` in a project, and its parameters."""
    text = clean_query(plan.query)
    strict = bool(_STRICT_SYNTAX.search(text))
    statement, params = build_search_sql(index, plan.mode, plan.filters, strict=strict)
    candidates = max(40, 2 * plan.limit)
    params |= {
        "q": query_vector,
        "text": text,
        "common": list(common),
        "project_id": project_id,
        "candidates": candidates,
        "text_pool": max(TEXT_POOL, candidates),
        "k": plan.rrf_k,
        "wv": plan.vector_weight,
        "wt": plan.text_weight,
        "threshold": plan.threshold,
        "headline": HEADLINE_OPTIONS,
        "limit": plan.limit,
    }
    return statement, params


async def search_hybrid(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    query_vector: np.ndarray | None,
    common: Sequence[str] = (),
) -> list[SearchResult]:
    """The best chunks of one project for `plan`, best first, with neighbours if asked.

    `common`: lexemes too frequent to pick full-text candidates alone (CommonTerms)."""
    statement, params = search_statement(index, project_id, plan, query_vector, common)
    candidates = params["candidates"]
    # The pool sets iterative scans and EF_SEARCH on each connection (configure_session); only
    # a candidate list longer than that needs a longer search list, for this statement alone.
    if candidates > EF_SEARCH:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL hnsw.ef_search = {int(candidates)}")
            rows = await (await conn.execute(statement, params)).fetchall()
    else:  # one statement, one round trip (the service's connections are in autocommit)
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
            highlights=_highlights(row[8]),
            document=DocumentRef(id=str(row[9]), filename=row[10], title=row[11]),
        )
        for row in rows
    ]
    if plan.expand and hits:
        return await _with_neighbours(conn, index, project_id, hits, plan.expand)
    return hits


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
