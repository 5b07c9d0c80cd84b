"""Projects and documents over HTTP. Files go to the documents folder, where the documents sensor
picks them up; the rows the API changes go through the pipeline's store functions
(`mirage_pipeline.store`), the one writer of the index — this module only reads."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Annotated, TypeVar
from uuid import UUID

import anyio
import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.exceptions import ClientException, NotFoundException
from litestar.params import Parameter
from psycopg import AsyncConnection

from mirage_pipeline.documents_folder import (
    OutsideDocumentsFolder,
    document_key,
    is_ignored,
    project_names,
    resolve_inside,
    scan_documents,
)
from mirage_pipeline.parsing import PARSERS, file_type_of
from mirage_pipeline.store import documents as store
from mirage_pipeline.store.connections import connect
from mirage_pipeline.store.reindex import request_reindex
from mirage_query import catalog
from mirage_query.schemas import (
    Accepted,
    ChunkPage,
    Deleted,
    DocumentInfo,
    ProjectCreate,
    ProjectInfo,
    ProjectState,
    ReindexedDocument,
    ReindexRequested,
)
from mirage_query.uploads import (
    Conflict,
    PayloadTooLarge,
    check_path_length,
    check_project_name,
    place_file,
    project_folder_exists,
    receive_upload,
    safe_document_path,
)

MAX_OFFSET = 2**31 - 1  # chunk positions are PostgreSQL integers
T = TypeVar("T")


class Unprocessable(ClientException):
    status_code = 422


def _check_type(path: str) -> None:
    """A file the indexer has no parser for is refused before it lands in the folder."""
    suffix = PurePosixPath(path).suffix.lower()
    if path and suffix not in PARSERS:
        supported = ", ".join(sorted(PARSERS))
        raise Unprocessable(
            detail=f"unsupported file type {suffix or '(none)'!r} for {path!r}; "
            f"miRAGe indexes {supported}"
        )


def _documents_dir(request: Request) -> Path:
    return request.app.state.settings.documents_dir


async def _require_document(conn: AsyncConnection, project: str, document_id: str) -> DocumentInfo:
    try:
        doc_uuid = UUID(document_id)
    except ValueError:
        raise NotFoundException(detail=f"document {document_id!r} not found") from None
    found = await catalog.document(conn, project, doc_uuid)
    if found is None:
        raise NotFoundException(detail=f"document {document_id} not found in project {project!r}")
    return found


async def _store(request: Request, write: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Run one of the store's writes on its own connection, in a worker thread."""

    def run() -> T:
        with connect(request.app.state.settings.database_url) as conn:
            return write(conn, *args, **kwargs)

    return await anyio.to_thread.run_sync(run)


async def _request_reindex(
    request: Request, project: str, path: str | None, documents: list[str]
) -> ReindexRequested:
    """Record the request (the documents become `pending`); the documents sensor indexes them
    in batched runs at its next tick, as it does for the Dagster UI's `reindex_project`."""
    found = await _store(request, request_reindex, project, path, documents=documents)
    return ReindexRequested(
        request_id=found.id,
        documents=[ReindexedDocument(id=str(i), filename=p) for i, p in found.documents],
        already_requested=not found.new,
    )


def _remove_file(root: Path, project: str, path: str) -> None:
    """Unlink the document's file; a link is removed itself, never what it points to, and a
    path through a linked folder is refused (nothing outside the folder is touched)."""
    relative = PurePosixPath(project, path)
    try:
        folder = resolve_inside(root, relative.parent)
    except OutsideDocumentsFolder as exc:
        raise Conflict(
            detail=f"not deleted: {exc}; remove the link from the documents folder instead"
        ) from None
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        (folder / relative.name).unlink()


def _file_exists(root: Path, key: str) -> bool:
    """The document's file is in the folder (a link or a path through one does not count)."""
    try:
        return resolve_inside(root, key).is_file()
    except OutsideDocumentsFolder:
        return False


