"""`mirage documents wait`: until the index mirrors the project's folder — every file written
there (dropped, copied, edited, or uploaded) picked up and indexed, `ready` or `error`.

The service reports the files the pipeline has not picked up yet and how long ago the newest
file was written (`GET /projects/{project}`). A changed file keeps its row, `ready`, until the
documents sensor sees it settle and marks it `pending`; so the folder counts as caught up only
once its newest write is SETTLED_AFTER seconds old (the sensor's settle time and a tick).
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

POLL_SECONDS = 1.0
SETTLED_AFTER = 3.0  # the sensor: a file unchanged for 0.5 s, picked up at its next tick (1 s)
DONE = ("ready", "error")


def summary(docs: list[dict[str, Any]], unseen: list[str]) -> str:
    """`4 ready, 1 indexing, 2 not picked up yet` (statuses in pipeline order)."""
    counts = Counter(d["status"] for d in docs)
    parts = [f"{counts[s]} {s}" for s in ("ready", "error", "indexing", "pending") if counts[s]]
    if unseen:
        parts.append(f"{len(unseen)} not picked up yet")
    return ", ".join(parts) or "no documents"


def wait_for_folder(
    api: Api, project: str, *, timeout: float, quiet: bool = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """Poll the project until no file is unseen, pending or indexing and its newest write has
    settled (or time runs out); progress on stderr. Returns the last documents and unseen
    files seen."""
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
    try:
        while True:
            state = api.get(base)
            docs = api.get(f"{base}/documents")
            unseen = state.get("unseen") or []
            elapsed = time.monotonic() - start
            line = summary(docs, unseen)
            if live is not None:
                done = sum(d["status"] in DONE for d in docs)
                total = len(docs) + len(unseen)
                live.update(task, completed=done, total=total, tail=f"{line}  {elapsed:.0f}s")
                live.refresh()
            elif not quiet and line != said:
                click.echo(f"{project}: {line} ({elapsed:.0f}s)", err=True)
            said = line
            age = state.get("seconds_since_last_write")
            settled = age is None or age >= SETTLED_AFTER
            if not unseen and settled and all(d["status"] in DONE for d in docs):
                return docs, unseen
            if elapsed >= timeout:
                return docs, unseen
            time.sleep(POLL_SECONDS)
    finally:
        if live is not None:
            live.stop()


def wait_and_report_folder(api: Api, project: str, *, timeout: float, as_json: bool) -> None:
    """Wait for the folder, print the documents as JSON if asked, and exit 1 naming each
    document in `error` and each one still not indexed when time ran out."""
    docs, unseen = wait_for_folder(api, project, timeout=timeout, quiet=as_json)
    if as_json:
        print_json(docs)
    failed = False
    for d in docs:
        if d["status"] == "error":
            click.echo(f"{d['filename']}: {d.get('error')}", err=True)
            failed = True
        elif d["status"] not in DONE:
            click.echo(f"{d['filename']}: still {d['status']} after {timeout:g} s", err=True)
            failed = True
    for path in unseen:
        click.echo(f"{path}: not picked up after {timeout:g} s: is `mirage up` running?", err=True)
        failed = True
    if failed:
        raise SystemExit(FAILURE)
    if not as_json:
        click.echo(f"{project}: {summary(docs, unseen)}")
