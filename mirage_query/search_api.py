"""The search routes: one query, or a batch of an agent's sub-questions run together."""

from __future__ import annotations

from uuid import UUID

import anyio
import numpy as np
from litestar import Request, post
from litestar.exceptions import NotFoundException

from mirage_pipeline.embedders import Embedder
from mirage_query.schemas import (
    BatchRequest,
    BatchResponse,
    SearchRequest,
    SearchResult,
    UnionResult,
)
from mirage_query.search import SearchPlan, clean_query, find_project_id, search_hybrid


async def _project(request: Request, project: str) -> UUID | None:
    """The project's id; None for a project whose folder exists but holds no index yet."""
    async with request.app.state.pool.connection() as conn:
        project_id = await find_project_id(conn, project)
    if project_id is None and not (request.app.state.settings.documents_dir / project).is_dir():
        raise NotFoundException(detail=f"project {project!r} not found")
    return project_id


async def _embed(request: Request, queries: list[str]) -> list[np.ndarray]:
    """The queries' vectors, embedded side by side (the embedder has an engine per core)."""
    embedder: Embedder = request.app.state.embedder
    vectors: list[np.ndarray] = [np.empty(0)] * len(queries)

    async def one(i: int, query: str) -> None:
        vectors[i] = await anyio.to_thread.run_sync(embedder.embed_query, clean_query(query))

    async with anyio.create_task_group() as group:
        for i, query in enumerate(queries):
            group.start_soon(one, i, query)
    return vectors


async def _run(request: Request, project_id: UUID, plan: SearchPlan, vector) -> list[SearchResult]:
    state = request.app.state
    async with state.pool.connection() as conn:
        common = await state.common_terms.current(conn)
        return await search_hybrid(conn, state.index, project_id, plan, vector, common)


def _plan(request: Request, body: SearchRequest) -> SearchPlan:
    return SearchPlan(
        query=body.query,
        limit=body.limit,
        mode=body.mode,
        threshold=body.threshold,
        filters=body.filters,
        expand=body.expand,
        rrf_k=request.app.state.settings.rrf_k,
        text_weight=request.app.state.settings.rrf_text_weight,
    )


@post("/projects/{project:str}/search", status_code=200, summary="Search one project")
async def search(project: str, data: SearchRequest, request: Request) -> list[SearchResult]:
    project_id = await _project(request, project)
    if project_id is None:
        return []
    plan = _plan(request, data)
    vector = None if plan.mode == "text" else (await _embed(request, [plan.query]))[0]
    return await _run(request, project_id, plan, vector)


@post(
    "/projects/{project:str}/search/batch",
    status_code=200,
    summary="Up to 8 searches at once, with a de-duplicated union",
)
async def batch_search(project: str, data: BatchRequest, request: Request) -> BatchResponse:
    project_id = await _project(request, project)
    plans = [
        SearchPlan(
            query=q.query,
            limit=q.limit if q.limit is not None else data.limit,
            mode=q.mode or data.mode,
            threshold=q.threshold if q.threshold is not None else data.threshold,
            filters=q.filters if q.filters is not None else data.filters,
            expand=q.expand if q.expand is not None else data.expand,
            rrf_k=request.app.state.settings.rrf_k,
            text_weight=request.app.state.settings.rrf_text_weight,
        )
        for q in data.queries
    ]
    if project_id is None:
        return BatchResponse(results=[[] for _ in plans], union=[])
    needing = [i for i, p in enumerate(plans) if p.mode != "text"]
    vectors: list[np.ndarray | None] = [None] * len(plans)
    for i, vector in zip(
        needing, await _embed(request, [plans[i].query for i in needing]), strict=True
    ):
        vectors[i] = vector
    state = request.app.state
    # one pooled connection for the whole batch: eight agents' batches never exhaust the pool
    async with state.pool.connection() as conn:
        common = await state.common_terms.current(conn)
        results = [
            await search_hybrid(conn, state.index, project_id, plan, vector, common)
            for plan, vector in zip(plans, vectors, strict=True)
        ]
    return BatchResponse(
        results=list(results), union=fuse(results, request.app.state.settings.rrf_k)
    )


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