def _remove_project_folder(folder: Path) -> None:
    if folder.is_symlink():
        folder.unlink()  # the link only, never the folder it points to
    else:
        shutil.rmtree(folder, ignore_errors=True)


class ProjectController(Controller):
    path = "/projects"

    @get("/", summary="Projects: folders and indexed ones, with document counts")
    async def list_projects(self, request: Request) -> list[ProjectInfo]:
        async with request.app.state.pool.connection() as conn:
            found = {p.name: p for p in await catalog.projects(conn)}
        for name in await anyio.to_thread.run_sync(project_names, _documents_dir(request)):
            found.setdefault(name, ProjectInfo(name=name))
        return [found[name] for name in sorted(found)]

    @post("/", status_code=201, summary="Create a project (its folder)")
    async def create_project(self, data: ProjectCreate, request: Request) -> ProjectInfo:
        folder = _documents_dir(request) / data.name
        async with request.app.state.pool.connection() as conn:
            if folder.exists() or folder.is_symlink() or await catalog.project_id(conn, data.name):
                raise Conflict(detail=f"project {data.name!r} exists")
        folder.mkdir(parents=True)
        await _store(request, store.upsert_project, data.name)
        return ProjectInfo(name=data.name)

    @get("/{project:str}", summary="One project: document counts, and files not yet picked up")
    async def get_project(self, project: str, request: Request) -> ProjectState:
        # any folder name the documents sensor indexes, not only the ones the API creates
        if project in ("", ".", "..") or "/" in project or is_ignored(project):
            raise NotFoundException(detail=f"project {project!r} not found")
        root = _documents_dir(request)
        files = await anyio.to_thread.run_sync(scan_documents, root, project)
        async with request.app.state.pool.connection() as conn:
            found = await catalog.project(conn, project)
            indexed = await catalog.document_sizes(conn, project)
        if found is None and not project_folder_exists(root, project):
            raise NotFoundException(detail=f"project {project!r} not found")
        now = time.time()
        written = [f.mtime_ns / 1e9 for f in files if f.mtime_ns / 1e9 <= now + 1]  # not future
        present = {f.path for f in files}
        return ProjectState(
            **(msgspec.structs.asdict(found) if found else {"name": project}),
            unseen=[f.path for f in files if f.path not in indexed],
            changed=[
                f.path
                for f in files
                if indexed.get(f.path) is not None and indexed[f.path] != f.size
            ],
            gone=sorted(path for path in indexed if path not in present),
            seconds_since_last_write=max(0.0, now - max(written)) if written else None,
        )

    @delete("/{project:str}", status_code=200, summary="Delete a project (needs ?confirm=true)")
    async def delete_project(
        self, project: str, request: Request, confirm: bool = False
    ) -> Deleted:
        check_project_name(project)
        folder = _documents_dir(request) / project
        async with request.app.state.pool.connection() as conn:
            exists = await catalog.project_id(conn, project)
            if not exists and not folder.is_dir() and not folder.is_symlink():
                raise NotFoundException(detail=f"project {project!r} not found")
            if not confirm:
                raise Conflict(
                    detail=f"deleting project {project!r} removes its folder and index: "
                    "repeat with ?confirm=true"
                )
        await anyio.to_thread.run_sync(_remove_project_folder, folder)
        await _store(request, store.delete_project, project)
        return Deleted(deleted=True, name=project)

    @post("/{project:str}/reindex", status_code=202, summary="Re-index every document")
    async def reindex_project(self, project: str, request: Request) -> ReindexRequested:
        check_project_name(project)
        resolve_inside(_documents_dir(request), project)  # a project that is a link: 409
        files = await anyio.to_thread.run_sync(scan_documents, _documents_dir(request), project)
        async with request.app.state.pool.connection() as conn:
            indexed = await catalog.project_id(conn, project)
        if not files and not indexed:
            raise NotFoundException(detail=f"project {project!r} not found")
        return await _request_reindex(request, project, None, [f.path for f in files])


