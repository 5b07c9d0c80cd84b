"""`mirage inspect FILE`: what the pipeline would make of a file, without indexing it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from mirage_query.cli.client import config_files
from mirage_query.cli.output import where as place
from mirage_query.cli.settings import load_settings


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print metadata, toc and chunks as JSON.")
@click.option("--full", is_flag=True, help="Print each chunk's whole text, not a preview.")
def inspect(file: Path, as_json: bool, full: bool) -> None:
    """Parse and chunk FILE as the pipeline would: metadata, section tree, chunks and tokens.

    The project's indexing policy (a `.mirage.yaml` with an `indexing:` key in the file's
    folder or above it) is applied, and tokens are counted with the configured embedder's
    tokenizer, so what you see is what would be indexed.
    """
    from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
    from mirage_pipeline.embedders import EmbedderError, create_embedder
    from mirage_pipeline.parsing import ParseError, file_type_of, parse_document

    settings = load_settings()
    try:
        policy = _find_policy(file.resolve().parent)
        doc = parse_document(file.read_bytes(), file.name, policy)
        embedder = create_embedder(settings.embedder, ollama_host=settings.ollama_host)
        chunks = chunk_document(
            doc, embedder.count_tokens, ChunkingPolicy.for_window(embedder.max_tokens)
        )
    except ParseError as exc:
        click.echo(f"{file}: cannot be indexed: {exc}", err=True)
        sys.exit(1)
    except EmbedderError as exc:
        click.echo(f"{file}: the embedder is not usable: {exc}", err=True)
        sys.exit(1)
    metadata: dict[str, Any] = {"title": doc.title, **doc.metadata}
    if doc.pages:
        metadata["pages"] = doc.pages
    if doc.warnings:
        metadata["warnings"] = doc.warnings
    if doc.skipped:
        metadata["skipped"] = doc.skipped
    report = {
        "format": doc.format or file_type_of(file.name),
        "metadata": metadata,
        "toc": doc.toc(),
        "chunks": [
            {"content": c.content, "structure": c.structure, "tokens": c.tokens, "lang": c.lang}
            | ({"metadata": c.metadata} if c.metadata else {})
            for c in chunks
        ],
    }
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    _print_report(report, embedder.name, embedder.max_tokens, full)


def _find_policy(folder: Path):
    from mirage_pipeline.parsing import load_policy

    for candidate in config_files(folder):
        policy = load_policy(candidate.parent)
        if policy is not None:
            return policy
    return None


def _print_report(report: dict[str, Any], model: str, window: int, full: bool) -> None:
    meta = report["metadata"]
    click.secho(f"{meta['title']}", bold=True)
    details = {k: v for k, v in meta.items() if k not in ("title", "warnings", "skipped")}
    click.echo(f"format: {report['format']}" + "".join(f"; {k}: {v}" for k, v in details.items()))
    for warning in meta.get("warnings", []):
        click.secho(f"warning: {warning}", fg="yellow")
    if meta.get("skipped"):
        click.secho(f"skipped by the project's policy: {meta['skipped']}", fg="yellow")
    click.secho(f"\nsections ({len(report['toc'])})", bold=True)
    for entry in report["toc"]:
        where = f"p. {entry['page']}" if "page" in entry else f"line {entry.get('line', '?')}"
        click.echo(f"{'  ' * (entry['level'] - 1)}- {entry['title']}  ({where})")
    chunks = report["chunks"]
    tokens = sorted(c["tokens"] for c in chunks) or [0]
    click.secho(
        f"\nchunks ({len(chunks)}; tokens min {tokens[0]}, median {tokens[len(tokens) // 2]}, "
        f"max {tokens[-1]} of {window} for {model})",
        bold=True,
    )
    for n, chunk in enumerate(chunks):
        s = chunk["structure"]
        path = " › ".join(s.get("heading_path") or []) or "(no heading)"
        where = place(s).strip().removeprefix("(").removesuffix(")")
        click.secho(
            f"\n[{n}] {path}  {where}  ({chunk['tokens']} tokens, {chunk['lang']})", fg="cyan"
        )
        text = chunk["content"] if full else " ".join(chunk["content"].split())[:240]
        click.echo(text + ("" if full or len(chunk["content"]) <= 240 else " …"))
