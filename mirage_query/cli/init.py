"""`mirage init`: write `.mirage.yaml` so commands in this folder know their project."""

from __future__ import annotations

import re
from pathlib import Path

import click
import yaml

from mirage_pipeline.names import CONFIG_FILE, PROJECT_NAME_PATTERN, PROJECT_NAME_RULE
from mirage_query.cli.client import USAGE, CliError, read_config

_NAME = re.compile(PROJECT_NAME_PATTERN)


def default_name(folder: Path) -> str:
    """The folder's name made into a valid project name."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.name).strip("-._")[:64]
    return name or "default"


@click.command()
@click.argument("project", required=False)
@click.option("--force", is_flag=True, help="Replace a different project_id already set here.")
def init(project: str | None, force: bool) -> None:
    """Write .mirage.yaml with project_id: PROJECT (default: this folder's name)."""
    here = Path.cwd()
    name = project or default_name(here)
    if not _NAME.match(name):
        raise CliError(
            f"{name!r} is not a valid project name ({PROJECT_NAME_RULE})",
            USAGE,
        )
    path = here / CONFIG_FILE
    data = read_config(path) if path.is_file() else {}
    current = data.get("project_id")
    if current and str(current) != name and not force:
        raise CliError(f"{path} already says project_id: {current} (use --force to change)")
    data["project_id"] = name
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    click.echo(f"wrote {path} (project_id: {name})")
