"""`mirage search`: ask one project a question through the HTTP API."""

from __future__ import annotations

import json
import sys

import click

from mirage_query.cli.settings import load_settings


@click.command()
@click.option("--project", "-p", required=True, help="Project to search.")
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--threshold", type=float, default=None, help="Minimum cosine similarity.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON unchanged.")
@click.argument("query")
def search(project: str, limit: int, threshold: float | None, as_json: bool, query: str) -> None:
    """Search PROJECT for QUERY and print the best passages with their citations."""
    import httpx

    from mirage_pipeline.settings import read_api_keys

    settings = load_settings()
    keys = read_api_keys(settings)
    body: dict[str, object] = {"query": query, "limit": limit}
    if threshold is not None:
        body["threshold"] = threshold
    url = f"{settings.api_url}/projects/{project}/search"
    try:
        response = httpx.post(
            url, json=body, headers={"X-API-Key": keys[0] if keys else ""}, timeout=60
        )
    except httpx.TransportError:
        click.echo(f"cannot reach miRAGe at {settings.api_url} — is `mirage up` running?", err=True)
        sys.exit(4)
    if response.status_code == 401:
        click.echo("the API key was refused: set MIRAGE_API_KEY", err=True)
        sys.exit(5)
    if response.status_code == 404:
        click.echo(response.json().get("detail", "not found"), err=True)
        sys.exit(3)
    if response.status_code >= 400:
        click.echo(f"search failed ({response.status_code}): {response.text}", err=True)
        sys.exit(1)
    results = response.json()
    if as_json:
        click.echo(json.dumps(results, ensure_ascii=False, indent=2))
        return
    if not results:
        click.echo("no results")
        return
    for rank, hit in enumerate(results, 1):
        click.echo(click.style(f"{rank}. {citation(hit)}  [{hit['score']:.3f}]", bold=True))
        snippet = " ".join(hit["content"].split())
        click.echo(f"   {snippet[:300]}{'…' if len(snippet) > 300 else ''}\n")


def citation(hit: dict) -> str:
    """`file › chapter › section (lines a–b)` from a search result."""
    structure = hit.get("structure") or {}
    parts = [hit["document"].get("title") or hit["document"]["filename"]]
    parts += [h for h in structure.get("heading_path", []) if h and h not in parts]
    where = ""
    if structure.get("page_start"):
        where = f" (pp. {structure['page_start']}–{structure.get('page_end')})"
    elif structure.get("page"):
        where = f" (p. {structure['page']})"
    elif structure.get("line_start"):
        where = f" (lines {structure['line_start']}–{structure.get('line_end')})"
    return " › ".join(parts) + where
