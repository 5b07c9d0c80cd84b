"""The Litestar app: `create_app(settings)` builds it; nothing is read at import time."""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import psycopg
from litestar import Litestar, Request, Response, Router, get
from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.exceptions import NotAuthorizedException, ValidationException
from litestar.handlers import BaseRouteHandler
from litestar.middleware import DefineMiddleware
from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from mirage_pipeline.embedders import Embedder, EmbedderUnavailable, create_embedder
from mirage_pipeline.settings import Settings, read_api_keys
from mirage_pipeline.store import prepare_database
from mirage_query.dagster_runs import DagsterRejected, DagsterRuns, DagsterUnavailable
from mirage_query.docs_ui import openapi_config
from mirage_query.documents_api import DocumentController, ProjectController
from mirage_query.observability import Metrics, ObservabilityMiddleware, configure_json_logging
from mirage_query.schemas import Health
from mirage_query.search import configure_session
from mirage_query.search_api import batch_search, search
from mirage_query.term_stats import IndexStatsCache

log = logging.getLogger("mirage_query")
RETRY_AFTER_SECONDS = 5


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


def database_unavailable(request: Request, exc: Exception) -> Response:
    """The database is down or unreachable: 503 and when to retry; the pool reconnects itself."""
    log.warning("database unavailable: %s", exc, extra={"request_id": _request_id(request)})
    reason = "busy" if isinstance(exc, PoolTimeout) else "unavailable"
    return Response(
        {"status_code": 503, "detail": f"the database is {reason}; retry shortly"},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def dependency_unavailable(request: Request, exc: Exception) -> Response:
    code = 502 if isinstance(exc, DagsterRejected) else 503
    log.warning("%s", exc, extra={"request_id": _request_id(request)})
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if code == 503 else {}
    return Response({"status_code": code, "detail": str(exc)}, status_code=code, headers=headers)


def internal_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error", exc_info=exc, extra={"request_id": _request_id(request)})
    return Response(
        {"status_code": 500, "detail": f"internal error (request id {_request_id(request)})"},
        status_code=500,
    )


def _request_id(request: Request) -> str | None:
    return request.scope.get("state", {}).get("request_id")


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


@get("/metrics", summary="Prometheus metrics", media_type="text/plain; version=0.0.4")
async def metrics(request: Request) -> str:
    return request.app.state.metrics.render()


async def _configure(conn: AsyncConnection) -> None:
    await register_vector_async(conn)
    await configure_session(conn)


def create_app(settings: Settings, *, embedder: Embedder | None = None) -> Litestar:
    """The query service for `settings`; `settings.database_url` must be set."""
    if not settings.database_url:
        raise ValueError("the query service needs MIRAGE_DATABASE_URL (mirage up sets it)")
    keys = read_api_keys(settings)
    if not keys:
        raise ValueError("no API key: set MIRAGE_API_KEY (or run `mirage up`, which creates one)")
    configure_json_logging()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        nonlocal embedder
        if embedder is None:
            embedder = await anyio.to_thread.run_sync(
                lambda: create_embedder(settings.embedder, ollama_host=settings.ollama_host)
            )
            if hasattr(embedder, "warm_up"):  # load the model now, not on the first search
                await anyio.to_thread.run_sync(embedder.warm_up)
        index = await anyio.to_thread.run_sync(
            prepare_database, settings.database_url, embedder.name, embedder.dimension
        )
        log.info("index: %s (%d-d)", index.model, index.dimension)
        pool = AsyncConnectionPool(
            settings.database_url,
            min_size=1,
            max_size=8,
            kwargs={"autocommit": True},  # a search is one statement: no BEGIN/COMMIT trips
            configure=_configure,
            check=AsyncConnectionPool.check_connection,  # a restarted database: reconnect
            timeout=3,  # a connection not found in 3 s: the database is down (503)
            open=False,
        )
        await pool.open(wait=True, timeout=30)
        app.state.pool = pool
        app.state.embedder = embedder
        app.state.index = index
        app.state.index_stats = IndexStatsCache()
        try:
            yield
        finally:
            await pool.close()

    api = Router(
        path="/api/v1",
        route_handlers=[search, batch_search, ProjectController, DocumentController],
        guards=[require_api_key],
    )
    unavailable = {
        exc: dependency_unavailable
        for exc in (DagsterUnavailable, DagsterRejected, EmbedderUnavailable)
    }
    return Litestar(
        route_handlers=[health, ready, metrics, api],
        lifespan=[lifespan],
        middleware=[DefineMiddleware(ObservabilityMiddleware)],
        state=State(
            {
                "api_keys": tuple(k.encode() for k in keys),
                "settings": settings,
                "metrics": Metrics(),
                "dagster": DagsterRuns(settings.dagster_url),
            }
        ),
        exception_handlers={
            ValidationException: readable_validation_error,
            psycopg.OperationalError: database_unavailable,
            psycopg.InterfaceError: database_unavailable,
            PoolTimeout: database_unavailable,
            **unavailable,
            500: internal_error,
        },
        openapi_config=openapi_config(title="miRAGe", version="0.1.0"),
    )
