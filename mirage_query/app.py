"""The Litestar app: `create_app(settings)` builds it; nothing is read at import time."""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from litestar import Litestar, Request, Response, Router, get, post
from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.exceptions import NotAuthorizedException, NotFoundException, ValidationException
from litestar.handlers import BaseRouteHandler
from litestar.openapi import OpenAPIConfig
from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from mirage_pipeline.embedders import Embedder, create_embedder
from mirage_pipeline.settings import Settings, read_api_keys
from mirage_pipeline.store import prepare_database
from mirage_query.schemas import Health, SearchRequest, SearchResult
from mirage_query.search import find_project_id, search_vector

log = logging.getLogger("mirage_query")


def require_api_key(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """Every /api/v1 route needs one of the configured keys in X-API-Key (constant-time check)."""
    given = connection.headers.get("x-api-key", "").encode()
    keys: tuple[bytes, ...] = connection.app.state.api_keys
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(given, key)
    if not given or not matched:
        raise NotAuthorizedException(detail="missing or wrong X-API-Key")


def readable_validation_error(_: Request, exc: ValidationException) -> Response:
    """400 whose `detail` says what is wrong with the request, not only that something is."""
    problems = [
        f"{e.get('key') or 'body'}: {e.get('message')}"
        for e in (exc.extra if isinstance(exc.extra, list) else [])
        if isinstance(e, dict)
    ]
    detail = "invalid request: " + "; ".join(problems) if problems else exc.detail
    return Response({"status_code": 400, "detail": detail, "extra": exc.extra}, status_code=400)


@get("/health", summary="The process is up", sync_to_thread=False)
def health() -> Health:
    return Health(status="ok")


@get("/ready", summary="The database answers (Kubernetes readiness)")
async def ready(request: Request) -> Response[Health]:
    try:
        async with request.app.state.pool.connection(timeout=5) as conn:
            await conn.execute("SELECT 1")
    except Exception as exc:
        log.warning("not ready: %s", exc)
        return Response(Health(status="unavailable"), status_code=503)
    return Response(Health(status="ok"))


@post("/projects/{project:str}/search", status_code=200, summary="Search one project")
async def search(project: str, data: SearchRequest, request: Request) -> list[SearchResult]:
    state = request.app.state
    embedder: Embedder = state.embedder
    vector = await anyio.to_thread.run_sync(embedder.embed_query, data.query)
    async with state.pool.connection() as conn:
        project_id = await find_project_id(conn, project)
        if project_id is None:
            raise NotFoundException(detail=f"project {project!r} not found")
        return await search_vector(
            conn, state.index, project_id, vector, limit=data.limit, threshold=data.threshold
        )


async def _configure(conn: AsyncConnection) -> None:
    await register_vector_async(conn)


def create_app(settings: Settings, *, embedder: Embedder | None = None) -> Litestar:
    """The query service for `settings`; `settings.database_url` must be set."""
    if not settings.database_url:
        raise ValueError("the query service needs MIRAGE_DATABASE_URL (mirage up sets it)")
    keys = read_api_keys(settings)
    if not keys:
        raise ValueError("no API key: set MIRAGE_API_KEY (or run `mirage up`, which creates one)")

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        nonlocal embedder
        if embedder is None:
            embedder = await anyio.to_thread.run_sync(
                lambda: create_embedder(settings.embedder, ollama_host=settings.ollama_host)
            )
        index = await anyio.to_thread.run_sync(
            prepare_database, settings.database_url, embedder.name, embedder.dimension
        )
        log.info("index: %s (%d-d)", index.model, index.dimension)
        pool = AsyncConnectionPool(
            settings.database_url, min_size=1, max_size=8, configure=_configure, open=False
        )
        await pool.open(wait=True, timeout=30)
        app.state.pool = pool
        app.state.embedder = embedder
        app.state.index = index
        try:
            yield
        finally:
            await pool.close()

    api = Router(path="/api/v1", route_handlers=[search], guards=[require_api_key])
    return Litestar(
        route_handlers=[health, ready, api],
        lifespan=[lifespan],
        state=State({"api_keys": tuple(k.encode() for k in keys)}),
        exception_handlers={ValidationException: readable_validation_error},
        openapi_config=OpenAPIConfig(title="miRAGe", version="0.1.0", path="/schema"),
    )
