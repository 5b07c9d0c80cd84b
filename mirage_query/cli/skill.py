"""`mirage skill install`: teach Claude Code to use miRAGe (writes SKILL.md)."""

from __future__ import annotations

import re
import shlex
from importlib.resources import files
from pathlib import Path

import click

from mirage_query.cli.link import cli_executable, on_path

DEFAULT_DIR = Path("~/.claude/skills/mirage")
# `mirage` where a command starts (not `.mirage.yaml`, `skills/mirage/` or the skill's name)
_COMMAND = re.compile(r"(?<![\w./-])mirage(?=[ `])")


def skill_text() -> str:
    """The SKILL.md shipped with this package."""
    return files("mirage_query.cli").joinpath("SKILL.md").read_text(encoding="utf-8")


def skill_for(command: str) -> str:
    """SKILL.md whose commands call `command` (the absolute path of a CLI not on PATH)."""
    text = skill_text()
    return text if command == "mirage" else _COMMAND.sub(lambda _: command, text)


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
    """Write SKILL.md into the skill folder; re-running updates it in place.

    The skill calls `mirage` when PATH finds this CLI, else this CLI's absolute path, so its
    commands work from any folder.
    """
    executable = cli_executable()
    plain = executable is None or on_path(executable)
    command = "mirage" if plain else shlex.quote(str(executable))
    target = (folder or DEFAULT_DIR).expanduser() / "SKILL.md"
    text = skill_for(command)
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        click.echo(f"{target} is up to date (it calls {command})")
        return
    existed = target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(".SKILL.md.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(target)
    click.echo(f"{'updated' if existed else 'installed'} {target}")
    if command != "mirage":
        click.echo(
            f"`mirage` is not on PATH, so the skill calls {command}; "
            "`mirage link` puts `mirage` on PATH"
        )
