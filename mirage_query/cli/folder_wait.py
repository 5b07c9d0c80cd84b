"""`mirage documents wait`: until the index mirrors the project's folder — every file written
there (dropped, copied, edited, or uploaded) picked up and indexed, `ready` or `error`.

The service reports how far the index is behind the folder (`GET /projects/{project}`): files
the pipeline has not picked up yet, files whose size is not the size they were indexed at,
rows whose file is gone, and how long ago the newest file was written. An edit that keeps the
size keeps its row `ready` until the documents sensor sees it settle and marks it `pending`; so
the folder counts as caught up only once its newest write is also SETTLED_AFTER seconds old
(the sensor's settle time and a tick).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import Any
from urllib.parse import quote

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from mirage_query.cli.client import FAILURE, Api, print_json
from mirage_query.cli.progress import HINT_AFTER_SECONDS, POLL_SECONDS, say_hint

SETTLED_AFTER = 3.0  # the sensor: a file unchanged for 0.5 s, picked up at its next tick (1 s)
DONE = ("ready", "error")
_BEHIND = (("unseen", "not picked up yet"), ("changed", "changed"), ("gone", "deleted"))


def behind(state: dict[str, Any]) -> list[str]:
    """The paths the index has not caught up with: new, changed or deleted files."""
    return [path for key, _ in _BEHIND for path in state.get(key) or ()]


def summary(docs: list[dict[str, Any]], state: dict[str, Any]) -> str:
    """`4 ready, 1 indexing, 2 not picked up yet` (statuses in pipeline order)."""
    counts = Counter(d["status"] for d in docs)
    parts = [f"{counts[s]} {s}" for s in ("ready", "error", "indexing", "pending") if counts[s]]
    parts += [f"{len(state[key])} {label}" for key, label in _BEHIND if state.get(key)]
    return ", ".join(parts) or "no documents"


def caught_up(docs: list[dict[str, Any]], state: dict[str, Any]) -> bool:
    """Nothing new, changed or deleted left, no document pending or indexing, and the
    newest write old enough for the sensor to have seen it."""
    age = state.get("seconds_since_last_write")
    settled = age is None or age >= SETTLED_AFTER
    return settled and not behind(state) and all(d["status"] in DONE for d in docs)


def wait_for_folder(
    api: Api, project: str, *, timeout: float, quiet: bool = False
) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    """Poll the project until the index has caught up with its folder (or time runs out);
    progress on stderr. Returns the last documents and state seen, and whether it caught up."""
    base = f"/projects/{quote(project, safe='')}"
    live = None
    if sys.stderr.isatty() and not quiet:
        live = Progress(
            TextColumn(project),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("{task.fields[tail]}"),
            console=Console(stderr=True),
            auto_refresh=False,
        )
        live.start()
        task = live.add_task("", total=None, tail="")
    start = time.monotonic()
    said = None
    hinted = False
    try:
        while True:
            state = api.get(base)
            docs = api.get(f"{base}/documents")
            elapsed = time.monotonic() - start
            line = summary(docs, state)
            if live is not None:
                done = sum(d["status"] in DONE for d in docs)
                total = len(docs) + len(state.get("unseen") or ())
                live.update(task, completed=done, total=total, tail=f"{line}  {elapsed:.0f}s")
                live.refresh()
            elif not quiet and line != said:
                click.echo(f"{project}: {line} ({elapsed:.0f}s)", err=True)
            said = line
            if caught_up(docs, state):
                return docs, state, True
            started = any(d["status"] == "indexing" for d in docs)
            if not (started or hinted or quiet) and elapsed >= HINT_AFTER_SECONDS:
                say_hint(live, elapsed)
                hinted = True
            if elapsed >= timeout:
                return docs, state, False
            time.sleep(POLL_SECONDS)
    finally:
        if live is not None:
            live.stop()


def wait_and_report_folder(api: Api, project: str, *, timeout: float, as_json: bool) -> None:
    """Wait for the folder, print the documents as JSON if asked, and exit 1 naming each
    document in `error` and what was still not indexed when time ran out."""
    docs, state, caught = wait_for_folder(api, project, timeout=timeout, quiet=as_json)
    if as_json:
        print_json(docs)
    gone = set(state.get("gone") or ())
    failed = not caught
    for d in docs:
        if d["status"] == "error" and d["filename"] not in gone:
            click.echo(f"{d['filename']}: {d.get('error')}", err=True)
            failed = True
        elif d["status"] not in DONE:
            click.echo(f"{d['filename']}: still {d['status']} after {timeout:g} s", err=True)
    for path in behind(state):
        click.echo(f"{path}: not indexed after {timeout:g} s: is `mirage up` running?", err=True)
    if not caught and not behind(state) and all(d["status"] in DONE for d in docs):
        click.echo(f"{project}: the folder was still being written after {timeout:g} s", err=True)
    if failed:
        raise SystemExit(FAILURE)
    if not as_json:
        click.echo(f"{project}: {summary(docs, state)}")
