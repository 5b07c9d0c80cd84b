"""The search's statements, `psycopg.sql.Composed`, composed once per shape (leg or mode,
fusion, websearch syntax or not, which filters) and reused; a request brings parameters. Each
leg is its own statement, so a search runs its two legs side by side on two connections (one
PostgreSQL process each, and the full-text leg while the query is still being embedded); a
third statement fuses their candidates and reads the best ones' rows.

- **Vector leg**: candidates from the model's partial HNSW index over the chunks' sentence
  windows (`chunk_parts`; a short chunk is its own window), each candidate scored exactly as the
  larger of its chunk's cosine similarity and its best window's (small-to-big: a passage is as
  near as its nearest part, so a question about one sentence of a long passage finds the
  passage). A filtered search takes its candidates from the chunks' own HNSW index instead
  (filters are on chunk rows).
- **Full-text leg**: chunks holding an informative lexeme of the query (in the chunk's own
  language configuration), one of its Russian lemmas, or a translation of one of its words
  (translation.py: terms of the other language's configuration, and of Russian text's Latin
  words); TEXT_POOL of them — those
  holding the query's rarest terms first — each scored as Σ idf × ts_rank over the query's
  lexemes and lemmas (BM25's shape; weights from `term_stats`). A query written
  in websearch syntax ("phrase", -word, OR) is ranked the same way, and the chunks that match
  it as written rank ahead of the rest (EXACT_BOOST over the best of the rest, full
  coverage): the syntax re-ranks, it never empties
  a result — a question about `dpkg-buildpackage -us -uc` or "this or that" is still a question.
- **Fusion** (the legs' candidates arrive as arrays): score-aware by default — the vector leg's
  similarities min-max scaled over its
  candidates, its last candidate above zero (VECTOR_FLOOR in search.py) and their spread taken
  as at least VECTOR_SPREAD (candidates all about as near: their order tells little), the text
  leg's scores scaled by their maximum and by the share of the query's term weight the chunk
  holds (its coverage: see FULL_COVERAGE in search.py), combined with weights — so a confident
  hit of one leg is not buried by passages both legs found at middling ranks, and a chunk
  matching a word or two of the query weighs little. Where the full-text leg is blind — a
  chunk of a document holding no text in the query's language (a Russian question about an
  English book) — it abstains: its share is the vector leg's scaled score, or its own if
  higher, not a zero. Or Reciprocal Rank Fusion (`Σ weight / (k + rank)`), the plain recipe,
  on request.

Index ids and dimensions are literals, not parameters: the planner must see `index_id = <id>`
and `embedding::vector(<d>)` to use that model's partial HNSW indexes.
"""

from __future__ import annotations

import functools
from typing import Any

from psycopg import sql

from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.schemas import Filters

# PostgreSQL's parser reads "<subdir>" or "<API version>" as an HTML tag and ts_headline puts a
# space in its place: highlights are made with each "<" of the text as this private-use
# character instead, put back after.
TAG_MARK = "\ue000"

_VECTOR_LEG = sql.SQL("""
vec_chunks AS (
    SELECT c.id FROM chunks c
    WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
      AND NOT {parts_allowed}
    ORDER BY c.embedding::{vtype} <=> %(q)s::{vtype}
    LIMIT %(candidates)s
),
vec_parts AS (
    SELECT p.chunk_id AS id, p.part, 1 - (p.embedding::{htype} <=> %(q)s::{htype}) AS similarity
    FROM chunk_parts p
    WHERE p.index_id = {index_id} AND p.project_id = %(project_id)s AND {parts_allowed}
    ORDER BY p.embedding::{htype} <=> %(q)s::{htype}
    LIMIT %(part_candidates)s
),
-- a chunk's best window is the nearest of its windows the index returned (its nearest of all,
-- but for the index's approximation): no second look at every window of every candidate
best_parts AS (
    SELECT DISTINCT ON (id) id, part, similarity FROM vec_parts ORDER BY id, similarity DESC, part
),
vec_scored AS (
    SELECT c.id, c.document_id, 1 - (c.embedding::{vtype} <=> %(q)s::{vtype}) AS chunk_similarity,
           w.part, w.similarity AS part_similarity
    FROM best_parts w JOIN chunks c ON c.id = w.id
    UNION ALL
    -- chunks found by their own vectors (a filtered search): their best window looked up
    SELECT c.id, c.document_id, 1 - (c.embedding::{vtype} <=> %(q)s::{vtype}),
           w.part, w.similarity
    FROM chunks c
    LEFT JOIN LATERAL (
        SELECT p.part, 1 - (p.embedding::{htype} <=> %(q)s::{htype}) AS similarity
        FROM chunk_parts p WHERE p.chunk_id = c.id
        ORDER BY similarity DESC
        LIMIT 1
    ) w ON true
    WHERE c.id IN (SELECT id FROM vec_chunks)
),
vec AS (
    SELECT id, document_id, similarity, row_number() OVER (ORDER BY similarity DESC, id) AS rank,
           part
    FROM (
        SELECT id, document_id, part,
               greatest(chunk_similarity, coalesce(part_similarity, chunk_similarity)) AS similarity
        FROM vec_scored
    ) s
    ORDER BY similarity DESC, id
    LIMIT %(candidates)s
)""")

