"""Two local stacks side by side: each CLI call reaches its own stack with that stack's key."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest
from click.testing import CliRunner

from mirage_pipeline.embedded_postgres import ensure_database, with_database
from mirage_query.cli import cli
from mirage_query.locator import forget_stack, record_stack, recorded_stacks
from mirage_query.settings import ServiceSettings
from tests.integration.test_search_api import index_markdown
from tests.support.live_service import live_service

pytestmark = pytest.mark.integration


def start_stack(
    stack: ExitStack, records: Path, home: Path, url: str, embedder, project: str
) -> str:
    """A query service over its own database and key in `home`, recorded in `records` as
    `mirage up` does."""
    home.mkdir()
    (home / "api-key").write_text(f"key-of-{project}\n")
    index_markdown(url, embedder, project, "notes.md", f"# {project}\n\nSome text.\n".encode())
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(home)}).with_overrides(database_url=url)
    api_url = stack.enter_context(live_service(settings, embedder))
    record_stack(records, settings.home, api_url)
    return api_url


def projects(env: dict[str, str | None]) -> list[str] | int:
    """`mirage projects list --json` with only `env` of MIRAGE_*: the names, or the exit code."""
    base = {"MIRAGE_HOME": None, "MIRAGE_API_URL": None, "MIRAGE_API_KEY": None}
    result = CliRunner().invoke(cli, ["projects", "list", "--json"], env={**base, **env})
    if result.exit_code:
        return result.exit_code
    return [p["name"] for p in json.loads(result.output)]


def test_two_stacks_each_with_its_own_cli_calls(
    postgres, local_embedder, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    records = tmp_path / "config" / "mirage" / "stacks"  # where the CLI looks
    elsewhere = tmp_path / "elsewhere"  # where Claude Code works: no .mirage here
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    urls = {}
    for name in ("alpha", "beta"):
        ensure_database(postgres.url, f"{name}_{tmp_path.name}"[:60])
        urls[name] = with_database(postgres.url, f"{name}_{tmp_path.name}"[:60])
    with ExitStack() as stacks, ExitStack() as second:
        a = start_stack(stacks, records, tmp_path / "a", urls["alpha"], local_embedder, "alpha")
        b = start_stack(second, records, tmp_path / "b", urls["beta"], local_embedder, "beta")
        assert len(recorded_stacks(records)) == 2  # the second stack did not replace the first

        # by home: that stack's URL and key
        assert projects({"MIRAGE_HOME": str(tmp_path / "a")}) == ["alpha"]
        assert projects({"MIRAGE_HOME": str(tmp_path / "b")}) == ["beta"]
        # by URL: the key of the stack recorded on that port
        assert projects({"MIRAGE_API_URL": a}) == ["alpha"]
        assert projects({"MIRAGE_API_URL": b}) == ["beta"]
        # a home and another stack's URL: that home's key is refused there
        assert projects({"MIRAGE_HOME": str(tmp_path / "a"), "MIRAGE_API_URL": b}) == 5

        second.close()  # stack b stops (as after a crash: its record stays)
        # nothing said: the one recorded stack whose service answers
        assert projects({}) == ["alpha"]
        forget_stack(records, (tmp_path / "b").resolve())
        assert [s.home for s in recorded_stacks(records)] == [(tmp_path / "a").resolve()]
        assert projects({}) == ["alpha"]
