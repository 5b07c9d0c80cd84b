"""Connections to the index kept for reuse (store/connections.py): a kept connection behaves as
a new one would, a block's end commits, an exception rolls back, a dead one is replaced."""

from __future__ import annotations

import psycopg
import pytest

from mirage_pipeline.store import connections
from mirage_pipeline.store.connections import KEEP, close_kept, kept_connection

pytestmark = pytest.mark.integration


@pytest.fixture
def url(database_url: str) -> str:
    close_kept()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS kept_probe (n int)")
        conn.execute("TRUNCATE kept_probe")
    yield database_url
    close_kept()


def _count(url: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM kept_probe").fetchone()[0]


def test_a_kept_connection_is_reused_and_shows_a_fresh_session(url: str) -> None:
    with kept_connection(url) as conn:
        first = conn
        backend = conn.info.backend_pid
        conn.autocommit = True
        conn.execute("SET lock_timeout = '1s'")
        conn.execute("SELECT pg_advisory_lock(4242)")
        conn.execute("CREATE TEMP TABLE scratch (n int)")
        conn.read_only = True
    with kept_connection(url) as conn:
        assert conn is first and conn.info.backend_pid == backend  # no new server process
        assert not conn.autocommit and conn.read_only is None
        assert conn.execute("SHOW lock_timeout").fetchone()[0] == "0"
        assert conn.execute("SELECT to_regclass('scratch')").fetchone()[0] is None
        held = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s", (backend,)
        ).fetchone()[0]
        assert held == 0
        # pgvector stays registered
        assert conn.execute("SELECT '[1,2]'::vector").fetchone()[0].to_list() == [1.0, 2.0]
        for _ in range(8):  # psycopg prepares a statement run often; it stays valid
            conn.execute("SELECT count(*) FROM kept_probe WHERE n = %s", (1,))
    with kept_connection(url) as conn:
        assert conn.execute("SELECT count(*) FROM kept_probe WHERE n = %s", (1,)).fetchone()


def test_the_end_of_a_block_commits_and_an_exception_rolls_back(url: str) -> None:
    with kept_connection(url) as conn:
        conn.execute("INSERT INTO kept_probe VALUES (1)")
    assert _count(url) == 1
    with pytest.raises(ZeroDivisionError), kept_connection(url) as conn:
        conn.execute("INSERT INTO kept_probe VALUES (2)")
        _ = 1 / 0
    assert _count(url) == 1
    with kept_connection(url) as again:  # the rolled-back connection was kept, sound
        assert again is conn and again.execute("SELECT 1").fetchone() == (1,)


def test_a_kept_connection_whose_server_process_died_is_replaced(url: str) -> None:
    with kept_connection(url) as conn:
        dead = conn.info.backend_pid
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (dead,))
    with kept_connection(url) as conn:
        assert conn.info.backend_pid != dead
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_at_most_keep_connections_are_kept(url: str) -> None:
    opened = [kept_connection(url) for _ in range(KEEP + 2)]
    conns = [c.__enter__() for c in opened]
    assert len({c.info.backend_pid for c in conns}) == KEEP + 2
    for c in opened:
        c.__exit__(None, None, None)
    assert len(connections._idle[url]) == KEEP
    assert sum(c.closed for c in conns) == 2


def test_a_reset_that_fails_after_the_commit_only_drops_the_connection(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "_RESET", "SELECT no_such_function()")
    with kept_connection(url) as conn:  # no error reaches the caller: its work is committed
        conn.execute("INSERT INTO kept_probe VALUES (1)")
    assert _count(url) == 1
    assert conn.closed and not connections._idle.get(url)


def test_a_connection_idle_too_long_or_from_another_process_is_not_handed_out(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with kept_connection(url) as old:
        pass
    monkeypatch.setattr(connections, "MAX_IDLE_SECONDS", 0.0)
    with kept_connection(url) as conn:
        assert conn is not old
    assert old.closed  # closed, not checked: a silent peer would hang the check
    monkeypatch.undo()
    with kept_connection(url) as parents:
        pass
    with monkeypatch.context() as patch:  # as a forked child sees its parent's connections
        patch.setattr(connections.os, "getpid", lambda: -1)
        with kept_connection(url) as conn:
            assert conn is not parents
    assert not parents.closed  # the parent's socket is left alone
    parents.close()