# Lexemes and lemmas with their weights arrive as arrays (term_stats.py); a chunk is scored
# with the lexemes of its own language configuration and with the lemmas.
_TEXT_LEG = sql.SQL("""
terms AS MATERIALIZED (
    SELECT t.cfg::regconfig AS cfg, t.q::tsquery AS q, t.w, t.n, t.c
    FROM unnest(%(t_cfg)s::text[], %(t_q)s::text[], %(t_w)s::float8[], %(t_n)s::float8[],
                %(t_c)s::bool[])
         AS t(cfg, q, w, n, c)
),
lemma_terms AS MATERIALIZED (
    SELECT t.q::tsquery AS q, t.w, t.n
    FROM unnest(%(l_q)s::text[], %(l_w)s::float8[], %(l_n)s::float8[]) AS t(q, w, n)
),
-- the chunks holding the query's rarest terms (KEEP_ROWS in search.py) first, then by one
-- cheap ts_rank: a chunk holding a question's one rare word is not crowded out of the pool by
-- more chunks repeating its common ones
txt_matches AS (
    SELECT c.id, mirage_text_config(c.lang) AS cfg,
           coalesce(c.tsv @@ %(t_keep)s::tsquery, false) AS kept,
           ts_rank(c.tsv, %(t_pick)s::tsquery) AS quick
    FROM chunks c
    WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
      AND c.tsv @@ %(t_pick)s::tsquery
    UNION ALL
    SELECT c.id, mirage_text_config(c.lang),
           coalesce(c.lemma_tsv @@ %(l_keep)s::tsquery, false),
           ts_rank(c.lemma_tsv, %(l_pick)s::tsquery)
    FROM chunks c
    WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
      AND c.lemma_tsv @@ %(l_pick)s::tsquery{exact_pick}
),
txt_pool AS (
    SELECT id, max(cfg::text)::regconfig AS cfg
    FROM txt_matches
    GROUP BY id
    ORDER BY bool_or(kept) DESC, sum(quick) DESC, id
    LIMIT %(text_pool)s
),
-- each pooled chunk's tsvectors read once: stored compressed in the row (migration 0010),
-- each ts_rank on the column itself decompressed its value again, once per term; and what
-- holds for the chunk as a whole (the query as written matches it, it has lemmas) told once,
-- not once per term
txt_read AS MATERIALIZED (
    SELECT p.id, p.cfg, c.tsv || ''::tsvector AS tsv, c.lemma_tsv || ''::tsvector AS lemma_tsv,
           {exact_match} AS exact, c.lemma_tsv <> ''::tsvector AS lemmatized
    FROM txt_pool p JOIN chunks c ON c.id = p.id
),
txt_scored AS (
    SELECT p.id, p.cfg, sum(r.w * r.rank) AS score,
           coalesce(sum(r.w) FILTER (WHERE r.rank > 0), 0) AS matched, p.exact, p.lemmatized
    FROM txt_read p
    CROSS JOIN LATERAL (
        SELECT t.w, t.n * ts_rank(p.tsv, t.q, 1) AS rank FROM terms t WHERE t.cfg = p.cfg
        UNION ALL
        SELECT l.w, l.n * ts_rank(p.lemma_tsv, l.q, 1) FROM lemma_terms l
    ) r
    GROUP BY p.id, p.cfg, p.exact, p.lemmatized
),
txt_exact AS (
    SELECT id, cfg, matched, exact, lemmatized,
           CASE WHEN exact THEN %(exact_boost)s * score + 1e-6 + s.rest ELSE score END AS score
    FROM txt_scored
    -- ahead of every chunk not matching the query as written, however rare its words
    CROSS JOIN (SELECT coalesce(max(score), 0) AS rest FROM txt_scored WHERE NOT exact) s
),
txt AS (
    SELECT id, score,
           CASE WHEN exact THEN 1.0 ELSE
           -- of the terms it could hold: the lemmas count for a chunk with Cyrillic words
           -- only, a translation looked for among Russian text's Latin words for none
           matched / nullif((SELECT coalesce(sum(t.w), 0) FROM terms t WHERE t.cfg = s.cfg AND t.c)
                          + (SELECT coalesce(sum(l.w), 0) FROM lemma_terms l WHERE lemmatized),
                            0) END AS coverage,
           row_number() OVER (ORDER BY score DESC, id) AS rank
    FROM txt_exact s
    WHERE score > 0
    ORDER BY score DESC, id
    LIMIT %(candidates)s
)""")

