"""`mirage skill install`: teach Claude Code to use miRAGe (writes SKILL.md)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import click

DEFAULT_DIR = Path("~/.claude/skills/mirage")


def skill_text() -> str:
    """The SKILL.md shipped with this package."""
    return files("mirage_query.cli").joinpath("SKILL.md").read_text(encoding="utf-8")


@click.group()
def skill() -> None:
    """The Claude Code skill for miRAGe."""


@skill.command("install")
@click.option(
    "--path",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"Skill folder (default: {DEFAULT_DIR}/).",
)
def install(folder: Path | None) -> None:
    """Write SKILL.md into the skill folder; re-running updates it in place."""
    target = (folder or DEFAULT_DIR).expanduser() / "SKILL.md"
    text = skill_text()
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        click.echo(f"{target} is up to date")
        return
    existed = target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(".SKILL.md.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(target)
    click.echo(f"{'updated' if existed else 'installed'} {target}")
