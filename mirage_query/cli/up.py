"""`mirage up`: PostgreSQL, Dagster (webserver + daemon) and the query service in the foreground."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from mirage_query.cli.settings import load_settings

if TYPE_CHECKING:
    from mirage_query.stack import Stack


@click.command()
def up() -> None:
    """Run the local stack in the foreground until Ctrl-C.

    Drop files into $MIRAGE_HOME/documents/<project>/ and they become searchable.
    """
    from mirage_query.stack import Stack

    stack = Stack(load_settings(), echo=click.echo, on_ready=_banner)
    sys.exit(stack.run())


def _banner(stack: Stack) -> None:
    s = stack.settings
    key_place = "MIRAGE_API_KEY" if s.api_keys else str(s.api_key_file)
    rows = [
        ("Dagster UI", stack.dagster_url),
        ("Search API", f"{stack.api_url}/api/v1  (OpenAPI: {stack.api_url}/schema)"),
        ("Documents", f"{s.documents_dir}  (one folder per project)"),
        ("API key", f"in {key_place}"),
        ("Logs", str(stack.log_dir)),
    ]
    click.echo(click.style("\nmiRAGe is up.", bold=True))
    for label, value in rows:
        click.echo(f"  {label:<11} {value}")
    click.echo("Press Ctrl-C to stop.\n")
