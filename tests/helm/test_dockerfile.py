"""The Dockerfile's structure (no Docker engine here, so the image is not built by the tests):
multi-stage, pinned slim Python base, pinned installs, no compiler and a non-root user in the final
stage, and the same user and commands the chart expects."""

from __future__ import annotations

import re
import shlex
from importlib import metadata

import pytest
import yaml

from tests.helm.conftest import CHART, REPO

DOCKERFILE = REPO / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, rest = line.partition(" ")
            out.append((op.upper(), rest.strip()))
    return out


def stages() -> list[list[tuple[str, str]]]:
    found: list[list[tuple[str, str]]] = []
    for op, rest in instructions():
        if op == "FROM":
            found.append([])
        if found:
            found[-1].append((op, rest))
    return found


def build_args() -> dict[str, str]:
    return dict(rest.split("=", 1) for op, rest in instructions() if op == "ARG" and "=" in rest)


def test_multi_stage_from_a_pinned_slim_python():
    args = build_args()
    bases = [rest.split()[0] for stage in stages() for op, rest in stage if op == "FROM"]
    assert len(bases) >= 2
    for base in bases:
        image = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], base)
        name, _, tag = image.partition(":")
        assert name == "python", image
        assert re.fullmatch(r"3\.11\.\d+-slim(-\w+)?", tag), f"{image}: pin a slim 3.11.x tag"


def test_final_stage_runs_as_the_chart_user_without_build_tools():
    final = stages()[-1]
    users = [rest for op, rest in final if op == "USER"]
    assert users, "the final stage sets no USER"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and uid != "0", "USER must be a numeric non-root id (runAsNonRoot)"
    values = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    assert int(uid) == values["podSecurityContext"]["runAsUser"]
    assert int(uid) == values["securityContext"]["runAsUser"]
    runs = " ".join(rest for op, rest in final if op == "RUN")
    for tool in ("gcc", "build-essential", "apt-get install", "pip install", "make"):
        assert tool not in runs, f"the final stage installs {tool!r}"
    assert any(op == "COPY" and "--from=build" in rest for op, rest in final)


def test_dependencies_are_installed_pinned_with_the_k8s_extra():
    build = stages()[0]
    installs = [rest for op, rest in build if op == "RUN" and "pip install" in rest]
    assert installs
    assert all("-c constraints.txt" in cmd for cmd in installs)
    assert any(".[k8s]" in cmd for cmd in installs)


def test_every_copied_path_exists_and_is_not_ignored():
    ignored = {
        line.strip()
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", ".mirage", "tests"} <= ignored
    for stage in stages():
        for op, rest in stage:
            if op != "COPY" or "--from=" in rest:
                continue
            *sources, _dest = shlex.split(rest)
            for source in sources:
                assert (REPO / source).exists(), f"COPY {source}: no such file"
                assert source not in ignored or f"!{source}" in ignored, source


@pytest.mark.parametrize("command", ["mirage", "dagster", "dagster-webserver", "dagster-daemon"])
def test_commands_the_chart_runs_are_installed_console_scripts(command):
    scripts = {ep.name for ep in metadata.entry_points(group="console_scripts")}
    assert command in scripts
    templates = "\n".join(p.read_text() for p in (CHART / "templates").glob("*.yaml"))
    assert re.search(rf'(- |\["){re.escape(command)}("|\n)', templates), command
