"""`documents add --wait`: one progress bar per file until it is ready or failed."""

from __future__ import annotations

import sys
import time
from typing import Any
from urllib.parse import quote

import click

from mirage_query.cli.client import FAILURE, Api, print_json

STEPS = {"pending": 1, "indexing": 2, "ready": 4, "error": 4}
BAR = 20
POLL_SECONDS = 1.0
HINT_AFTER_SECONDS = 60.0
HINT = (
    "still pending after {s:.0f} s: is the pipeline running? "
    "(`mirage up` runs the Dagster daemon whose sensor picks uploads up)"
)


def bar_line(name: str, doc: dict[str, Any], elapsed: float, width: int) -> str:
    """`name  [#########-----------]  indexing   12s` (chunks once ready, the error if failed)."""
    status = doc.get("status", "pending")
    filled = BAR * STEPS.get(status, 1) // 4
    bar = "#" * filled + "-" * (BAR - filled)
    tail = f"{status:<8} {elapsed:4.0f}s"
    if status == "ready":
        count = doc.get("chunk_count", 0)
        tail += f"  {count} chunk{'' if count == 1 else 's'}"
    elif status == "error":
        tail += f"  {doc.get('error') or ''}"
    colour = {"ready": "green", "error": "red"}.get(status)
    return f"{name:<{width}}  [{click.style(bar, fg=colour)}]  {tail}"


def wait_for_documents(
    api: Api,
    project: str,
    accepted: list[dict[str, Any]],
    *,
    timeout: float,
    quiet: bool = False,
) -> list[dict[str, Any]]:
    """Poll each uploaded document until every one is `ready` or `error` (or time runs out).

    Draws on stderr: bars redrawn in place on a terminal, one line per status change otherwise.
    Returns the last document objects seen, in upload order.
    """
    base = f"/projects/{quote(project, safe='')}/documents"
    docs = {a["id"]: dict(a) for a in accepted}
    order = [a["id"] for a in accepted]
    width = max(len(a["filename"]) for a in accepted)
    live = sys.stderr.isatty() and not quiet
    seen: dict[str, str] = {}
    start = time.monotonic()
    drawn = False
    hinted = False
    while True:
        for doc_id in order:
            if docs[doc_id].get("status") not in ("ready", "error"):
                docs[doc_id] = api.get(f"{base}/{doc_id}")
        elapsed = time.monotonic() - start
        if live:
            if drawn:
                click.echo(f"\x1b[{len(order)}F", nl=False, err=True)
            for doc_id in order:
                line = bar_line(docs[doc_id]["filename"], docs[doc_id], elapsed, width)
                click.echo("\x1b[2K" + line, err=True)
            drawn = True
        elif not quiet:
            for doc_id in order:
                status = docs[doc_id]["status"]
                if seen.get(doc_id) != status:
                    seen[doc_id] = status
                    click.echo(
                        bar_line(docs[doc_id]["filename"], docs[doc_id], elapsed, width), err=True
                    )
        stuck = all(docs[d]["status"] == "pending" for d in order)
        if stuck and not (hinted or quiet) and elapsed >= HINT_AFTER_SECONDS:
            click.echo(HINT.format(s=elapsed), err=True)
            hinted, drawn = True, False  # the bars start again below the hint
        done = all(docs[d]["status"] in ("ready", "error") for d in order)
        if done or elapsed >= timeout:
            return [docs[d] for d in order]
        time.sleep(POLL_SECONDS)


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
