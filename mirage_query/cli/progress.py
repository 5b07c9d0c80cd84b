"""`documents add --wait` and `reindex --wait`: one progress bar per file (rich's, on a
terminal; one line per status change otherwise) until it is ready or failed."""

from __future__ import annotations

import sys
import time
from typing import Any
from urllib.parse import quote

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from mirage_query.cli.client import FAILURE, Api, print_json

STEPS = {"pending": 1, "indexing": 2, "ready": 4, "error": 4}
BAR = 20
POLL_SECONDS = 1.0
HINT_AFTER_SECONDS = 60.0
HINT = (
    "still pending after {s:.0f} s: is the pipeline running? "
    "(`mirage up` runs the Dagster daemon whose sensor picks uploads up)"
)


def say_hint(live: Progress | None, elapsed: float) -> None:
    """HINT on stderr: above the live bars when they are drawn, else as a line."""
    if live is not None:
        live.console.print(HINT.format(s=elapsed))
    else:
        click.echo(HINT.format(s=elapsed), err=True)


def status_tail(doc: dict[str, Any], elapsed: float) -> str:
    """`indexing   12s` (the chunk count once ready, the error if failed)."""
    status = doc.get("status", "pending")
    tail = f"{status:<8} {elapsed:4.0f}s"
    if status == "ready":
        count = doc.get("chunk_count", 0)
        tail += f"  {count} chunk{'' if count == 1 else 's'}"
    elif status == "error":
        tail += f"  {doc.get('error') or ''}"
    return tail


def bar_line(name: str, doc: dict[str, Any], elapsed: float, width: int) -> str:
    """`name  [#########-----------]  indexing   12s`: a line per status change, off a terminal."""
    status = doc.get("status", "pending")
    filled = BAR * STEPS.get(status, 1) // 4
    bar = "#" * filled + "-" * (BAR - filled)
    colour = {"ready": "green", "error": "red"}.get(status)
    return f"{name:<{width}}  [{click.style(bar, fg=colour)}]  {status_tail(doc, elapsed)}"


def live_bars(width: int, console: Console | None = None) -> Progress:
    """One rich progress bar per document, redrawn in place (on stderr unless told)."""
    return Progress(
        TextColumn(f"{{task.fields[name]:<{width}}}"),
        BarColumn(bar_width=BAR),
        TextColumn("{task.fields[tail]}"),
        console=console or Console(stderr=True),
        auto_refresh=False,
    )


def wait_for_documents(
    api: Api,
    project: str,
    accepted: list[dict[str, Any]],
    *,
    timeout: float,
    quiet: bool = False,
) -> list[dict[str, Any]]:
    """Poll each uploaded document until every one is `ready` or `error` (or time runs out).

    Draws on stderr: rich progress bars on a terminal, one line per status change otherwise.
    Returns the last document objects seen, in upload order.
    """
    base = f"/projects/{quote(project, safe='')}/documents"
    docs = {a["id"]: dict(a) for a in accepted}
    order = [a["id"] for a in accepted]
    width = max(len(a["filename"]) for a in accepted)
    live = live_bars(width) if sys.stderr.isatty() and not quiet else None
    tasks = {}
    if live is not None:
        live.start()
        for d in order:
            tasks[d] = live.add_task("", total=4, name=docs[d]["filename"], tail="")
    seen: dict[str, str] = {}
    start = time.monotonic()
    hinted = False
    try:
        while True:
            for doc_id in order:
                if docs[doc_id].get("status") not in ("ready", "error"):
                    docs[doc_id] = api.get(f"{base}/{doc_id}")
            elapsed = time.monotonic() - start
            for doc_id in order:
                doc = docs[doc_id]
                if live is not None:
                    steps = STEPS.get(doc["status"], 1)
                    live.update(tasks[doc_id], completed=steps, tail=status_tail(doc, elapsed))
                elif not quiet and seen.get(doc_id) != doc["status"]:
                    seen[doc_id] = doc["status"]
                    click.echo(bar_line(doc["filename"], doc, elapsed, width), err=True)
            if live is not None:
                live.refresh()
            stuck = all(docs[d]["status"] == "pending" for d in order)
            if stuck and not (hinted or quiet) and elapsed >= HINT_AFTER_SECONDS:
                say_hint(live, elapsed)
                hinted = True
            done = all(docs[d]["status"] in ("ready", "error") for d in order)
            if done or elapsed >= timeout:
                return [docs[d] for d in order]
            time.sleep(POLL_SECONDS)
    finally:
        if live is not None:
            live.stop()


def wait_and_report(
    api: Api, project: str, accepted: list[dict[str, Any]], *, timeout: float, as_json: bool
) -> None:
    """Wait for the documents (`--wait`), print them as JSON if asked, and exit 1 naming each
    one that did not end `ready`."""
    final = wait_for_documents(api, project, accepted, timeout=timeout, quiet=as_json)
    if as_json:
        print_json(final)
    failed = [d for d in final if d["status"] != "ready"]
    for d in failed:
        reason = d.get("error") or f"still {d['status']} after {timeout:g} s"
        click.echo(f"{d['filename']}: {reason}", err=True)
    if failed:
        raise SystemExit(FAILURE)
