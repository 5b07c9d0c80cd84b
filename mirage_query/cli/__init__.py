"""The `mirage` command. One small module per command group; heavy imports stay inside commands."""

from __future__ import annotations

import click

from mirage_query.cli.documents import documents
from mirage_query.cli.init import init
from mirage_query.cli.inspect import inspect
from mirage_query.cli.link import link
from mirage_query.cli.projects import projects
from mirage_query.cli.reindex import reindex
from mirage_query.cli.search import search
from mirage_query.cli.serve import serve
from mirage_query.cli.skill import skill
from mirage_query.cli.up import up


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mirage-rag", prog_name="mirage")
def cli() -> None:
    """miRAGe: search the books and docs attached to your projects.

    \b
    Exit codes: 0 ok, 1 failure, 2 usage, 3 not found,
    4 cannot reach the service, 5 API key refused.
    """


for command in (up, serve, init, projects, documents, search, reindex, inspect, skill, link):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="mirage")
