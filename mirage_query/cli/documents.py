"""`mirage documents list | add FILE... [--wait] | wait | remove DOC | status DOC | chunks DOC`.

DOC is a document id or its file name (the path inside the project, or a unique base name).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click

from mirage_query.cli.client import (
    FAILURE,
    NOT_FOUND,
    USAGE,
    Api,
    CliError,
    json_option,
    print_json,
    project_option,
    resolve_project,
)
from mirage_query.cli.folder_wait import wait_and_report_folder
from mirage_query.cli.output import citation, table
from mirage_query.cli.progress import wait_and_report
from mirage_query.document_refs import resolve_document


def documents_path(project: str) -> str:
    return f"/projects/{quote(project, safe='')}/documents"


def find_document(api: Api, project: str, ref: str) -> dict[str, Any]:
    """The document object for an id, a path in the project, or a unique base name."""
    try:
        doc_id = str(uuid.UUID(ref))
    except ValueError:
        doc_id = None
    if doc_id:
        return api.get(f"{documents_path(project)}/{doc_id}")
    listing = api.get(documents_path(project))
    found, shared = resolve_document([(d["id"], d["filename"]) for d in listing], ref)
    if found is not None:
        return next(d for d in listing if d["id"] == found)
    if shared:
        paths = ", ".join(shared)
        raise CliError(f"{ref!r} matches several documents ({paths}): give the path", USAGE)
    raise CliError(f"no document {ref!r} in project {project!r}", NOT_FOUND)


@click.group()
def documents() -> None:
    """List, add, remove and inspect the documents of a project."""


@documents.command("list")
@project_option
@json_option
def list_documents(project: str | None, as_json: bool) -> None:
    """Documents of the project with their indexing status."""
    project = resolve_project(project)
    found = Api.from_env().get(documents_path(project))
    if as_json:
        print_json(found)
        return
    if not found:
        click.echo(f"no documents in {project}: `mirage documents add FILE --wait`")
        return
    table(
        ["DOCUMENT", "TYPE", "STATUS", "CHUNKS", "SIZE", "ID"],
        [
            [
                d["filename"],
                d["file_type"],
                d["status"],
                d["chunk_count"],
                _size(d.get("size_bytes")),
                d["id"],
            ]
            for d in found
        ],
    )
    for d in found:
        if d["status"] == "error":
            click.echo(f"error in {d['filename']}: {d.get('error')}", err=True)


@documents.command("add")
@project_option
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--replace", is_flag=True, help="Replace a document of the same name.")
@click.option("--wait", is_flag=True, help="Show progress until each file is ready (or failed).")
@click.option("--timeout", type=click.IntRange(1), default=1800, show_default=True, metavar="S")
@json_option
def add_documents(
    project: str | None,
    files: tuple[str, ...],
    replace: bool,
    wait: bool,
    timeout: int,
    as_json: bool,
) -> None:
    """Upload FILES to the project; the pipeline indexes them."""
    project = resolve_project(project)
    api = Api.from_env()
    accepted = []
    for name in files:
        path = Path(name)
        with path.open("rb") as handle:
            accepted.append(
                api.post(
                    documents_path(project),
                    files={"file": (path.name, handle, "application/octet-stream")},
                    params={"replace": "true"} if replace else None,
                )
            )
        if not as_json:
            click.echo(f"uploaded {path.name} → {project}/{accepted[-1]['filename']} (pending)")
    if not wait:
        if as_json:
            print_json(accepted)
        return
    wait_and_report(api, project, accepted, timeout=timeout, as_json=as_json)


@documents.command("wait")
@project_option
@click.option("--timeout", type=click.IntRange(1), default=1800, show_default=True, metavar="S")
@json_option
def wait_documents(project: str | None, timeout: int, as_json: bool) -> None:
    """Wait until every file in the project's folder is indexed: dropped, copied or edited there
    as well as uploaded. Exits 1 naming each document in error (or not indexed in time)."""
    project = resolve_project(project)
    wait_and_report_folder(Api.from_env(), project, timeout=timeout, as_json=as_json)


@documents.command("remove")
@project_option
@click.argument("doc")
@json_option
def remove_document(project: str | None, doc: str, as_json: bool) -> None:
    """Remove DOC (id or file name): its file and its chunks."""
    project = resolve_project(project)
    api = Api.from_env()
    found = find_document(api, project, doc)
    deleted = api.delete(f"{documents_path(project)}/{found['id']}")
    if as_json:
        print_json(deleted)
    else:
        click.echo(f"removed {found['filename']} from {project}")


@documents.command("status")
@project_option
@click.argument("doc")
@json_option
def document_status(project: str | None, doc: str, as_json: bool) -> None:
    """Indexing status of DOC (id or file name); exits 1 when it is in error."""
    project = resolve_project(project)
    found = find_document(Api.from_env(), project, doc)
    if as_json:
        print_json(found)
    else:
        _print_status(found)
    if found["status"] == "error":
        raise SystemExit(FAILURE)


def _print_status(found: dict[str, Any]) -> None:
    fields = [
        ("document", found["filename"]),
        ("title", found.get("title")),
        ("id", found["id"]),
        ("type", found["file_type"]),
        ("status", found["status"]),
        ("chunks", found["chunk_count"]),
        ("size", _size(found.get("size_bytes"))),
        ("indexed", found.get("indexed_at")),
        ("updated", found.get("updated_at")),
    ]
    if found.get("error"):
        fields.append(("error", found["error"]))
    fields += [("warning", w) for w in found.get("warnings") or ()]
    for label, value in fields:
        click.echo(f"{label + ':':<10} {'-' if value is None else value}")


@documents.command("chunks")
@project_option
@click.argument("doc")
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option("--limit", "-n", type=click.IntRange(1, 500), default=50, show_default=True)
@json_option
def document_chunks(project: str | None, doc: str, offset: int, limit: int, as_json: bool) -> None:
    """The chunks of DOC (id or file name) in document order."""
    project = resolve_project(project)
    api = Api.from_env()
    found = find_document(api, project, doc)
    page = api.get(
        f"{documents_path(project)}/{found['id']}/chunks", params={"offset": offset, "limit": limit}
    )
    if as_json:
        print_json(page)
        return
    rows = []
    for item in page["items"]:
        text = " ".join(item["content"].split())
        rows.append(
            [
                item["position"],
                (item.get("metadata") or {}).get("tokens"),
                citation(item) or "-",
                text[:60] + ("…" if len(text) > 60 else ""),
            ]
        )
    table(["#", "TOKENS", "WHERE", "TEXT"], rows)
    shown = f"{offset + 1}–{offset + len(page['items'])}" if page["items"] else "none"
    click.echo(f"\n{found['filename']}: chunks {shown} of {page['total']}")


def _size(size: int | None) -> str:
    if size is None:
        return "-"
    for unit in ("B", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"
