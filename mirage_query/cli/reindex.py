"""`mirage reindex`: ask the service to launch Dagster runs for a project or one document."""

from __future__ import annotations

from urllib.parse import quote

import click

from mirage_query.cli.client import Api, json_option, print_json, project_option, resolve_project
from mirage_query.cli.documents import documents_path, find_document
from mirage_query.cli.output import table


@click.command()
@project_option
@click.option("--document", "-d", "doc", default=None, help="Only this document (id or file name).")
@json_option
def reindex(project: str | None, doc: str | None, as_json: bool) -> None:
    """Re-index every document of the project (or one) and print the Dagster run ids."""
    project = resolve_project(project)
    api = Api.from_env()
    if doc:
        found = find_document(api, project, doc)
        launched = api.post(f"{documents_path(project)}/{found['id']}/reindex")
    else:
        launched = api.post(f"/projects/{quote(project, safe='')}/reindex")
    if as_json:
        print_json(launched)
        return
    runs = launched["runs"]
    if not runs:
        click.echo(f"nothing to re-index in {project}")
        return
    table(["DOCUMENT", "RUN ID"], [[r["partition"], r["run_id"]] for r in runs])
    waiting = sum(1 for r in runs if r.get("already_queued"))
    launched = len(runs) - waiting
    summary = f"{launched} run{'' if launched == 1 else 's'} launched"
    if waiting:
        summary += f", {waiting} already queued or running (not launched again)"
    click.echo(f"\n{summary}; follow them in the Dagster UI")
