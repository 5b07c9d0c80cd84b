"""Request ids, one JSON log line per request, and Prometheus metrics per route."""

from __future__ import annotations

import logging
import re
import time
import uuid
from typing import Any

import structlog
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

log = logging.getLogger("mirage_query.access")

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class Metrics:
    """Request counts and latency histograms by (method, route template, status), in a registry
    of their own (one per app, so two apps in a process, as in tests, count apart)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._requests = Counter(
            "mirage_http_requests",
            "HTTP requests by method, route and status.",
            ("method", "route", "status"),
            registry=self.registry,
        )
        self._latency = Histogram(
            "mirage_http_request_duration_seconds",
            "HTTP request latency.",
            ("method", "route"),
            buckets=BUCKETS,
            registry=self.registry,
        )

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self._requests.labels(method, route, str(status)).inc()
        self._latency.labels(method, route).observe(seconds)

    def render(self) -> str:
        """The Prometheus text exposition format (version 0.0.4)."""
        return generate_latest(self.registry).decode()


class ObservabilityMiddleware(ASGIMiddleware):
    """Echoes or creates X-Request-ID, logs each request as JSON, records its metrics."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"
                ]
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await next_app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = scope.get("path_template") or "unmatched"
            method = scope.get("method", "")
            metrics: Metrics = scope["app"].state.metrics
            metrics.observe(method, route, status, seconds)
            log.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": method,
                    "route": route,
                    "path": scope.get("path"),
                    "status": status,
                    "ms": round(seconds * 1000, 2),
                },
            )


def _error_key(_: Any, __: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A traceback goes under `error`."""
    if "exception" in entry:
        entry["error"] = entry.pop("exception")
    return entry


def json_formatter() -> logging.Formatter:
    """One JSON object per line (structlog): time, level, logger, message, any `extra` fields,
    and the traceback under `error`."""
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.processors.TimeStamper(fmt="%Y-%m-%dT%H:%M:%S", utc=False, key="time"),
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.stdlib.ExtraAdder(),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.EventRenamer("message"),
            structlog.processors.format_exc_info,
            _error_key,
            structlog.processors.JSONRenderer(ensure_ascii=False, default=str),
        ],
    )


def configure_json_logging(level: int = logging.INFO) -> None:
    """The query service's own loggers write JSON lines to stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(json_formatter())
    for name in ("mirage_query",):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