class DocumentController(Controller):
    path = "/projects/{project:str}/documents"

    @get("/", summary="Documents of a project with their indexing status")
    async def list_documents(self, project: str, request: Request) -> list[DocumentInfo]:
        async with request.app.state.pool.connection() as conn:
            project_id = await catalog.project_id(conn, project)
            if project_id is None:
                if project_folder_exists(_documents_dir(request), project):
                    return []
                raise NotFoundException(detail=f"project {project!r} not found")
            return await catalog.documents(conn, project_id)

    @post(
        "/",
        status_code=202,
        summary="Upload a file (multipart field `file`, optional field `path`)",
        request_max_body_size=None,
    )
    async def upload_document(
        self, project: str, request: Request, replace: bool = False
    ) -> Accepted:
        check_project_name(project)
        limit: int = request.app.state.settings.max_upload_bytes
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit + 65536:
            raise PayloadTooLarge(
                detail=f"file is larger than the limit of {limit} bytes (MIRAGE_MAX_UPLOAD_MB)"
            )
        root = _documents_dir(request)
        folder = resolve_inside(root, project)  # a project that is a link is refused (409)
        received = await receive_upload(
            request.stream(), request.headers.get("content-type", ""), folder, limit
        )
        try:
            path = safe_document_path(received.path_field or received.filename or "")
            _check_type(path)
            check_path_length(folder / path)
        except ClientException:
            received.temp.unlink(missing_ok=True)
            raise
        placed = await anyio.to_thread.run_sync(
            lambda: place_file(received.temp, root, f"{project}/{path}", replace=replace)
        )
        if not placed:
            raise Conflict(detail=f"{path!r} exists in project {project!r}; use ?replace=true")
        document_id = await _store(
            request,
            store.mark_document_pending,
            project=project,
            path=path,
            file_type=file_type_of(path),
            size_bytes=received.size,
        )
        return Accepted(id=str(document_id), filename=path, status="pending")

    @get("/{document_id:str}", summary="One document")
    async def get_document(self, project: str, document_id: str, request: Request) -> DocumentInfo:
        async with request.app.state.pool.connection() as conn:
            return await _require_document(conn, project, document_id)

    @delete("/{document_id:str}", status_code=200, summary="Delete a document (file and index)")
    async def delete_document(self, project: str, document_id: str, request: Request) -> Deleted:
        async with request.app.state.pool.connection() as conn:
            doc = await _require_document(conn, project, document_id)
        await anyio.to_thread.run_sync(_remove_file, _documents_dir(request), project, doc.filename)
        await _store(request, store.delete_document, project=project, path=doc.filename)
        return Deleted(deleted=True, id=doc.id, name=doc.filename)

    @post("/{document_id:str}/reindex", status_code=202, summary="Re-index one document")
    async def reindex_document(
        self, project: str, document_id: str, request: Request
    ) -> ReindexRequested:
        async with request.app.state.pool.connection() as conn:
            doc = await _require_document(conn, project, document_id)
        exists = await anyio.to_thread.run_sync(
            _file_exists, _documents_dir(request), document_key(project, doc.filename)
        )
        paths = [doc.filename] if exists else []
        return await _request_reindex(request, project, doc.filename, paths)

    @get("/{document_id:str}/chunks", summary="A document's chunks, for debugging")
    async def document_chunks(
        self,
        project: str,
        document_id: str,
        request: Request,
        offset: Annotated[int, Parameter(ge=0, le=MAX_OFFSET)] = 0,
        limit: Annotated[int, Parameter(ge=1, le=500)] = 50,
    ) -> ChunkPage:
        index = await request.app.state.indexes.current()
        index_id = index.id if index is not None else None  # no index yet: no chunks
        async with request.app.state.pool.connection() as conn:
            doc = await _require_document(conn, project, document_id)
            return await catalog.chunk_page(conn, UUID(doc.id), index_id, offset, limit)
