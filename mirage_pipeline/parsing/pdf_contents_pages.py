"""Printed tables of contents in a PDF's text: rows of titles, dot leaders and page numbers,
found page by page and taken out of the text (`pdf_contents` reads their entries)."""

from __future__ import annotations

import itertools
import re

from mirage_pipeline.parsing.pdf_lines import Line, PageLines, rows_of

# Dot leaders of a printed table of contents: ". . . . ." or "........"
LEADER = re.compile(r"(?:\.[ \u00a0]{1,3}){4,}\.|\.{5,}|…{3,}")
_ENTRY_END = re.compile(r"(?:^|\s|\.\.|…)(?:\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)
# an entry's first row, its title going on in the next: "3.4.1 Системске променљиве на"
_ENTRY_START = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*|[A-ZА-Я](?:\.\d{1,2})+)\.?\s+\w")
CONTENTS_TITLE = re.compile(
    r"^(?:table of contents|contents|содержание|оглавление|зміст|садржај|съдържание"
    r"|list of (?:figures|tables))$",
    re.IGNORECASE,
)


def drop_printed_contents(pages: list[PageLines]) -> list[PageLines]:
    """Remove printed tables of contents (rows of titles, dot leaders and page numbers) in
    place; return what was removed, page by page (`pdf_contents` reads its entries).

    The outline (or the detected headings) already gives the structure; a printed contents
    page would only turn into chunks of dots and numbers that outrank the real sections in
    search. A page qualifies with at least three leader rows; its contents run from the first
    to the last leader row, widened to the entry-like rows around them (a chapter entry set
    without leaders, the "Contents" title above). Body text after the contents stays.
    """
    found: list[PageLines] = []
    for page in pages:
        rows = rows_of(page.lines)
        texts = [" ".join(ln.text for ln in sorted(row, key=lambda ln: ln.x0)) for row in rows]
        leaders = [
            i for i, text in enumerate(texts) if LEADER.search(text) and _ENTRY_END.search(text)
        ]
        # contents that spill onto the next page start at its top
        continued = (
            bool(found) and found[-1].number == page.number - 1 and leaders[:1] in ([0], [1])
        )
        if len(leaders) < 3 and not continued:
            continue
        span = _contents_span(rows, texts, leaders)
        if span is None:
            continue
        drop = {id(ln) for row in rows[span[0] : span[1] + 1] for ln in row}
        found.append(
            PageLines(page.number, page.height, [ln for ln in page.lines if id(ln) in drop])
        )
        page.lines = [ln for ln in page.lines if id(ln) not in drop]
    return found


def _contents_span(
    rows: list[list[Line]], texts: list[str], leaders: list[int]
) -> tuple[int, int] | None:
    """First and last row of the printed contents on a page, or None when the dotted rows are
    too sparse to be contents (a form or a table in running text)."""
    first, last = leaders[0], leaders[-1]
    entries = sum(
        1
        for text in texts[first : last + 1]
        if LEADER.search(text) or _ENTRY_END.search(text) or _ENTRY_START.match(text)
    )
    if entries < 0.5 * (last - first + 1):  # two columns of contents interleave their rows
        return None
    tops = [row[0].y0 for row in rows]
    steps = sorted(b - a for a, b in itertools.pairwise(tops[first : last + 1]))
    close = 2.5 * steps[len(steps) // 2] if steps else 30.0  # entries sit at the usual spacing

    def entry(i: int, toward: int) -> bool:
        """Row i continues the contents: near its neighbour, short, and ending in a page
        number (or wrapped onto a next row that does) or starting with a section number."""
        if abs(tops[i] - tops[toward]) > close or len(texts[i]) >= 120:
            return False
        if _ENTRY_END.search(texts[i]) or _ENTRY_START.match(texts[i]):
            return True
        j = i + 1
        return (
            j < len(rows)
            and j != toward
            and tops[j] - tops[i] <= close
            and len(texts[j]) < 120
            and bool(_ENTRY_END.search(texts[j]))
        )

    while first > 0 and entry(first - 1, first):
        first -= 1
    if first > 0 and CONTENTS_TITLE.match(texts[first - 1].strip()):
        first -= 1
    while last + 1 < len(rows) and last - leaders[-1] < 4 and entry(last + 1, last):
        last += 1
    return first, last
