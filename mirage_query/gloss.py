"""A question glossed word for word into the other language, for the vector leg across
languages.

multilingual-e5-small matches a Russian question with an English passage less well than with
a Russian one (language centering, embedders/centering.py, halves that), so a Russian
question about an English manual finds its answer by meaning less often than one about a
Russian manual. The dictionary that translates the question's words for the full-text leg
(translation.py) also glosses it: each content word as its first translation ("Где по
стандарту FHS может лежать ядро" → "standard FHS can lie nucleus"), a crude text, but one in
the passage's language. The question's vector plus half the gloss's, normalised, measures a
passage in that language; such a passage scores the larger of its similarity to the question
and to that vector less a small margin (GLOSS_MARGIN).

Only where the question is probably about the other language's text: when the full-text
leg's best candidate — matched through the translations — is a chunk in that language, of a
document in that language (a Russian manual's code, tagged English, does not count). Applied
to every question, English passages rose above the Russian answers of Russian questions
about a topic both languages' manuals cover. On the dev eval (eval/run_eval.py, 664
questions), hybrid recall@5 / @10 / MRR@10 asked across languages (97) 0.794 / 0.845 / 0.643
→ 0.825 / 0.887 / 0.690, English 0.899 / 0.946 / 0.780 → 0.903 / 0.957 / 0.789, Russian
0.860 / 0.911 / 0.734 → 0.862 / 0.914 / 0.735; in a replay on the session's own split (113
across languages), the gloss for every question: across 0.850 / 0.912 / 0.738 but
same-language Russian recall@5 0.863 → 0.851. A gloss with each word's sense the index holds
most (the translations' choice) did worse than the dictionary's first sense.

A glossed passage reports the higher of its two similarities (`scores.vector`, and what a
search's `threshold` compares).

Its cost, only for a question it applies to: the gloss's embedding, once the full-text leg is
done (beside the vector leg: search_api.py), and one more statement — scans of the chunks'
and the windows' HNSW indexes with the combined vector, and the two similarities of each
candidate; for every hybrid question in Russian or English with full-text candidates, one
primary-key lookup (`_POINTS_ACROSS`). On the dev eval's index, the questions across
languages took a median 73 → 94 ms (README).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from uuid import UUID

import numpy as np
from psycopg import AsyncConnection, sql

from mirage_pipeline.embedders.base import normalise
from mirage_pipeline.language import identify_language
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.search import SearchPlan, clean_query, scanned_rows, search_params
from mirage_query.search_sql import FILTERS, filter_params
from mirage_query.translation import Dictionary

GLOSS_WEIGHT = 0.5  # of the gloss's vector beside the question's
GLOSS_MARGIN = 0.01  # taken off a passage's similarity to the combined vector
# the question's language → the language of the passages its gloss re-scores
_GLOSSED = {"ru": "en", "en": "ru"}

# the full-text leg's best candidate is a chunk in `target` of a document in `target` (its
# language as parsed — an EPUB's or FB2's as declared, "en-US" being "en" —, else the
# chunk's): a Russian manual's code, tagged English, is not
_POINTS_ACROSS = """
SELECT c.lang = %(target)s
   AND coalesce(lower(split_part(replace(d.metadata ->> 'language', '_', '-'), '-', 1)), c.lang)
       = %(target)s