# websearch syntax: the chunks matching the query as written, each parsed in its own language.
_EXACT_PICK = sql.SQL("""
    UNION ALL
    SELECT c.id, mirage_text_config(c.lang), true, 1e6::real
    FROM chunks c
    WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
      AND ({strict_pick})""")
_EXACT_MATCH = sql.SQL("c.tsv @@ websearch_to_tsquery(p.cfg, %(written)s)")
_STRICT_PICK = sql.SQL(
    "(mirage_text_config(c.lang) = {cfg}::regconfig"
    " AND c.tsv @@ websearch_to_tsquery({cfg}::regconfig, %(written)s))"
)

# The legs' candidates, as their statements returned them (VECTOR_COLUMNS, TEXT_COLUMNS).
_VECTOR_ROWS = sql.SQL("""
vec AS (
    SELECT * FROM unnest(%(v_id)s::bigint[], %(v_document)s::uuid[], %(v_similarity)s::float8[],
                         %(v_rank)s::bigint[], %(v_part)s::int[])
             AS v(id, document_id, similarity, rank, part)
)""")
_TEXT_ROWS = sql.SQL("""
txt AS (
    SELECT * FROM unnest(%(t_id)s::bigint[], %(t_score)s::float8[], %(t_coverage)s::float8[],
                         %(t_rank)s::bigint[]) AS t(id, score, coverage, rank)
)""")
VECTOR_COLUMNS = ("v_id", "v_document", "v_similarity", "v_rank", "v_part")
TEXT_COLUMNS = ("t_id", "t_score", "t_coverage", "t_rank")

