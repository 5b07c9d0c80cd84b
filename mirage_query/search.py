"""The search SQL, shared by the HTTP handlers and anything else that searches."""

from __future__ import annotations

from uuid import UUID

import numpy as np
from psycopg import AsyncConnection, sql

from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.schemas import DocumentRef, SearchResult

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


async def find_project_id(conn: AsyncConnection, name: str) -> UUID | None:
    cur = await conn.execute("SELECT id FROM projects WHERE name = %s", (name,))
    row = await cur.fetchone()
    return row[0] if row else None


async def search_vector(
    conn: AsyncConnection,
    index: EmbeddingIndex,
    project_id: UUID,
    query_vector: np.ndarray,
    *,
    limit: int,
    threshold: float | None = None,
) -> list[SearchResult]:
    """Nearest chunks of one project in `index` by cosine similarity, best first."""
    query = _VECTOR_SEARCH.format(vtype=index.vector_type(), index_id=sql.Literal(index.id))
    async with conn.transaction():
        # Iterative index scans keep the project filter from starving the result list.
        await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        await conn.execute(f"SET LOCAL hnsw.ef_search = {max(40, 2 * limit)}")
        cur = await conn.execute(
            query, {"q": query_vector, "project_id": project_id, "limit": limit}
        )
        rows = await cur.fetchall()
    results = [
        SearchResult(
            chunk_id=row[0],
            content=row[1],
            score=round(float(row[2]), 6),
            structure=row[3],
            document=DocumentRef(id=str(row[4]), filename=row[5], title=row[6]),
        )
        for row in rows
        if threshold is None or row[2] >= threshold
    ]
    # relaxed_order may return near-ties slightly out of order
    results.sort(key=lambda r: r.score, reverse=True)
    return results
