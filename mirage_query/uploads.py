"""Uploaded files: safe names, and a multipart body streamed to disk, never held in memory."""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import anyio
import multipart
from litestar.exceptions import ClientException, HTTPException

from mirage_pipeline.documents_folder import is_ignored

_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"}
_WRITE_EVERY = 1 << 20


class PayloadTooLarge(HTTPException):
    status_code = 413


class BadName(ClientException):
    """A file or project name the service refuses (400)."""


def check_project_name(name: str) -> str:
    if not _PROJECT.match(name):
        raise BadName(
            detail=f"invalid project name {name!r}: use letters, digits, '.', '_' and '-' "
            "(up to 64, starting with a letter or digit)"
        )
    return name


def safe_document_path(raw: str) -> str:
    """A relative '/'-separated path inside the project folder, or BadName saying why not."""
    name = unicodedata.normalize("NFC", raw.replace("\\", "/"))
    if not name.strip():
        raise BadName(detail="empty file name")
    if any(unicodedata.category(ch) == "Cc" or ch in _BIDI for ch in name):
        raise BadName(detail=f"file name {raw!r} contains control characters")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise BadName(detail=f"file name {raw!r} is absolute; give a path inside the project")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise BadName(detail=f"file name {raw!r} leaves the project folder ('..')")
    if not parts:
        raise BadName(detail=f"file name {raw!r} names no file")
    if any(is_ignored(p) for p in parts):
        raise BadName(
            detail=f"file name {raw!r} would be ignored by the indexer "
            "(hidden, lock or partial-download name)"
        )
    if any(len(p.encode()) > 255 for p in parts) or len(name) > 1000:
        raise BadName(detail=f"file name {raw[:80]!r}… is too long")
    return str(PurePosixPath(*parts))


@dataclass
class ReceivedFile:
    temp: Path
    filename: str | None  # from the part's Content-Disposition
    path_field: str | None  # the optional `path` form field
    size: int


def _boundary(content_type: str) -> str:
    kind, options = multipart.parse_options_header(content_type)
    if kind != "multipart/form-data" or not options.get("boundary"):
        raise ClientException(detail="expected a multipart/form-data body with a `file` field")
    return options["boundary"]


async def receive_upload(
    stream: AsyncIterator[bytes], content_type: str, folder: Path, limit: int
) -> ReceivedFile:
    """Stream the `file` part into a hidden temp file in `folder`; the caller renames it."""
    boundary = _boundary(content_type)
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".upload-{uuid.uuid4().hex}.part"
    out = temp.open("wb")
    received = ReceivedFile(temp=temp, filename=None, path_field=None, size=0)
    current: str | None = None
    field_value = bytearray()
    pending = bytearray()
    try:
        with multipart.PushMultipartParser(boundary, max_segment_count=8) as parser:
            async for chunk in stream:
                for event in parser.parse(chunk):
                    if isinstance(event, multipart.MultipartSegment):
                        current = event.name
                        if current == "file":
                            if received.filename is not None:
                                raise ClientException(detail="only one `file` per upload")
                            received.filename = event.filename or ""
                        field_value.clear()
                    elif event is None:
                        if current == "path":
                            received.path_field = field_value.decode("utf-8", "replace")
                        current = None
                    elif current == "file":
                        received.size += len(event)
                        if received.size > limit:
                            raise PayloadTooLarge(
                                detail=f"file is larger than the limit of {limit} bytes "
                                "(MIRAGE_MAX_UPLOAD_MB)"
                            )
                        pending += event
                        if len(pending) >= _WRITE_EVERY:
                            await anyio.to_thread.run_sync(out.write, bytes(pending))
                            pending.clear()
                    elif current == "path" and len(field_value) < 4096:
                        field_value += event
        if pending:
            await anyio.to_thread.run_sync(out.write, bytes(pending))
        out.close()
    except multipart.MultipartError as exc:
        out.close()
        temp.unlink(missing_ok=True)
        raise ClientException(detail=f"malformed multipart body: {exc}") from exc
    except BaseException:
        out.close()
        temp.unlink(missing_ok=True)
        raise
    if received.filename is None:
        temp.unlink(missing_ok=True)
        raise ClientException(detail="the multipart body has no `file` field")
    return received


def place_file(temp: Path, target: Path, *, replace: bool) -> bool:
    """Move the finished temp file to `target` atomically; False if it exists and not `replace`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if replace:
            os.replace(temp, target)
            return True
        try:
            os.link(temp, target)  # fails if the name exists: no check-then-write race
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
