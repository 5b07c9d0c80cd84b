"""How failures answer: 400 saying what is wrong with the request, 409 for a path the documents
folder refuses, 503 saying what is unavailable (with Retry-After), 500 with the request id."""

from __future__ import annotations

import logging

from litestar import Request, Response
from litestar.exceptions import ValidationException
from psycopg import errors as pg_errors
from psycopg_pool import PoolTimeout

from mirage_query.database import WAIT_SECONDS, DatabaseReachability

log = logging.getLogger("mirage_query")
RETRY_AFTER_SECONDS = 5


def request_id(request: Request) -> str | None:
    return request.scope.get("state", {}).get("request_id")


def readable_validation_error(_: Request, exc: ValidationException) -> Response:
    """400 whose `detail` says what is wrong with the request, not only that something is."""
    problems = [
        f"{e.get('key') or 'body'}: {e.get('message')}"
        for e in (exc.extra if isinstance(exc.extra, list) else [])
        if isinstance(e, dict)
    ]
    detail = "invalid request: " + "; ".join(problems) if problems else exc.detail
    return Response({"status_code": 400, "detail": detail, "extra": exc.extra}, status_code=400)


def outside_documents_folder(request: Request, exc: Exception) -> Response:
    """A path through a symbolic link (or out of the folder): nothing written or removed."""
    log.warning("refused: %s", exc, extra={"request_id": request_id(request)})
    return Response({"status_code": 409, "detail": str(exc)}, status_code=409)


def _unavailable(detail: str) -> Response:
    return Response(
        {"status_code": 503, "detail": detail},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def database_unavailable(request: Request, exc: Exception) -> Response:
    """The database is unreachable or busy: 503 saying which (the cause is logged, not sent);
    the pool reconnects by itself."""
    reachability: DatabaseReachability = request.app.state.database
    log.warning(
        "database unavailable: %s (last connect: %s)",
        exc,
        reachability.failure or "ok",
        extra={"request_id": request_id(request)},
    )
    if isinstance(exc, pg_errors.QueryCanceled):
        detail = "the database is busy (the statement was cancelled); retry shortly"
    elif isinstance(exc, PoolTimeout) and not reachability.unreachable:
        detail = f"the database is busy (no free connection within {WAIT_SECONDS} s); retry shortly"
    else:
        detail = "the database is unreachable; retry shortly (the service reconnects by itself)"
    return _unavailable(detail)


def embedder_unavailable(request: Request, exc: Exception) -> Response:
    """The query embedder failed or did not answer: searches that need a vector wait for it."""
    log.warning("%s", exc, extra={"request_id": request_id(request)})
    return _unavailable(str(exc))


def internal_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error", exc_info=exc, extra={"request_id": request_id(request)})
    return Response(
        {"status_code": 500, "detail": f"internal error (request id {request_id(request)})"},
        status_code=500,
    )
