"""The `mirage` command. One small module per command group; heavy imports stay inside commands."""

from __future__ import annotations

import click

from mirage_query.cli.inspect import inspect
from mirage_query.cli.search import search
from mirage_query.cli.serve import serve
from mirage_query.cli.up import up


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mirage-rag", prog_name="mirage")
def cli() -> None:
    """miRAGe: search the books and docs attached to your projects."""


cli.add_command(up)
cli.add_command(serve)
cli.add_command(search)
cli.add_command(inspect)


def main() -> None:
    cli(prog_name="mirage")
