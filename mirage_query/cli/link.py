"""`mirage link`: put this installation's `mirage` on PATH, so it works without the venv."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from mirage_query.cli.client import CliError

DEFAULT_DIR = Path("~/.local/bin")


def cli_executable() -> Path | None:
    """This installation's `mirage` script (beside the interpreter running it), if there is one."""
    script = Path(sys.executable).parent / "mirage"
    return script.absolute() if script.is_file() else None


def on_path(executable: Path) -> bool:
    """Whether a plain `mirage` (as PATH finds it now) is `executable`."""
    found = shutil.which("mirage")
    return found is not None and Path(found).resolve() == executable.resolve()


@click.command()
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"A folder on PATH (default: {DEFAULT_DIR}).",
)
def link(folder: Path | None) -> None:
    """Link FOLDER/mirage to this installation's CLI (`make up` runs it).

    Then `mirage` works from any folder — in Claude Code too — without activating the venv.
    """
    target = cli_executable()
    if target is None:
        raise CliError(f"no `mirage` script beside {sys.executable}: is miRAGe installed?")
    folder = (folder or DEFAULT_DIR).expanduser().absolute()
    place = folder / "mirage"
    if place.exists() and not place.is_symlink():
        raise CliError(f"{place} exists and is not a link: remove it or pass --dir")
    if place.is_symlink() and place.resolve() == target.resolve():
        click.echo(f"{place} already links to {target}")
    else:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".mirage.{os.getpid()}.tmp"
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(target)
        temporary.replace(place)
        click.echo(f"linked {place} -> {target}")
    if on_path(target):
        return
    found = shutil.which("mirage")
    if found:
        click.echo(f"but `mirage` on PATH is {found}: put {folder} before its folder on PATH")
    else:
        click.echo(
            f"{folder} is not on PATH: add it (then open a new shell):\n"
            f"  echo 'export PATH=\"{folder}:$PATH\"' >> ~/.bashrc"
        )