_FUSED = {
    ("hybrid", "score"): sql.SQL("""
vec_scaled AS (
    SELECT v.id, v.similarity, v.rank, v.part,
           coalesce((v.similarity - s.low + %(vector_floor)s * s.spread)
                    / nullif((1 + %(vector_floor)s) * s.spread, 0), 0) AS scaled,
           %(language)s::text IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM chunks l
               WHERE l.document_id = v.document_id
                 AND mirage_text_config(l.lang) = mirage_text_config(%(language)s::text)
           ) AS text_blind
    FROM vec v
    CROSS JOIN (
        SELECT min(similarity) AS low,
               greatest(max(similarity) - min(similarity), %(vector_spread)s) AS spread
        FROM vec
    ) s
),
txt_scaled AS (
    SELECT t.id, t.rank, t.score,
           t.score / nullif(s.high, 0) * sqrt(least(1, t.coverage / %(full_coverage)s)) AS scaled
    FROM txt t CROSS JOIN (SELECT max(score) AS high FROM txt) s
),
fused AS (
    SELECT coalesce(v.id, t.id) AS id, v.similarity, v.rank AS vector_rank, t.rank AS text_rank,
           t.score AS text_score, v.part,
           %(wv)s * coalesce(v.scaled, 0)
         + %(wt)s * coalesce(CASE WHEN v.text_blind THEN greatest(v.scaled, t.scaled)
                                  ELSE t.scaled END, 0) AS fused
    FROM vec_scaled v FULL JOIN txt_scaled t ON t.id = v.id
)"""),
    ("hybrid", "rrf"): sql.SQL("""
fused AS (
    SELECT coalesce(v.id, t.id) AS id, v.similarity, v.rank AS vector_rank, t.rank AS text_rank,
           t.score AS text_score, v.part,
           coalesce(%(wv)s / (%(k)s + v.rank), 0) + coalesce(%(wt)s / (%(k)s + t.rank), 0) AS fused
    FROM vec v FULL JOIN txt t ON t.id = v.id
)"""),
    ("vector", None): sql.SQL("""
fused AS (
    SELECT id, similarity, rank AS vector_rank, NULL::bigint AS text_rank,
           NULL::float8 AS text_score, part, similarity AS fused
    FROM vec
)"""),
    ("text", None): sql.SQL("""
fused AS (
    SELECT id, NULL::float8 AS similarity, NULL::bigint AS vector_rank, rank AS text_rank,
           score AS text_score, NULL::int AS part, score AS fused
    FROM txt
)"""),
}

# The best `limit` candidates are chosen from ids and scores alone; content is read, highlighted,
# and a full-text-only candidate's similarity computed, for those few rows only (for every
# candidate only under a threshold: ~2 ms of a fusion's ~5 without one). The legs ran as
# statements of their own: a candidate whose document was removed since is passed over
# before the limit, not after it.
_FINAL = sql.SQL(""",
top AS (
    SELECT f.id, f.vector_rank, f.text_rank, f.text_score, f.fused, f.similarity, f.part
    FROM fused f
    WHERE {threshold} AND EXISTS (SELECT 1 FROM chunks k WHERE k.id = f.id)
    ORDER BY f.fused DESC, f.id
    LIMIT %(limit)s
)
SELECT c.id, c.content, r.fused, {similarity}, r.text_score,
       r.vector_rank, r.text_rank, c.structure,
       CASE WHEN r.text_rank IS NULL THEN NULL ELSE
           ts_headline(mirage_text_config(c.lang), replace(c.content, '<', {tag_mark}),
                       {headline_query}, %(headline)s) END AS headline,
       d.id, d.path, d.metadata ->> 'title', r.part
FROM top r
JOIN chunks c ON c.id = r.id
JOIN documents d ON d.id = c.document_id
ORDER BY r.fused DESC, r.id
""")

# The similarity of a full-text-only candidate, and the threshold, in modes with a vector leg:
# as the vector leg measures it, the nearer of the chunk and its nearest window.
_NEAREST_PART = (
    "greatest(1 - (c.embedding::{vtype} <=> %(q)s::{vtype}), (SELECT max(1 - (p.embedding::{htype}"
    " <=> %(q)s::{htype})) FROM chunk_parts p WHERE p.chunk_id = c.id))"
)
_SIMILARITY = sql.SQL(f"coalesce(r.similarity, {_NEAREST_PART})")
_THRESHOLD = sql.SQL(
    "(%(threshold)s::float8 IS NULL OR coalesce(f.similarity, (SELECT"
    f" {_NEAREST_PART} FROM chunks c WHERE c.id = f.id)) >= %(threshold)s::float8)"
)
# any of the query's words, not all of them: a question is not a conjunction
_HEADLINE_QUERY = sql.SQL(
    "replace(plainto_tsquery(mirage_text_config(c.lang), %(text)s)::text, ' & ', ' | ')::tsquery"
)

FILTERS = {
    "documents": sql.SQL(
        " AND c.document_id IN (SELECT id FROM documents WHERE project_id ="
        " %(project_id)s AND (id::text = ANY(%(f_documents)s) OR path = ANY(%(f_documents)s)))"
    ),
    "file_types": sql.SQL(
        " AND c.document_id IN (SELECT id FROM documents WHERE project_id ="
        " %(project_id)s AND file_type = ANY(%(f_file_types)s))"
    ),
    "tags": sql.SQL(" AND (c.metadata -> 'tags') ?| %(f_tags)s"),
    "types": sql.SQL(" AND (c.metadata ->> 'type') = ANY(%(f_types)s)"),
}