FROM chunks c JOIN documents d ON d.id = c.document_id
WHERE c.id = %(id)s
"""

# The combined vector's candidates — the chunks in the gloss's language nearest to it (the
# chunks' own index: the windows carry no language, and in a project almost all in the
# question's language their scan finds few of the other's), those of the windows it finds
# nearest (unless the search is filtered: filters are on chunk rows), and the vector leg's —,
# each of the gloss's language scored as the larger of its similarity to the question (the
# vector leg's measure: the nearer of the chunk and its nearest window) and to the combined
# vector less the margin.
_GLOSS_LEG = sql.SQL("""
WITH gloss_found AS (
    (SELECT c.id FROM chunks c
     WHERE c.index_id = {index_id} AND c.project_id = %(project_id)s {filters}
       AND c.lang = %(target)s
     ORDER BY c.embedding::{vtype} <=> %(g)s::{vtype}
     LIMIT %(candidates)s)
    UNION
    (SELECT p.chunk_id FROM chunk_parts p
     WHERE p.index_id = {index_id} AND p.project_id = %(project_id)s AND {parts_allowed}
     ORDER BY p.embedding::{htype} <=> %(g)s::{htype}
     LIMIT %(part_candidates)s)
    UNION
    SELECT unnest(%(v_id)s::bigint[])
),
gloss_scored AS (
    SELECT c.id, c.document_id,
           greatest(1 - (c.embedding::{vtype} <=> %(q)s::{vtype}), w.near) AS similarity,
           greatest(1 - (c.embedding::{vtype} <=> %(g)s::{vtype}), w.glossed) AS glossed,
           w.part
    FROM gloss_found f
    JOIN chunks c ON c.id = f.id
    LEFT JOIN LATERAL (
        SELECT max(1 - (p.embedding::{htype} <=> %(q)s::{htype})) AS near,
               max(1 - (p.embedding::{htype} <=> %(g)s::{htype})) AS glossed,
               (array_agg(p.part ORDER BY p.embedding::{htype} <=> %(q)s::{htype}, p.part))[1]
                   AS part
        FROM chunk_parts p WHERE p.chunk_id = c.id
    ) w ON true
    WHERE c.lang = %(target)s
)
SELECT id, document_id, greatest(similarity, glossed - %(margin)s), part FROM gloss_scored
""")


@dataclass(frozen=True)
class Gloss:
    text: str  # the question word for word in `target`
    target: str  # the language of the passages it re-scores


async def gloss_for(
    conn: AsyncConnection,
    plan: SearchPlan,
    text_rows: list[tuple],
    dictionary: Dictionary | None,
) -> Gloss | None:
    """The question's gloss, when a hybrid search's full-text leg ranks first a chunk in the
    other language of a Russian or English question, of a document in that language
    (`text_rows`: TEXT_COLUMNS, best first)."""
    if plan.mode != "hybrid" or dictionary is None or not text_rows:
        return None
    text = clean_query(plan.query)
    source = identify_language(text)
    target = _GLOSSED.get(source or "")
    if source is None or target is None:
        return None
    params = {"target": target, "id": text_rows[0][0]}
    across = await (await conn.execute(_POINTS_ACROSS, params)).fetchone()
    if across is None or not across[0]:
        return None
    return Gloss(dictionary.gloss(text, source), target)


async def glossed_candidates(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    plan: SearchPlan,
    query_vector: np.ndarray,
    gloss: Gloss,
    gloss_vector: np.ndarray,
    vector_rows: list[tuple],
) -> list[tuple]:
    """The vector leg's candidates (`vector_rows`, VECTOR_COLUMNS) with the gloss's: passages
    in its language re-scored, new ones among them, best first."""
    filters, filtered_on = filter_params(plan.filters)
    params = search_params(project_id, plan, query_vector) | filters
    combined = normalise(np.asarray(query_vector) + GLOSS_WEIGHT * np.asarray(gloss_vector))
    params |= {
        "g": combined,
        "target": gloss.target,
        "margin": GLOSS_MARGIN,
        "v_id": [row[0] for row in vector_rows],
    }
    rows = await scanned_rows(conn, _gloss_leg(index, filtered_on), params)
    found = {row[0]: (row[0], row[1], row[2], row[4]) for row in vector_rows}
    found.update((row[0], tuple(row)) for row in rows)
    best = sorted(found.values(), key=lambda row: (-row[2], row[0]))[: params["candidates"]]
    return [
        (id_, document, similarity, rank, part)
        for rank, (id_, document, similarity, part) in enumerate(best, 1)
    ]


@functools.lru_cache(maxsize=64)
def _gloss_leg(index: EmbeddingIndex, filtered_on: tuple[str, ...]) -> sql.Composed:
    return _GLOSS_LEG.format(
        index_id=sql.Literal(index.id),
        filters=sql.Composed([FILTERS[key] for key in filtered_on]),
        # a filter is on chunk rows: the windows' index is then not scanned, the chunks' is
        parts_allowed=sql.SQL("false" if filtered_on else "true"),
        vtype=index.vector_type(),
        htype=index.halfvec_type(),
    )
