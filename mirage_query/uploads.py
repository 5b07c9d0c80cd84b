"""Uploaded files: safe names, a multipart body streamed to disk (never held in memory), and
the file placed in the documents folder without following a symbolic link."""

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

from mirage_pipeline.documents_folder import is_ignored, resolve_inside
from mirage_pipeline.names import PROJECT_NAME_PATTERN, PROJECT_NAME_RULE

_PROJECT = re.compile(PROJECT_NAME_PATTERN)
_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"}
_WRITE_EVERY = 1 << 20
NAME_MAX = 255  # bytes in one file or folder name (ext4, XFS, Btrfs, ZFS, tmpfs)
PATH_MAX = 4096  # bytes in a whole path, the final NUL included (Linux)


class PayloadTooLarge(HTTPException):
    status_code = 413


class BadName(ClientException):
    """A file or project name the service refuses (400)."""


class Conflict(ClientException):
    """The request is fine but the documents folder holds something in its way (409)."""

    status_code = 409


def _shown(name: str) -> str:
    return repr(name if len(name) <= 80 else name[:80] + "…")


def check_project_name(name: str) -> str:
    """A name for a new project folder (created by the API)."""
    if not _PROJECT.match(name):
        raise BadName(detail=f"invalid project name {_shown(name)}: use {PROJECT_NAME_RULE}")
    return name


def project_folder_exists(root: Path, name: str) -> bool:
    """A real folder at the documents root; a symbolic link there is no project."""
    folder = root / name
    return folder.is_dir() and not folder.is_symlink()


def _too_long(part: str) -> str | None:
    size = len(part.encode("utf-8", "surrogatepass"))
    if size <= NAME_MAX:
        return None
    return (
        f"{_shown(part)} is {size} bytes long in UTF-8; a file system takes at most {NAME_MAX} "
        "bytes per name (a Cyrillic letter takes 2)"
    )


def safe_document_path(raw: str) -> str:
    """A relative '/'-separated path inside the project folder, or BadName saying why not.

    Any name a file system takes is accepted (long names, any script) except control and
    bidirectional-override characters, which disguise names, and names the indexer skips.
    """
    name = unicodedata.normalize("NFC", raw.replace("\\", "/"))
    if not name.strip():
        raise BadName(detail="empty file name")
    if "\x00" in name:
        raise BadName(detail=f"file name {_shown(raw)} contains a NUL character")
    if any(unicodedata.category(ch) in ("Cc", "Cs") or ch in _BIDI for ch in name):
        raise BadName(detail=f"file name {_shown(raw)} contains control characters")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise BadName(detail=f"file name {_shown(raw)} is absolute; give a path inside the project")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise BadName(detail=f"file name {_shown(raw)} leaves the project folder ('..')")
    if not parts:
        raise BadName(detail=f"file name {_shown(raw)} names no file")
    for part in parts:
        if reason := _too_long(part):
            raise BadName(detail=f"file name too long: {reason}")
    if any(is_ignored(p) for p in parts):
        raise BadName(
            detail=f"file name {_shown(raw)} would be ignored by the indexer "
            "(hidden, lock or partial-download name)"
        )
    return str(PurePosixPath(*parts))


def check_path_length(target: Path) -> None:
    """The whole path must fit the system's limit, not only each of its names."""
    size = len(os.fsencode(target))
    if size >= PATH_MAX:
        raise BadName(
            detail=f"path too long: the file's full path would be {size} bytes; "
            f"the system takes at most {PATH_MAX - 1}"
        )


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
                            received.path_field = _path_field(field_value)
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
                    elif current == "path":
                        field_value += event
                        if len(field_value) > PATH_MAX:
                            raise BadName(detail=f"the `path` field is over {PATH_MAX} bytes")
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


def _path_field(value: bytearray) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise BadName(detail="the `path` field is not UTF-8 text") from None


def place_file(temp: Path, root: Path, relative: str, *, replace: bool) -> bool:
    """Move the finished temp file to `root/relative` atomically, never through a symbolic link
    (OutsideDocumentsFolder); False if the file exists and not `replace`."""
    try:
        target = resolve_inside(root, relative)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise Conflict(
                detail=f"cannot place {relative!r}: a folder on its path is a file"
            ) from None
        target = resolve_inside(root, relative)  # no link was put on the path meanwhile
        if target.is_dir():
            raise Conflict(detail=f"cannot place {relative!r}: a folder has that name")
        if replace:
            os.replace(temp, target)  # replaces the name itself, never what a link points to
            return True
        try:
            os.link(temp, target)  # fails if the name exists: no check-then-write race
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
