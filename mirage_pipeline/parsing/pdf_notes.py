"""Footnotes at the bottom of PDF pages: smaller than the body text and opening with a raised
number. Each becomes a block of its own, so that it is not glued onto the paragraph above."""

from __future__ import annotations

import re

from mirage_pipeline.parsing.pdf_lines import Line, PageLines

_SMALLER = 0.5  # points below the body size
_LOWER_PART = 0.4  # a footnote starts below this share of the page height
_GLUED_MARK = re.compile(r"^(\d{1,3})(?=[^\W\d_a-zа-яё])")
_NUMBER = re.compile(r"\d{1,3}")
_WORDS = re.compile(r"[^\W\d_]{2,}")
_NOTE_START = re.compile(r"(?![a-zа-яё])\S")  # no sentence going on in lowercase


def find_footnotes(pages: list[PageLines], body_size: float) -> dict[int, bool]:
    """Ids of footnote lines → whether the line opens a footnote (its mark) or continues one.

    A page's footnotes start at its first line, in its lower part, that is smaller than the
    body and opens with a superscript number (or a number glued to its first word, numbered
    on down the page); everything below it must be small too."""
    found: dict[int, bool] = {}
    limit = body_size - _SMALLER
    last = 0  # the last number of a glued note
    for page in pages:
        low = [ln for ln in page.lines if ln.size <= limit and ln.y0 > _LOWER_PART * page.height]
        marks = [line for line in low if line.note_mark]
        if not marks:
            marks, last = _glued_marks(low, last)
        if not marks:
            marks, last = _apart_marks(low, last)
        if not marks:
            continue
        top = min(line.y0 for line in marks) - 1
        area: list[Line] = [line for line in page.lines if line.y0 >= top]
        if all(line.size <= limit for line in area):
            opening = {id(line) for line in marks}
            found.update({id(line): id(line) in opening for line in area})
    return found


def _apart_marks(lines: list[Line], last: int) -> tuple[list[Line], int]:
    """Footnotes whose number stands apart on the note's first line, in the note's size, its
    text hanging to its right (LibreOffice's and Word's: "4" | "В июле …", "3" | "11 декабря
    …"): numbered one after another, as glued ones. The mark lines, and the last number."""
    left = min((line.x0 for line in lines), default=0.0)
    found = [
        (int(mark.text), mark)
        for mark in lines
        # at the notes' left edge (not a page number closing an index's column, an axis' tick)
        if _NUMBER.fullmatch(mark.text.strip())
        and mark.x0 <= left + 2
        and any(
            abs(text.y0 - mark.y0) <= 1
            and text.x0 > mark.x1
            and not text.mono  # a numbered listing's line (ltxdoc's "190 }{}")
            and _NOTE_START.match(text.text)
            and len(_WORDS.findall(text.text)) >= 2
            for text in lines
        )
    ]
    # set apart, a number is a mark on less evidence: going up from the page before's, not
    # one by one (a note the rules missed would break the chain for the rest of the book)
    return _numbered_on(found, last, gaps=True)


def _glued_marks(lines: list[Line], last: int) -> tuple[list[Line], int]:
    """Footnotes whose number is set in the line, glued to the note's first word (dblatex's:
    "1В документе предполагается…", "2О том, …"): lines of text (not a listing's, whose line
    numbers may be glued to its code) opening with a number and a capital, a sentence,
    numbered one after another down the page — from 1 or on from the `last` glued note, or
    two such at least ("3D view of the model" under a figure is no note). And the last
    number then."""
    found = [
        (int(m[1]), line)
        for line in lines
        if not line.code and (m := _GLUED_MARK.match(line.text)) and len(line.text.split()) >= 3
    ]
    return _numbered_on(found, last)


def _numbered_on(
    found: list[tuple[int, Line]], last: int, gaps: bool = False
) -> tuple[list[Line], int]:
    """The lines of `found` (number, line) when their numbers go on one by one down the page,
    from 1 or on from `last` (`gaps`: above it), or two at least; and the last number."""
    found.sort(key=lambda item: item[1].y0)
    numbers = [n for n, _ in found]
    if not found or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return [], last
    going_on = numbers[0] > last if gaps else numbers[0] == last + 1
    if len(found) < 2 and numbers[0] != 1 and not going_on:
        return [], last
    return [line for _, line in found], numbers[-1]
