"""`mirage up` supervises itself: it refuses an orphaned stack on the same MIRAGE_HOME (saying
how to stop it), never takes someone else's port for its own, restarts a child that dies, and
stops only the PostgreSQL it started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import psycopg
import pytest

from mirage_query.settings import ServiceSettings
from mirage_query.stack import MAX_RESTARTS, Stack, StackError, start_child
from mirage_query.stack_checks import OrphanedStack, port_owner, refuse_orphans, running_postgres

pytestmark = pytest.mark.integration


def quiet(*args, **kwargs) -> None:
    pass


def test_an_orphaned_stack_on_the_same_home_is_refused_with_how_to_stop_it(tmp_path: Path):
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path / "home")})
    other = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path / "other")})
    env = {
        **os.environ,
        "MIRAGE_HOME": str(settings.home),
        "DAGSTER_HOME": str(settings.dagster_home),
    }
    orphan = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    try:
        time.sleep(0.2)
        refuse_orphans(other)  # another home is no concern
        with pytest.raises(OrphanedStack) as error:
            refuse_orphans(settings)
        message = str(error.value)
        assert f"{orphan.pid} sleep" in message
        assert f"kill -TERM -- -{orphan.pid}" in message
    finally:
        orphan.kill()
        orphan.wait()
    refuse_orphans(settings)


def test_a_taken_port_names_its_owner() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert port_owner(port).startswith(f"pid {os.getpid()} (")
    assert port_owner(port) is None


def test_a_child_that_dies_is_restarted_until_it_keeps_dying(tmp_path: Path) -> None:
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)})
    (tmp_path / "logs").mkdir()
    stack = Stack(settings, echo=quiet, on_ready=quiet)
    env = {**os.environ, "MIRAGE_HOME": str(tmp_path)}
    stack.children = [start_child("sleeper", ["sleep", "60"], env, stack.log_dir)]
    first = stack.children[0].process
    first.send_signal(signal.SIGKILL)
    first.wait()
    stack._restart_exited()
    second = stack.children[0].process
    assert second.pid != first.pid and second.poll() is None
    assert len(stack.children[0].restarts) == 1
    second.kill()
    second.wait()

    stack.children = [start_child("crasher", ["sh", "-c", "exit 3"], env, stack.log_dir)]
    with pytest.raises(StackError, match=r"crasher exited \(code 3\) 6 times"):
        for _ in range(MAX_RESTARTS + 1):
            stack.children[0].process.wait()
            stack._restart_exited()
    stack.children[0].process.wait()


def test_only_the_postgres_it_started_is_stopped(postgres) -> None:
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(postgres.pgdata.parent)})
    assert running_postgres(settings.pgdata_dir)
    stack = Stack(settings, echo=quiet, on_ready=quiet)
    url = stack._start_postgres()
    assert not stack.postgres_started
    stack._shut_down()
    with psycopg.connect(url) as conn:  # the server someone else started still answers
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_refused_up_on_a_new_home_leaves_nothing_behind(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        home = tmp_path / "fresh" / "home"
        settings = ServiceSettings.from_env({"MIRAGE_HOME": str(home)}).with_overrides(
            api_port=port
        )
        said: list[str] = []
        code = Stack(settings, echo=lambda m, **_: said.append(m), on_ready=quiet).run()
    assert code == 1
    assert f"port {port} for the query service is already in use" in said[-1]
    assert not (tmp_path / "fresh").exists()
