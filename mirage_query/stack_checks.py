"""What else runs on this MIRAGE_HOME and these ports, so `mirage up` never reports "up" on
someone else's processes: an orphaned stack (a `mirage up` killed without stopping its
children), a PostgreSQL already serving the data folder, a port already taken."""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

import psutil

from mirage_query.settings import ServiceSettings


class OrphanedStack(RuntimeError):
    """Processes of an earlier `mirage up` on the same MIRAGE_HOME are still running."""


def stack_processes(settings: ServiceSettings) -> list[psutil.Process]:
    """Live processes of a `mirage up` on this MIRAGE_HOME other than this one: its children
    carry MIRAGE_HOME and DAGSTER_HOME in their environment."""
    me = psutil.Process()
    mine = {me.pid, *(p.pid for p in me.parents())}
    wanted = {"MIRAGE_HOME": str(settings.home), "DAGSTER_HOME": str(settings.dagster_home)}
    found = []
    for proc in psutil.process_iter():
        if proc.pid in mine:
            continue
        try:
            env = proc.environ()
        except (psutil.Error, OSError):
            continue  # gone, or not ours to read
        if all(env.get(k) == v for k, v in wanted.items()):
            found.append(proc)
    return found


def running_postgres(pgdata: Path) -> int | None:
    """The pid of a PostgreSQL server running on `pgdata`, if one is."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split()[0])
        return pid if "postgres" in psutil.Process(pid).name() else None
    except (OSError, ValueError, IndexError, psutil.Error):
        return None


def refuse_orphans(settings: ServiceSettings) -> None:
    """An earlier `mirage up` killed without stopping leaves its children serving: say which
    and how to stop them, rather than report "up" on their answers."""
    orphans = stack_processes(settings)
    if not orphans:
        return
    groups: dict[int, list[str]] = {}
    for proc in orphans:
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            groups.setdefault(os.getpgid(proc.pid), []).append(f"{proc.pid} {proc.name()}")
    listing = "; ".join(", ".join(names) for names in groups.values())
    stop = " ".join(f"-{pgid}" for pgid in sorted(groups))
    raise OrphanedStack(
        f"an earlier `mirage up` for {settings.home} was killed and left its processes "
        f"running ({listing}). Stop them with:\n  kill -TERM -- {stop}\nthen run `mirage up` "
        "again (its PostgreSQL, if still running, is reused)."
    )


def port_owner(port: int) -> str | None:
    """Who listens on a local TCP port ("pid name"), or "another process"; None if free."""
    with contextlib.closing(socket.socket()) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            return None
        except OSError:
            pass
    for pid in listener_pids(port):
        with contextlib.suppress(psutil.Error):
            return f"pid {pid} ({psutil.Process(pid).name()})"
    return "another process"


def listener_pids(port: int) -> set[int]:
    """Processes listening on a local TCP port (those we may see)."""
    try:
        connections = psutil.net_connections(kind="tcp")
    except (psutil.Error, OSError):
        return set()
    return {
        c.pid
        for c in connections
        if c.pid and c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port
    }
