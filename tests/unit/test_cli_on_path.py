"""`mirage` as a plain command after set-up, and a skill whose commands work from any folder."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mirage_query.cli import cli
from mirage_query.cli.skill import skill_text

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"  # no venv on it, as in a fresh shell


def clean_env(home: Path, path: str = SYSTEM_PATH) -> dict[str, str]:
    return {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8"}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.skipif(not (VENV_BIN / "mirage").is_file(), reason="needs the installed CLI")
def test_after_make_up_mirage_works_without_the_venv(tmp_path: Path) -> None:
    # the first thing `make up` does (its `link` step), with this venv already installed
    venv = Path(sys.prefix)
    made = subprocess.run(
        ["make", "-s", "-C", str(REPO), f"VENV={venv}", "-o", f"{venv}/.installed", "link"],
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    link = tmp_path / ".local" / "bin" / "mirage"
    assert link.is_symlink() and link.resolve() == (VENV_BIN / "mirage").resolve()
    assert f'export PATH="{link.parent}:$PATH"' in made.stdout  # not on PATH yet: says how

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = clean_env(tmp_path, f"{link.parent}:{SYSTEM_PATH}")
    shown = subprocess.run(
        ["mirage", "--help"], env=env, cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    assert "Exit codes" in shown.stdout and "search" in shown.stdout
    again = subprocess.run(
        ["mirage", "link"], env=env, cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 0 and "already links" in again.stdout
    assert "not on PATH" not in again.stdout


def test_link_never_replaces_a_file_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "mirage").write_text("#!/bin/sh\n")
    result = CliRunner().invoke(cli, ["link", "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "is not a link" in result.output
    assert (tmp_path / "mirage").read_text() == "#!/bin/sh\n"


@pytest.mark.skipif(not (VENV_BIN / "mirage").is_file(), reason="needs the installed CLI")
def test_skill_calls_the_cli_by_its_path_when_mirage_is_not_on_path(tmp_path: Path) -> None:
    folder = tmp_path / "skill"
    installed = CliRunner(env={"PATH": SYSTEM_PATH}).invoke(
        cli, ["skill", "install", "--path", str(folder)]
    )
    assert installed.exit_code == 0, installed.output
    assert "`mirage link`" in installed.output
    text = (folder / "SKILL.md").read_text()
    executable = str((VENV_BIN / "mirage").absolute())
    commands = [ln for ln in text.splitlines() if ln.startswith(executable + " ")]
    assert len(commands) >= 15 and not [ln for ln in text.splitlines() if ln.startswith("mirage ")]
    assert "name: mirage\n" in text and ".mirage.yaml" in text  # only commands changed

    # a command of the skill, as Claude Code runs it from a project folder with a bare PATH
    project = tmp_path / "project"
    project.mkdir()
    init = next(ln for ln in commands if " init " in ln)
    ran = subprocess.run(
        shlex.split(init),
        env=clean_env(tmp_path),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert "project_id: my-project" in (project / ".mirage.yaml").read_text()

    # once `mirage` on PATH is this CLI, the skill says plain `mirage` again
    on_path = CliRunner(env={"PATH": f"{VENV_BIN}:{SYSTEM_PATH}"}).invoke(
        cli, ["skill", "install", "--path", str(folder)]
    )
    assert on_path.exit_code == 0 and "updated" in on_path.output
    assert (folder / "SKILL.md").read_text() == skill_text()