def build_leg_sql(
    index: EmbeddingIndex,
    leg: str,
    filters: Filters | None,
    *,
    strict: bool = False,
    configs: tuple[str, ...] = (),
) -> tuple[sql.Composed, dict[str, Any]]:
    """The statement of one leg ("vector" or "text") and the filter parameters it needs; its
    rows are VECTOR_COLUMNS or TEXT_COLUMNS.

    `strict`: the query is in websearch syntax; `configs`: the text-search configurations of
    the languages the index holds (the query as written is parsed in each)."""
    params, filtered_on = filter_params(filters)
    if leg == "vector":
        return _vector_leg(index, filtered_on), params
    return _text_leg(index, strict, filtered_on, tuple(configs)), params


def filter_params(filters: Filters | None) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The parameters of `filters` (FILTERS' `f_<key>`) and the keys they filter on."""
    params = {
        f"f_{key}": list(values)
        for key in FILTERS
        if filters is not None and (values := getattr(filters, key)) is not None
    }
    return params, tuple(key for key in FILTERS if f"f_{key}" in params)


@functools.lru_cache(maxsize=256)
def _vector_leg(index: EmbeddingIndex, filtered_on: tuple[str, ...]) -> sql.Composed:
    leg = _VECTOR_LEG.format(
        index_id=sql.Literal(index.id),
        filters=sql.Composed([FILTERS[key] for key in filtered_on]),
        # a filter is on chunk rows: windows then only re-score the chunks found
        parts_allowed=sql.SQL("false" if filtered_on else "true"),
        vtype=index.vector_type(),
        htype=index.halfvec_type(),
    )
    columns = "id, document_id, similarity, rank, part"
    return sql.SQL("WITH ") + leg + sql.SQL(f"\nSELECT {columns} FROM vec")


@functools.lru_cache(maxsize=256)
def _text_leg(
    index: EmbeddingIndex, strict: bool, filtered_on: tuple[str, ...], configs: tuple[str, ...]
) -> sql.Composed:
    index_id = sql.Literal(index.id)
    filters = sql.Composed([FILTERS[key] for key in filtered_on])
    exact_pick = sql.SQL("")
    if strict:
        strict_pick = sql.SQL(" OR ").join(
            _STRICT_PICK.format(cfg=sql.Literal(cfg)) for cfg in configs or ("simple",)
        )
        exact_pick = _EXACT_PICK.format(index_id=index_id, filters=filters, strict_pick=strict_pick)
    leg = _TEXT_LEG.format(
        index_id=index_id,
        filters=filters,
        exact_pick=exact_pick,
        exact_match=_EXACT_MATCH if strict else sql.SQL("false"),
    )
    return sql.SQL("WITH ") + leg + sql.SQL("\nSELECT id, score, coverage, rank FROM txt")


def build_fusion_sql(index: EmbeddingIndex, mode: str, fusion: str = "score") -> sql.Composed:
    """The statement that fuses the legs' candidates (parameters VECTOR_COLUMNS and
    TEXT_COLUMNS) and reads the best `limit` of them, best first."""
    return _fusion(index, mode, fusion if mode == "hybrid" else None)


@functools.lru_cache(maxsize=256)
def _fusion(index: EmbeddingIndex, mode: str, fusion: str | None) -> sql.Composed:
    legs = []
    if mode in ("hybrid", "vector"):
        legs.append(_VECTOR_ROWS)
    if mode in ("hybrid", "text"):
        legs.append(_TEXT_ROWS)
    legs.append(_FUSED[(mode, fusion)])
    types = {"vtype": index.vector_type(), "htype": index.halfvec_type()}
    final = _FINAL.format(
        similarity=sql.SQL("NULL::float8") if mode == "text" else _SIMILARITY.format(**types),
        threshold=sql.SQL("true") if mode == "text" else _THRESHOLD.format(**types),
        headline_query=_HEADLINE_QUERY,
        tag_mark=sql.Literal(TAG_MARK),
    )
    return sql.SQL("WITH ") + sql.SQL(",").join(legs) + final
