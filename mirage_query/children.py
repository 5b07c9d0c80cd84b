"""`mirage up`'s child processes: started in sessions of their own, logged to files, waited
for until they answer, and stopped with everything they started."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx
import psutil

STOP_TIMEOUT = 15.0
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StackError(RuntimeError):
    """The stack cannot start or a part of it died; the message says which and why."""


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict, repr=False)
    restarts: list[float] = field(default_factory=list)  # monotonic times of restarts


def console_script(name: str) -> str:
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    found = shutil.which(name)
    if not found:
        raise StackError(f"cannot find the `{name}` command (is miRAGe installed completely?)")
    return found


def log_tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


def start_child(name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> Child:
    """Start `argv` in its own session (process group), output to `log_dir/<name>.log`."""
    log = log_dir / f"{name}.log"
    if log.exists():
        log.replace(log_dir / f"{name}.log.1")
    out: IO[bytes]
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            env=env,
            cwd=env["MIRAGE_HOME"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Child(name, process, log, argv, env)


def check_children(children: list[Child]) -> None:
    """Raise StackError, with the end of its log, if a child has exited."""
    for child in children:
        if (code := child.process.poll()) is not None:
            tail = log_tail(child.log)
            raise StackError(f"{child.name} exited (code {code}); end of {child.log}:\n{tail}")


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def wait_until_ready(
    children: list[Child], urls: dict[str, str], stop: threading.Event, timeout: float
) -> None:
    """Until every URL answers 200; a child exiting first is an error. Returns early on stop."""
    deadline = time.monotonic() + timeout
    pending = dict(urls)
    while pending and not stop.is_set():
        check_children(children)
        pending = {name: url for name, url in pending.items() if not _answers(url)}
        if pending and time.monotonic() > deadline:
            names = ", ".join(pending)
            raise StackError(f"{names} did not answer within {timeout:.0f} s (see its log)")
        stop.wait(0.5)


def process_tree(pid: int) -> list[psutil.Process]:
    """The process and all its descendants (none if it is gone)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _signal_groups(groups: set[int], sig: signal.Signals) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)


def stop_children(children: list[Child], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM each child's process tree (whole groups), then SIGKILL what is left."""
    procs = [p for c in children for p in process_tree(c.process.pid)]
    groups = {c.process.pid for c in children}  # each child leads its own session
    for proc in procs:
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            groups.add(os.getpgid(proc.pid))  # a grandchild may have called setsid
    groups.discard(os.getpgrp())
    _signal_groups(groups, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.process.wait(max(0.0, deadline - time.monotonic()))
    _, alive = psutil.wait_procs(procs, timeout=max(0.0, deadline - time.monotonic()))
    _signal_groups(groups, signal.SIGKILL)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=5)
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.process.wait(5)


@contextlib.contextmanager
def stop_signals() -> Iterator[threading.Event]:
    """An event set by Ctrl-C, SIGTERM or SIGHUP (the previous handlers come back afterwards)."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in _STOP_SIGNALS}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
