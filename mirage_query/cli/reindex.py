"""`mirage reindex`: ask the service to re-index a project or one document (a re-index request
the documents sensor turns into batched runs within seconds)."""

from __future__ import annotations

from urllib.parse import quote

import click

from mirage_query.cli.client import Api, json_option, print_json, project_option, resolve_project
from mirage_query.cli.documents import documents_path, find_document
from mirage_query.cli.output import table
from mirage_query.cli.progress import wait_and_report


@click.command()
@project_option
@click.option("--document", "-d", "doc", default=None, help="Only this document (id or file name).")
@click.option("--wait", is_flag=True, help="Show progress until each document is ready again.")
@click.option("--timeout", type=click.IntRange(1), default=1800, show_default=True, metavar="S")
@json_option
def reindex(project: str | None, doc: str | None, wait: bool, timeout: int, as_json: bool) -> None:
    """Re-index every document of the project (or one): they turn `pending` now and are
    indexed in batched runs within seconds; `--wait` shows them until they are ready."""
    project = resolve_project(project)
    api = Api.from_env()
    if doc:
        found = find_document(api, project, doc)
        requested = api.post(f"{documents_path(project)}/{found['id']}/reindex")
    else:
        requested = api.post(f"/projects/{quote(project, safe='')}/reindex")
    documents = requested["documents"]
    if wait and documents:
        wait_and_report(api, project, documents, timeout=timeout, as_json=as_json)
        return
    if as_json:
        print_json(requested)
        return
    if not documents:
        click.echo(f"nothing to re-index in {project}")
        return
    table(["DOCUMENT", "STATUS"], [[d["filename"], d["status"]] for d in documents])
    n = len(documents)
    again = " (already requested: not added again)" if requested.get("already_requested") else ""
    click.echo(
        f"\nre-index request {requested['request_id']}{again}: {n} document{'' if n == 1 else 's'}"
        " pending; the documents sensor indexes them within seconds (`mirage documents list`"
        " or the Dagster UI shows their progress)"
    )
