"""The CLI without a database: the skill file, .mirage.yaml lookup, the key rule, exit codes."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import click
import pytest
import yaml
from click.testing import CliRunner

from mirage_query.cli import cli
from mirage_query.cli.client import Api, CliError, config_files, is_local, resolve_project
from mirage_query.cli.skill import skill_text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the skill ---------------------------------------------------------------------------------


def front_matter(text: str) -> dict:
    match = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    assert match, "SKILL.md must start with YAML front matter between --- lines"
    return yaml.safe_load(match.group(1))


def skill_command_lines(text: str) -> list[str]:
    """Every `mirage …` line of the fenced blocks, and every inline `mirage …` span."""
    lines = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        lines += [ln.strip() for ln in block.splitlines() if ln.strip().startswith("mirage ")]
    lines += re.findall(r"(?<!`)`(mirage [^`]+)`(?!`)", text)
    return lines


def parse_command_line(line: str) -> click.Command:
    """Parse `line` against the CLI as click would before running it; returns the command."""
    args = shlex.split(line)[1:]
    ctx = cli.make_context("mirage", args)
    command: click.Command = cli
    while isinstance(command, click.Group):
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None, line
        ctx = sub.make_context(name, rest, parent=ctx)
        command = sub
    return command


def test_skill_front_matter_names_mirage_and_says_when_to_use_it() -> None:
    meta = front_matter(skill_text())
    assert meta["name"] == "mirage"
    assert isinstance(meta["description"], str) and len(meta["description"]) > 80
    assert "Use when" in meta["description"]


def test_every_command_in_the_skill_exists_in_the_cli(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    lines = skill_command_lines(skill_text())
    assert len(lines) >= 15
    parsed = set()
    for line in lines:
        for token in shlex.split(line)[1:]:  # FILE arguments must exist for click to accept them
            if not token.startswith("-") and (token.startswith("./") or token.isupper()):
                (tmp_path / token).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / token).write_text("x")
        try:
            parsed.add(parse_command_line(line).name)
        except click.ClickException as exc:
            pytest.fail(f"{line!r} does not parse: {exc.format_message()}")
    assert {"search", "list", "add", "status", "chunks", "init", "reindex"} <= parsed
    assert any("--batch" in ln and "--json" in ln for ln in lines)
    assert any("--expand" in ln for ln in lines)
    assert any("documents add" in ln and "--wait" in ln for ln in lines)


def test_a_wrong_command_line_is_caught_by_the_check() -> None:
    with pytest.raises(click.UsageError):
        parse_command_line("mirage search --no-such-option x")
    with pytest.raises(click.UsageError):
        parse_command_line("mirage documents frobnicate x")


def test_skill_install_writes_and_updates_in_place(tmp_path) -> None:
    runner = CliRunner(env={"PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin"})
    first = runner.invoke(cli, ["skill", "install", "--path", str(tmp_path / "s")])
    assert first.exit_code == 0 and "installed" in first.output
    target = tmp_path / "s" / "SKILL.md"
    assert front_matter(target.read_text())["name"] == "mirage"
    target.write_text("old version")
    again = runner.invoke(cli, ["skill", "install", "--path", str(tmp_path / "s")])
    assert again.exit_code == 0 and "updated" in again.output
    assert target.read_text() == skill_text()
    same = runner.invoke(cli, ["skill", "install", "--path", str(tmp_path / "s")])
    assert "up to date" in same.output
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["SKILL.md"]


def test_skill_install_defaults_to_claude_skills(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    result = CliRunner().invoke(cli, ["skill", "install"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / ".claude" / "skills" / "mirage" / "SKILL.md").is_file()


# --- .mirage.yaml ------------------------------------------------------------------------------


def test_project_comes_from_the_nearest_mirage_yaml(tmp_path, monkeypatch) -> None:
    (tmp_path / ".mirage.yaml").write_text("project_id: outer\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert resolve_project(None) == "outer"
    assert resolve_project("given") == "given"
    (tmp_path / "a" / ".mirage.yaml").write_text("project_id: inner\nother: kept\n")
    assert resolve_project(None) == "inner"
    assert list(config_files(deep.resolve())) == [
        p.resolve() / ".mirage.yaml" for p in (tmp_path / "a", tmp_path)
    ]
    # a .mirage.yaml without project_id (a documents folder's indexing policy) is passed over
    (deep / ".mirage.yaml").write_text("indexing:\n  markdown:\n    preset: rag-indexing-v0.1\n")
    assert resolve_project(None) == "inner"


def test_missing_or_broken_mirage_yaml_is_a_usage_error(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CliError) as missing:
        resolve_project(None, start=tmp_path)
    assert missing.value.exit_code == 2 and "mirage init" in missing.value.message
    (tmp_path / ".mirage.yaml").write_text("name: x\n")
    with pytest.raises(CliError, match="has no `project_id`"):
        resolve_project(None)
    (tmp_path / ".mirage.yaml").write_text("[unclosed\n")
    with pytest.raises(CliError, match="cannot read"):
        resolve_project(None)


def test_a_command_without_project_says_how_to_set_one(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["documents", "list"], env={"MIRAGE_API_KEY": "k"})
    assert result.exit_code == 2
    assert "--project" in result.output and "mirage init" in result.output


def test_init_writes_mirage_yaml(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "My Notes"
    folder.mkdir()
    monkeypatch.chdir(folder)
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    assert yaml.safe_load((folder / ".mirage.yaml").read_text()) == {"project_id": "My-Notes"}
    (folder / ".mirage.yaml").write_text("project_id: My-Notes\nextra: 1\n")
    refused = runner.invoke(cli, ["init", "other"])
    assert refused.exit_code == 1 and "--force" in refused.output
    assert runner.invoke(cli, ["init", "other", "--force"]).exit_code == 0
    assert yaml.safe_load((folder / ".mirage.yaml").read_text()) == {
        "project_id": "other",
        "extra": 1,
    }
    assert runner.invoke(cli, ["init", "../bad"]).exit_code == 2
    assert resolve_project(None) == "other"


# --- the key rule ------------------------------------------------------------------------------


def test_local_hosts() -> None:
    for url in ["http://localhost:8080/api/v1", "http://127.0.0.1:1/x", "http://[::1]:8080/"]:
        assert is_local(url), url
    for url in ["https://mirage.example.com/api/v1", "http://10.0.0.5:8080/", "http://0.0.0.0/"]:
        assert not is_local(url), url


def test_the_key_file_is_never_sent_to_a_remote_host(tmp_path, monkeypatch) -> None:
    (tmp_path / "api-key").write_text("local-secret\n")
    monkeypatch.delenv("MIRAGE_API_KEY", raising=False)
    monkeypatch.setenv("MIRAGE_HOME", str(tmp_path))
    monkeypatch.setenv("MIRAGE_API_URL", "http://127.0.0.1:8080/api/v1")
    local = Api.from_env()
    assert local.key == "local-secret" and local.http.headers["X-API-Key"] == "local-secret"
    monkeypatch.setenv("MIRAGE_API_URL", "https://mirage.example.com/api/v1")
    remote = Api.from_env()
    assert remote.key is None and "X-API-Key" not in remote.http.headers
    monkeypatch.setenv("MIRAGE_API_KEY", "explicit")
    assert Api.from_env().key == "explicit"


# --- exit codes --------------------------------------------------------------------------------


class _Refuses(BaseHTTPRequestHandler):
    """A server that answers like the query service does to a wrong key."""

    def do_GET(self) -> None:
        body = json.dumps({"status_code": 401, "detail": "missing or wrong X-API-Key"}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def refusing_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/v1"
    server.shutdown()


def test_exit_4_when_nothing_listens() -> None:
    url = f"http://127.0.0.1:{free_port()}/api/v1"
    result = CliRunner().invoke(cli, ["projects", "list"], env={"MIRAGE_API_URL": url})
    assert result.exit_code == 4
    assert f"cannot reach miRAGe at {url} — is `mirage up` running?" in result.output


def test_exit_5_when_the_key_is_refused(refusing_url) -> None:
    env = {"MIRAGE_API_URL": refusing_url, "MIRAGE_API_KEY": "wrong"}
    result = CliRunner().invoke(cli, ["projects", "list"], env=env)
    assert result.exit_code == 5
    assert "refused the API key from MIRAGE_API_KEY" in result.output


def test_exit_2_on_usage_errors(tmp_path) -> None:
    runner = CliRunner()
    env = {"MIRAGE_API_URL": f"http://127.0.0.1:{free_port()}/api/v1"}
    for args in [
        ["search", "-p", "x", "q", "--limit", "0"],
        ["search", "-p", "x", "q", "--mode", "fuzzy"],
        ["search", "-p", "x", "two", "queries"],
        ["search", "-p", "x", "--batch", *[f"q{i}" for i in range(9)]],
        ["documents", "add", "-p", "x", str(tmp_path / "missing.md")],
        ["projects", "delete", "x"],  # no --yes and no terminal to ask on
        ["nonsense"],
    ]:
        result = runner.invoke(cli, args, env=env)
        assert result.exit_code == 2, (args, result.output)
    bad = runner.invoke(cli, ["projects", "list"], env={"MIRAGE_API_URL": "ftp://x"})
    assert bad.exit_code == 2 and "MIRAGE_API_URL" in bad.output


def test_the_process_exit_code_is_the_documented_one(tmp_path) -> None:
    env = {**os.environ, "MIRAGE_API_URL": f"http://127.0.0.1:{free_port()}/api/v1"}
    done = subprocess.run(
        [sys.executable, "-m", "mirage_query", "projects", "list"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 4
    assert "is `mirage up` running?" in done.stderr and done.stdout == ""


def test_key_of_the_recorded_local_stack_is_used_from_any_folder(tmp_path, monkeypatch):
    from mirage_query.cli.client import Api
    from mirage_query.locator import forget_stack, record_stack

    home = tmp_path / "stack-home"
    home.mkdir()
    (home / "api-key").write_text("from-the-stack\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MIRAGE_HOME", raising=False)
    monkeypatch.delenv("MIRAGE_API_KEY", raising=False)
    monkeypatch.delenv("MIRAGE_API_URL", raising=False)
    elsewhere = tmp_path / "some" / "project"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    assert Api.from_env().key is None  # nothing recorded: no key
    records = tmp_path / "config" / "mirage" / "stacks"  # where the CLI looks
    record_stack(records, home, "http://127.0.0.1:8080/api/v1")
    assert Api.from_env().key == "from-the-stack"
    monkeypatch.setenv("MIRAGE_API_URL", "https://search.example.com/api/v1")
    assert Api.from_env().key is None  # never sent to another machine
    forget_stack(records, home)
    assert list(records.iterdir()) == []


def test_each_stack_has_its_own_record(tmp_path):
    from mirage_query.locator import find_stack, forget_stack, record_stack, recorded_stacks

    records = tmp_path / "records"
    one, two = tmp_path / "one", tmp_path / "two"
    record_stack(records, one, "http://127.0.0.1:8080/api/v1")
    record_stack(records, two, "http://127.0.0.1:8091/api/v1")
    assert {(s.home, s.port) for s in recorded_stacks(records)} == {(one, 8080), (two, 8091)}
    # by home, by the URL's port (localhost or 127.0.0.1 alike), or nothing
    assert (
        find_stack(records, "http://localhost:8080/api/v1", url_given=False, home=two).home == two
    )
    assert (
        find_stack(records, "http://localhost:8091/api/v1", url_given=True, home=None).home == two
    )
    assert find_stack(records, "http://localhost:8092/api/v1", url_given=True, home=None) is None
    assert (
        find_stack(records, "http://localhost:8080/api/v1", url_given=False, home=tmp_path) is None
    )
    # a new stack on a port replaces the stale record of a stack that died there
    record_stack(records, tmp_path / "three", "http://127.0.0.1:8080/api/v1")
    assert {s.home for s in recorded_stacks(records)} == {tmp_path / "three", two}
    forget_stack(records, one)  # no longer its record: nothing to remove
    forget_stack(records, two)
    assert [s.home for s in recorded_stacks(records)] == [tmp_path / "three"]
