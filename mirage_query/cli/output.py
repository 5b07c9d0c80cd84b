"""Human output: aligned tables, citations and highlighted snippets."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import click

_BOLD = re.compile(r"<b>(.*?)</b>", re.S)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Columns padded to their widest cell; numbers right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    numeric = [
        bool(rows) and all(isinstance(row[i], int | float) for row in rows)
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    click.echo(click.style(line(headers), bold=True))
    for row in cells:
        click.echo(line(row))


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def citation(hit: dict[str, Any]) -> str:
    """`book › chapter › section (p. 3)` (or lines a–b) from a search result or a chunk."""
    structure = hit.get("structure") or {}
    document = hit.get("document") or {}
    first = structure.get("book") or document.get("title") or document.get("filename")
    parts = [first] if first else []
    trail = structure.get("heading_path") or [
        structure.get(k) for k in ("chapter", "section") if structure.get(k)
    ]
    parts += [h for h in trail if h and h not in parts]
    return " › ".join(str(p) for p in parts) + where(structure)


def source_file(hit: dict[str, Any]) -> str:
    """The hit's file (its path in the project), unless the citation already starts with it:
    two copies of a book (say UTF-8 and Windows-1251 FB2) give the same citation."""
    document = hit.get("document") or {}
    if not ((hit.get("structure") or {}).get("book") or document.get("title")):
        return ""  # the citation is the file name itself
    return document.get("filename") or ""


def where(structure: dict[str, Any]) -> str:
    """Pages (with the numbers printed on them when the book's differ) or lines."""
    printed = structure.get("page_label")
    if printed and structure.get("page_label_end"):
        printed = f"{printed}–{structure['page_label_end']}"
    printed = f", printed {printed}" if printed else ""
    if structure.get("page_start") and structure.get("page_end") not in (
        None,
        structure["page_start"],
    ):
        return f" (pp. {structure['page_start']}–{structure['page_end']}{printed})"
    page = structure.get("page") or structure.get("page_start")
    if page:
        return f" (p. {page}{printed})"
    start, end = structure.get("line_start"), structure.get("line_end")
    if start:
        return f" (line {start})" if end in (None, start) else f" (lines {start}–{end})"
    return ""


def snippet(hit: dict[str, Any], width: int = 240) -> str:
    """The first highlight with its terms in bold, else the start of the content."""
    highlights = hit.get("highlights") or []
    text = " ".join((highlights[0] if highlights else hit.get("content", "")).split())
    plain = _BOLD.sub(r"\1", text)
    if len(plain) > width:
        # cut on the plain text, then re-apply bold to the terms that survive
        terms = {m.group(1) for m in _BOLD.finditer(text)}
        text = plain[:width].rsplit(" ", 1)[0] + " …"
        for term in sorted(terms, key=len, reverse=True):
            text = re.sub(rf"(?<![\w<]){re.escape(term)}(?!\w)", f"<b>{term}</b>", text)
    return _BOLD.sub(lambda m: click.style(m.group(1), bold=True, fg="yellow"), text)


def print_hits(hits: list[dict[str, Any]], *, found_by: bool = False) -> None:
    """Numbered hits with citations, file names and snippets; `expand` neighbours dimmed around
    their hit."""
    if not hits:
        click.echo("no results")
        return
    rank = 0
    shown: int | None = None  # the chunk_id of the last hit printed
    before: list[dict[str, Any]] = []  # neighbours the API puts ahead of their hit
    for hit in hits:
        if hit.get("context"):
            if shown is not None and hit.get("context_for") == shown:
                _context(hit)
            else:
                before.append(hit)
            continue
        rank += 1
        shown = hit.get("chunk_id")
        extra = ""
        if found_by and hit.get("queries") is not None:
            extra = "  (queries " + ", ".join(str(q + 1) for q in hit["queries"]) + ")"
        if rank > 1:
            click.echo()
        head = click.style(f"{rank}. {citation(hit)}", bold=True)
        file = source_file(hit)
        named = f" — {file}" if file else ""
        click.echo(f"{head}{named}  [{hit['score']:.4f}]{extra}")
        for neighbour in before:
            _context(neighbour)
        before = []
        click.echo(f"   {snippet(hit)}")


def _context(hit: dict[str, Any]) -> None:
    text = " ".join(hit.get("content", "").split())
    text = text if len(text) <= 240 else text[:240].rsplit(" ", 1)[0] + " …"
    click.echo(click.style(f"   ┆ {text}", dim=True))
