"""`mirage search`: one question, or `--batch` several sub-questions in one request."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import click

from mirage_query.cli.client import (
    USAGE,
    Api,
    CliError,
    json_option,
    print_json,
    project_option,
    resolve_project,
)
from mirage_query.cli.output import print_hits

MAX_BATCH = 8


@click.command()
@project_option
@click.argument("queries", nargs=-1, required=True, metavar="QUERY...")
@click.option("--batch", is_flag=True, help=f"Run each QUERY (up to {MAX_BATCH}) in one request.")
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "vector", "text"]),
    default="hybrid",
    show_default=True,
    help="Vector and full-text fused (RRF), or one of them.",
)
@click.option("--tag", "tags", multiple=True, help="Only chunks with this tag (repeatable).")
@click.option(
    "--document", "-d", "document_refs", multiple=True, help="Only this document (id or file name)."
)
@click.option(
    "--expand",
    type=click.IntRange(0, 3),
    default=0,
    show_default=True,
    help="Add N neighbouring chunks around each hit for context.",
)
@click.option(
    "--threshold", type=click.FloatRange(-1, 1), default=None, help="Min cosine similarity."
)
@json_option
def search(
    project: str | None,
    queries: tuple[str, ...],
    batch: bool,
    limit: int,
    mode: str,
    tags: tuple[str, ...],
    document_refs: tuple[str, ...],
    expand: int,
    threshold: float | None,
    as_json: bool,
) -> None:
    """Search the project and print the best passages with their citations.

    \b
    mirage search "how do I brew coffee"
    mirage search --batch "first sub-question" "second sub-question" --json
    """
    if not batch and len(queries) > 1:
        raise CliError(
            f"got {len(queries)} queries: quote the question, or use --batch for several", USAGE
        )
    if batch and len(queries) > MAX_BATCH:
        raise CliError(f"--batch takes at most {MAX_BATCH} queries (got {len(queries)})", USAGE)
    project = resolve_project(project)
    body: dict[str, Any] = {"limit": limit, "mode": mode, "expand": expand}
    if threshold is not None:
        body["threshold"] = threshold
    filters: dict[str, list[str]] = {}
    if tags:
        filters["tags"] = list(tags)
    if document_refs:
        filters["documents"] = list(document_refs)
    if filters:
        body["filters"] = filters
    api = Api.from_env()
    base = f"/projects/{quote(project, safe='')}/search"
    if not batch:
        hits = api.post(base, json={"query": queries[0], **body})
        if as_json:
            print_json(hits)
        else:
            print_hits(hits)
        return
    answer = api.post(f"{base}/batch", json={"queries": [{"query": q} for q in queries], **body})
    if as_json:
        print_json(answer)
        return
    for i, (query, hits) in enumerate(zip(queries, answer["results"], strict=True), 1):
        found = sum(1 for h in hits if not h.get("context"))
        click.echo(
            click.style(f"Q{i}: {query}", bold=True) + f"  ({found} hit{'' if found == 1 else 's'})"
        )
    click.echo()
    print_hits(answer["union"], found_by=True)
