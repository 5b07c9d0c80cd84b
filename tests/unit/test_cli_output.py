"""Human output of the CLI: citations, snippets, tables, progress bars."""

from __future__ import annotations

import click
from click.testing import CliRunner

from mirage_query.cli import cli
from mirage_query.cli.output import citation, print_hits, snippet, table
from mirage_query.cli.progress import bar_line, live_bars, status_tail


def test_citation_book_chapter_section_and_place() -> None:
    pdf = {
        "structure": {
            "book": "PostgreSQL Internals",
            "heading_path": ["PostgreSQL Internals", "Write-Ahead Log", "Checkpoints"],
            "page": 212,
        },
        "document": {"filename": "pg.pdf", "title": "PostgreSQL Internals"},
    }
    assert citation(pdf) == "PostgreSQL Internals › Write-Ahead Log › Checkpoints (p. 212)"
    spread = {"structure": {"book": "B", "chapter": "C", "page_start": 3, "page_end": 5}}
    assert citation(spread) == "B › C (pp. 3–5)"
    text = {"structure": {"line_start": 9, "line_end": 12}, "document": {"filename": "n.md"}}
    assert citation(text) == "n.md (lines 9–12)"
    assert citation(
        {"structure": {"line_start": 4, "line_end": 4}, "document": {"title": "T"}}
    ) == ("T (line 4)")
    printed = {"structure": {"book": "B", "page": 11, "page_label": "1"}}
    assert citation(printed) == "B (p. 11, printed 1)"
    across = {"structure": {"book": "B", "page_start": 9, "page_end": 10}}
    across["structure"] |= {"page_label": "viii", "page_label_end": "ix"}
    assert citation(across) == "B (pp. 9–10, printed viii–ix)"


def test_every_hit_names_its_file() -> None:
    def hit(chunk_id: int, filename: str, title: str | None = "Записки юного врача") -> dict:
        structure = {"book": title, "chapter": "Полотенце с петухом"} if title else {}
        return {
            "chunk_id": chunk_id,
            "score": 0.5,
            "content": "Свет в окне.",
            "structure": {**structure, "line_start": 3, "line_end": 4},
            "document": {"id": str(chunk_id), "filename": filename, "title": title},
        }

    @click.command()
    def show() -> None:
        print_hits(
            [
                hit(1, "books/vrach.fb2"),
                hit(2, "books/vrach.windows-1251.fb2"),
                hit(3, "n.md", None),
            ]
        )

    heads = [ln for ln in CliRunner().invoke(show).output.splitlines() if ln[:1].isdigit()]
    assert heads == [
        "1. Записки юного врача › Полотенце с петухом (lines 3–4) — books/vrach.fb2  [0.5000]",
        "2. Записки юного врача › Полотенце с петухом (lines 3–4) — books/vrach.windows-1251.fb2"
        "  [0.5000]",
        "3. n.md (lines 3–4)  [0.5000]",  # the citation is the file name already
    ]


def test_snippet_bolds_highlighted_terms_and_stays_short() -> None:
    hit = {"content": "x", "highlights": ["the <b>checkpoint</b> writes dirty pages"]}
    assert click.unstyle(snippet(hit)) == "the checkpoint writes dirty pages"
    assert "\x1b[" in snippet(hit)  # styled (click strips it when not on a terminal)
    long = {"content": "word " * 200, "highlights": []}
    assert len(click.unstyle(snippet(long, width=50))) <= 52


def test_table_aligns_columns() -> None:
    @click.command()
    def show() -> None:
        table(["NAME", "N"], [["alpha", 1], ["b", 100]])

    lines = CliRunner().invoke(show).output.splitlines()
    assert lines == ["NAME     N", "alpha    1", "b      100"]


def test_progress_bar_per_status() -> None:
    pending = click.unstyle(bar_line("a.md", {"status": "pending"}, 1, 6))
    assert pending.startswith("a.md    [#####---------------]  pending")
    ready = click.unstyle(bar_line("a.md", {"status": "ready", "chunk_count": 3}, 5, 4))
    assert "[" + "#" * 20 + "]" in ready and ready.endswith("3 chunks")
    error = click.unstyle(bar_line("a.md", {"status": "error", "error": "empty file"}, 5, 4))
    assert error.endswith("empty file")


def test_every_command_of_the_issue_is_there() -> None:
    out = CliRunner().invoke(cli, ["--help"]).output
    for name in [
        "documents",
        "init",
        "inspect",
        "link",
        "projects",
        "reindex",
        "search",
        "skill",
        "up",
    ]:
        assert f"  {name} " in out, name
    documents = CliRunner().invoke(cli, ["documents", "--help"]).output
    for name in ["add", "chunks", "list", "remove", "status"]:
        assert f"  {name} " in documents, name


def test_live_bars_draw_each_document_with_its_status() -> None:
    import io

    from rich.console import Console

    out = io.StringIO()
    bars = live_bars(8, Console(file=out, force_terminal=True, width=100))
    bars.start()
    ready = {"status": "ready", "chunk_count": 3}
    first = bars.add_task("", total=4, name="a.md", tail=status_tail(ready, 2.0))
    bars.add_task("", total=4, name="b.md", tail=status_tail({"status": "indexing"}, 2.0))
    bars.update(first, completed=4)
    bars.refresh()
    bars.stop()
    text = out.getvalue()
    assert "a.md" in text and "ready" in text and "3 chunks" in text
    assert "b.md" in text and "indexing" in text
