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
from psycopg_pool import PoolTimeout

from mirage_pipeline.documents_folder import OutsideDocumentsFolder
from mirage_pipeline.embedders import Embedder, EmbedderError, create_embedder
from mirage_pipeline.morphology import query_lemmas
from mirage_pipeline.store.schema import SchemaBehind
from mirage_query import errors
from mirage_query.database import DatabaseReachability, connection_pool
from mirage_query.docs_ui import openapi_config
from mirage_query.documents_api import DocumentController, ProjectController
from mirage_query.index_binding import IndexHolder, find_index
from mirage_query.observability import Metrics, ObservabilityMiddleware, configure_json_logging
from mirage_query.prewarm import start_prewarm
from mirage_query.query_vectors import QueryEmbedder
from mirage_query.request_limits import BodyDeadlineMiddleware, MirageRequest, check_project_param
from mirage_query.schemas import Health
from mirage_query.search_api import batch_search, search
from mirage_query.settings import ServiceSettings, read_api_keys
from mirage_query.term_stats import IndexStatsCache
from mirage_query.translation import load_dictionary

log = logging.getLogger("mirage_query")


async def require_api_key(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """Every /api/v1 route needs one of the configured keys in X-API-Key (constant-time check).
    A coroutine, as every guard here: Litestar runs a plain function's guard in a worker
    thread, a hand-off per guard and request (~4 % of the service's CPU per search)."""
    given = connection.headers.get("x-api-key", "").encode()
    keys: tuple[bytes, ...] = connection.app.state.api_keys
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(given, key)
    if not given or not matched:
        raise NotAuthorizedException(detail="missing or wrong X-API-Key")


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


def create_app(settings: ServiceSettings, *, embedder: Embedder | None = None) -> Litestar:
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
        await anyio.to_thread.run_sync(query_lemmas, "словарь")  # the Russian dictionary too
        app.state.dictionary = await anyio.to_thread.run_sync(load_dictionary, settings.dictionary)
        timeout = settings.query_embed_timeout
        try:
            index, failure = await anyio.to_thread.run_sync(
                lambda: find_index(settings.database_url, embedder, timeout=timeout)
            )
        except SchemaBehind as exc:  # refuse to serve, saying how to fix it
            log.error("not starting: %s", exc)
            raise
        app.state.query_embedder = QueryEmbedder(embedder, settings)
        if failure:  # the service starts all the same: text search needs no embedder
            log.warning(
                "%s; search in text mode only until it answers",
                app.state.query_embedder.unavailable(f"is unreachable: {failure}"),
            )
        if index is not None:
            log.info("index: %s (%d-d)", index.model, index.dimension)
        pool = connection_pool(settings.database_url, app.state.database)
        await pool.open(wait=True, timeout=30)
        start_prewarm(settings.database_url)  # first searches after a reboot: not from disk
        app.state.pool = pool
        app.state.embedder = embedder
        app.state.indexes = IndexHolder(settings.database_url, embedder, timeout, index, failure)
        app.state.index_stats = IndexStatsCache()
        try:
            yield
        finally:
            await pool.close()

    api = Router(
        path="/api/v1",
        route_handlers=[search, batch_search, ProjectController, DocumentController],
        guards=[require_api_key, check_project_param],
    )
    unavailable_database = {
        exc: errors.database_unavailable
        for exc in (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout)
    }
    return Litestar(
        route_handlers=[health, ready, metrics, api],
        lifespan=[lifespan],
        middleware=[ObservabilityMiddleware(), BodyDeadlineMiddleware()],
        request_class=MirageRequest,
        state=State(
            {
                "api_keys": tuple(k.encode() for k in keys),
                "settings": settings,
                "metrics": Metrics(),
                "database": DatabaseReachability(),
            }
        ),
        exception_handlers={
            ValidationException: errors.readable_validation_error,
            OutsideDocumentsFolder: errors.outside_documents_folder,
            **unavailable_database,
            EmbedderError: errors.embedder_unavailable,
            500: errors.internal_error,
        },
        openapi_config=openapi_config(title="miRAGe", version="0.1.0"),
    )
