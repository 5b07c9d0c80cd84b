"""What the service takes from a request before a handler sees it: a body that keeps arriving,
JSON it can decode, and a project name that could name a folder — each refused with a 4xx
saying why, never a 500 or a connection held open."""

from __future__ import annotations

from typing import Any

import anyio
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.exceptions import ClientException, HTTPException
from litestar.handlers import BaseRouteHandler
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from mirage_query.uploads import NAME_MAX


class RequestTimeout(HTTPException):
    status_code = 408


class MirageRequest(Request):
    """A request whose JSON body fails to decode answers 400 for every way it can fail."""

    async def json(self) -> Any:
        try:
            return await super().json()
        except UnicodeDecodeError as exc:
            raise ClientException(
                detail=f"the JSON body is not valid UTF-8 (byte {exc.start})"
            ) from None
        except RecursionError:
            raise ClientException(detail="the JSON body is nested too deeply") from None


class BodyDeadlineMiddleware(ASGIMiddleware):
    """A body that stops arriving (a Content-Length larger than what is sent) answers 408 after
    MIRAGE_REQUEST_BODY_TIMEOUT seconds without a byte, instead of holding the request open."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        timeout: float = scope["app"].state.settings.request_body_timeout
        complete = False

        async def receive_in_time() -> Message:
            nonlocal complete
            if complete:  # after the body, receive() waits for a disconnect: no deadline
                return await receive()
            with anyio.move_on_after(timeout):
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body", False):
                    complete = True
                return message
            raise RequestTimeout(
                detail=f"the request body stopped arriving: nothing for {timeout:g} s "
                "(is its Content-Length larger than what was sent?)"
            )

        await next_app(scope, receive_in_time, send)


def project_name_problem(name: str) -> str | None:
    """Why `name` cannot name a project folder, or None."""
    if "\x00" in name:
        return "it contains a NUL character"
    if name in (".", ".."):
        return "it is not a folder name"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "it is not valid UTF-8"
    if size > NAME_MAX:
        return f"it is {size} bytes long; a folder name takes at most {NAME_MAX}"
    return None


async def check_project_param(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """Every route's `{project}` must be a possible folder name (400), before any query."""
    name = connection.path_params.get("project")
    if isinstance(name, str) and (problem := project_name_problem(name)):
        shown = name if len(name) <= 80 else name[:80] + "…"
        raise ClientException(detail=f"invalid project name {shown!r}: {problem}")
