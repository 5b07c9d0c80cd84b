"""Footnotes at the bottom of PDF pages: smaller than the body text and opening with a raised
number. Each becomes a block of its own, so that it is not glued onto the paragraph above."""

from __future__ import annotations

from mirage_pipeline.parsing.pdf_lines import Line, PageLines

_SMALLER = 0.5  # points below the body size
_LOWER_PART = 0.4  # a footnote starts below this share of the page height


def find_footnotes(pages: list[PageLines], body_size: float) -> dict[int, bool]:
    """Ids of footnote lines → whether the line opens a footnote (its mark) or continues one.

    A page's footnotes start at its first line, in its lower part, that is smaller than the
    body and opens with a superscript number; everything below it must be small too."""
    found: dict[int, bool] = {}
    limit = body_size - _SMALLER
    for page in pages:
        marks = [
            line
            for line in page.lines
            if line.note_mark and line.size <= limit and line.y0 > _LOWER_PART * page.height
        ]
        if not marks:
            continue
        top = min(line.y0 for line in marks) - 1
        area: list[Line] = [line for line in page.lines if line.y0 >= top]
        if all(line.size <= limit for line in area):
            found.update({id(line): line.note_mark for line in area})
    return found
