"""`mirage projects list | create NAME | delete NAME --yes`."""

from __future__ import annotations

import sys
from urllib.parse import quote

import click

from mirage_query.cli.client import USAGE, Api, CliError, json_option, print_json
from mirage_query.cli.output import table


@click.group()
def projects() -> None:
    """List, create and delete projects."""


@projects.command("list")
@json_option
def list_projects(as_json: bool) -> None:
    """Projects with their document and chunk counts."""
    found = Api.from_env().get("/projects")
    if as_json:
        print_json(found)
        return
    if not found:
        click.echo("no projects yet: `mirage projects create NAME` or `mirage documents add FILE`")
        return
    table(
        ["PROJECT", "DOCUMENTS", "CHUNKS", "READY", "PENDING", "ERRORS"],
        [
            [p["name"], p["documents"], p["chunks"], p["ready"], p["pending"], p["errors"]]
            for p in found
        ],
    )


@projects.command("create")
@click.argument("name")
@json_option
def create_project(name: str, as_json: bool) -> None:
    """Create the project NAME."""
    created = Api.from_env().post("/projects", json={"name": name})
    if as_json:
        print_json(created)
    else:
        click.echo(f"created project {created['name']}")


@projects.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask: delete the folder and the index.")
@json_option
def delete_project(name: str, yes: bool, as_json: bool) -> None:
    """Delete the project NAME: its documents folder and its index."""
    if not yes:
        if not sys.stdin.isatty():
            raise CliError(f"deleting {name!r} removes its documents and index: add --yes", USAGE)
        click.confirm(f"Delete project {name!r}, its documents and its index?", abort=True)
    deleted = Api.from_env().delete(f"/projects/{quote(name, safe='')}", params={"confirm": "true"})
    if as_json:
        print_json(deleted)
    else:
        click.echo(f"deleted project {name}")
