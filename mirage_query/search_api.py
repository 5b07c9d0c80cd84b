"""The search routes: one query, or a batch of an agent's sub-questions run together.

A search's vector legs take a database connection once its queries are embedded
(query_vectors.py), so a slow embedder never holds pooled connections that other routes and
/ready need. Its full-text legs run meanwhile on a connection of their own, and the vector legs
beside them: two PostgreSQL processes, two cores, for the question an agent waits on. A
question about the other language's text (gloss.py) has its gloss embedded once its full-text
leg is done (beside the vector leg), and its vector candidates re-scored on the fusion's
connection.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from uuid import UUID

import anyio
import msgspec
import numpy as np
from litestar import Request, post
from litestar.exceptions import ClientException, NotFoundException
from psycopg import AsyncConnection

from mirage_pipeline.embedders import EmbedderError
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_query.catalog import document_paths
from mirage_query.catalog import project_id as find_project_id
from mirage_query.document_refs import resolve_document
from mirage_query.gloss import Gloss, gloss_for, glossed_candidates
from mirage_query.query_vectors import QueryEmbedder, first_error
from mirage_query.schemas import (
    BatchRequest,
    BatchResponse,
    SearchRequest,
    SearchResult,
    UnionResult,
)
from mirage_query.search import SearchPlan
from mirage_query.search_run import (
    fused_results,
    text_candidates,
    vector_candidates,
)
from mirage_query.term_stats import IndexStats
from mirage_query.uploads import project_folder_exists


async def _project(
    request: Request, project: str, plans: list[SearchPlan]
) -> tuple[UUID | None, list[SearchPlan]]:
    """The project's id (None for a project whose folder exists but holds no index yet), and
    the plans with the documents their filters name as ids: a document the project does not
    have is a 404, a base name several of its documents share a 400, never an empty result."""
    refs = sorted({r for p in plans if p.filters for r in p.filters.documents or ()})
    async with request.app.state.pool.connection() as conn:
        project_id = await find_project_id(conn, project)
        documents = await document_paths(conn, project_id) if project_id and refs else None
    root = request.app.state.settings.documents_dir
    if project_id is None and not project_folder_exists(root, project):
        raise NotFoundException(detail=f"project {project!r} not found")
    if documents is None:
        return project_id, plans
    named = {ref: resolve_document(documents, ref) for ref in refs}
    if unknown := [ref for ref, (found, shared) in named.items() if found is None and not shared]:
        shown = ", ".join(repr(r) for r in unknown)
        raise NotFoundException(
            detail=f"no document {shown} in project {project!r} (filters.documents takes"
            " document ids, paths in the project, or a base name only one document has)"
        )
    for ref, (found, shared) in named.items():
        if found is None:
            raise ClientException(
                detail=f"{ref!r} names several documents ({', '.join(shared)}): give the path"
            )
    ids = {ref: found for ref, (found, _) in named.items()}
    return project_id, [_named_by_id(plan, ids) for plan in plans]


def _named_by_id(plan: SearchPlan, ids: dict[str, str]) -> SearchPlan:
    if not (plan.filters and plan.filters.documents):
        return plan
    documents = list(dict.fromkeys(ids[r] for r in plan.filters.documents))
    return replace(plan, filters=msgspec.structs.replace(plan.filters, documents=documents))


async def _vectors(
    request: Request, index: EmbeddingIndex | None, queries: list[str]
) -> list[np.ndarray]:
    """The queries' vectors. Without an index for the model: 503 if the embedder does not answer,
    else none (nothing has been indexed with this model yet)."""
    embedder: QueryEmbedder = request.app.state.query_embedder
    if not queries:
        return []
    if index is None:
        failure = request.app.state.indexes.failure
        if failure:
            raise embedder.unavailable(f"is unreachable: {failure}")
        return []
    return await embedder.embed(index, queries)


def _plan(request: Request, body: SearchRequest) -> SearchPlan:
    return SearchPlan(
        query=body.query,
        limit=body.limit,
        mode=body.mode,
        threshold=body.threshold,
        filters=body.filters,
        expand=body.expand,
        fusion=request.app.state.settings.fusion,
        rrf_k=request.app.state.settings.rrf_k,
        text_weight=request.app.state.settings.text_weight,
    )


@post("/projects/{project:str}/search", status_code=200, summary="Search one project")
async def search(project: str, data: SearchRequest, request: Request) -> list[SearchResult]:
    project_id, (plan,) = await _project(request, project, [_plan(request, data)])
    if project_id is None:
        return []
    (results,) = await _searches(request, project_id, [plan])
    return results


@post(
    "/projects/{project:str}/search/batch",
    status_code=200,
    summary="Up to 8 searches at once, with a de-duplicated union",
)
async def batch_search(project: str, data: BatchRequest, request: Request) -> BatchResponse:
    plans = [
        SearchPlan(
            query=q.query,
            limit=q.limit if q.limit is not None else data.limit,
            mode=q.mode or data.mode,
            threshold=q.threshold if q.threshold is not None else data.threshold,
            filters=q.filters if q.filters is not None else data.filters,
            expand=q.expand if q.expand is not None else data.expand,
            fusion=request.app.state.settings.fusion,
            rrf_k=request.app.state.settings.rrf_k,
            text_weight=request.app.state.settings.text_weight,
        )
        for q in data.queries
    ]
    project_id, plans = await _project(request, project, plans)
    if project_id is None:
        return BatchResponse(results=[[] for _ in plans], union=[])
    results = await _searches(request, project_id, plans)
    return BatchResponse(results=results, union=fuse(results, request.app.state.settings.rrf_k))


async def _searches(
    request: Request, project_id: UUID, plans: list[SearchPlan]
) -> list[list[SearchResult]]:
    """Each plan's results. The full-text legs run one after another on one connection, the
    vector legs beside them on another once the queries are embedded, then each plan's fusion:
    at most two pooled connections, however many queries a batch holds."""
    state = request.app.state
    index = await state.indexes.current()
    needing = [i for i, plan in enumerate(plans) if plan.mode != "text"]
    if index is None:  # nothing is indexed with the model yet (503 if it does not answer)
        await _vectors(request, index, [plans[i].query for i in needing])
        return [[] for _ in plans]
    vectors: list[np.ndarray | None] = [None] * len(plans)
    vector_rows: list[list[tuple]] = [[] for _ in plans]
    text_rows: list[list[tuple]] = [[] for _ in plans]
    glosses: list[Gloss | None] = [None] * len(plans)  # gloss.py: for questions across languages
    gloss_vectors: dict[int, np.ndarray] = {}

    async def vector_legs() -> None:
        embedded = await _vectors(request, index, [plans[i].query for i in needing])
        async with state.pool.connection() as conn:
            for i, vector in zip(needing, embedded, strict=True):
                vectors[i] = vector
                vector_rows[i] = await vector_candidates(conn, index, project_id, plans[i], vector)

    async def text_legs() -> None:
        async with state.pool.connection() as conn:
            stats = await _term_stats(request, conn, plans)
            for i, plan in enumerate(plans):
                if plan.mode != "vector":
                    text_rows[i] = await text_candidates(
                        conn, index, project_id, plan, stats, state.dictionary
                    )
                    glosses[i] = await gloss_for(conn, plan, text_rows[i], state.dictionary)
        # embedded while the vector legs run, their connection given back first
        glossed = {i: gloss.text for i, gloss in enumerate(glosses) if gloss}
        try:
            embedded = await _vectors(request, index, list(glossed.values()))
            gloss_vectors.update(zip(glossed, embedded, strict=True))
        except EmbedderError:  # the questions' own vectors are enough to search with
            pass

    failures: list[Exception] = []

    async def leg(run: Callable[[], Awaitable[None]]) -> None:
        # A leg that fails (the embedder answers 503 in a millisecond) lets the other finish:
        # a statement cancelled midway makes psycopg close its pooled connection.
        try:
            await run()
        except Exception as exc:
            failures.append(exc)

    async with anyio.create_task_group() as group:
        if needing:
            group.start_soon(leg, vector_legs)
        if any(plan.mode != "vector" for plan in plans):
            group.start_soon(leg, text_legs)
    if failures:  # what a leg raised (a 503 from the embedder)
        failure = failures[0]
        raise first_error(failure) if isinstance(failure, ExceptionGroup) else failure
    async with state.pool.connection() as conn:
        for i, gloss_vector in gloss_vectors.items():
            gloss, vector = glosses[i], vectors[i]
            if gloss is not None and vector is not None:
                vector_rows[i] = await glossed_candidates(
                    conn, index, project_id, plans[i], vector, gloss, gloss_vector, vector_rows[i]
                )
        return [
            await fused_results(
                conn, index, project_id, plan, vectors[i], vector_rows[i], text_rows[i]
            )
            for i, plan in enumerate(plans)
        ]


async def _term_stats(
    request: Request, conn: AsyncConnection, plans: list[SearchPlan]
) -> IndexStats | None:
    """The index's term statistics, when a plan has a full-text leg: a vector-only search does
    not look up whether they moved (IndexStatsCache reads that on each call)."""
    if all(plan.mode == "vector" for plan in plans):
        return None
    return await request.app.state.index_stats.current(conn)


def fuse(results: list[list[SearchResult]], k: int) -> list[UnionResult]:
    """Every chunk once, ranked by Σ 1/(k + rank) over the queries whose hits hold it."""
    best: dict[int, UnionResult] = {}
    score: dict[int, float] = {}
    for qi, hits in enumerate(results):
        rank = 0
        for hit in hits:
            if not hit.context:
                rank += 1
            item = best.get(hit.chunk_id)
            if item is None:
                fields = {f: getattr(hit, f) for f in hit.__struct_fields__}
                item = best[hit.chunk_id] = UnionResult(**fields, queries=[])
                score[hit.chunk_id] = 0.0
            elif item.context and not hit.context:
                item.context, item.context_for = False, None
                item.scores, item.highlights = hit.scores, hit.highlights
            if qi not in item.queries:
                item.queries.append(qi)
            if not hit.context:
                score[hit.chunk_id] += 1.0 / (k + rank)
    ordered = sorted(best.values(), key=lambda r: (-score[r.chunk_id], r.chunk_id))
    for item in ordered:
        item.score = round(score[item.chunk_id], 6)
    return ordered
