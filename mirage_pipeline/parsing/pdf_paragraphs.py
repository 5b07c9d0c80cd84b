"""Whether a PDF line goes on with the paragraph or code listing above it.

Within one PyMuPDF block it does; across a block boundary a paragraph goes on in the same
column and font with a word — lowercase after a hyphenated one, or any after a line filled to
the right margin without a sentence end — and a listing goes on at a listing's line spacing.
A list item's mark always starts a paragraph.
"""

from __future__ import annotations

import itertools
import re

from mirage_pipeline.parsing.pdf_lines import LIST_MARKS, Line, rows_of

SENTENCE_END = (".", "!", "?", "…", ":", ";", '"', "»", ")")
# before a capital: a closing quote or bracket ends what it closes ("… upgraded.⟩" | "New in")
_CLAUSE_END = (*SENTENCE_END, "”", "’", "⟩", "]")
_HYPHENATED = re.compile(r"\w[-\u00ad]$")
_LINE_STEP_MAX = 2.0  # font sizes between the tops of two lines of one paragraph
_RAGGED_STEP = 1.75  # … when the line before ends short of the margin (no paragraph's spacing)
# … of one code listing: a blank line in it, twice its leading (known from its lines above,
# with a tenth of a font size to spare), or this many font sizes; pandoc's listings (Shaded)
# set a leading of 1.25, a blank line 2.53 font sizes ("com.example.label1=…", a blank line,
# "# this is a comment" were two listings), and the next entry's title after a listing
# stands further off (TeX for the Impatient's "\goodbreak": 2.63)
_CODE_STEP_MAX = 2.5
_CODE_FIRST_STEP_MAX = 2.6  # … after a listing's first line, its leading not known yet
_LEADING_LINES = 6  # a listing's last lines its leading is read from
_COLUMN_SLACK = 5.0  # font sizes an indented line may stand off the line above it
# a list item's mark: the item starts a paragraph even inside the block of the one before
# (a tight LaTeX itemize: texlive-ru's "• Английский: … • Итальянский: …" was one paragraph);
# not "·" or "∙", which also stand between a contents entry and its page, or in "· · ·"
ITEM_MARK = re.compile(f"[{LIST_MARKS}]\\s")
# a line goes on with a word behind an opening bracket or quote too ("скрипт" | "(текстовый
# файл) main3.lua", "модуль" | "“sprite”, который"), not with an item's mark: "(a)", "(2)"
_OPENING_MARKS = re.compile(r"[(«»“„‚\"‘]*")
_ENUMERATION = re.compile(r"\((?:\d+|[^\W\d_]|[ivxIVX]{1,4})\)")
# behind the bracket a word, not a formula's variable: "(в данном примере", "(i.e. the", "(с.
# 12)", not "(x + a)²"
_WORD_AFTER = re.compile(r"[^\W\d_]{2}|[^\W\d_] [^\W\d_]|[^\W\d_]\.")
_LETTERS = re.compile(r"[^\W\d_]")

Margins = dict[tuple[int, float], float]  # (page, font size) → right edge of its text


def same_paragraph(paragraph: list[Line], line: Line, listing: set[int], margins: Margins) -> bool:
    """Whether `line` goes on with the paragraph (or code listing) `paragraph` holds. Across a
    block boundary a paragraph goes on in the same column and font with a word — lowercase
    after a hyphenated one, or any after a line filled to the right margin without a sentence
    end (a Russian sentence goes on with "INSTEAD", "Windows", "LATEX" as often as an English
    one with a name) — the page's margin, or the paragraph's own right edge when it is set
    narrower (a boxed or indented note, each line its own block): the line before or after
    ends where it does. The word may stand behind an opening bracket or quote ("(текстовый
    файл)", "«Особняк»"). Not with a bullet, a digit or an item's "(a)": a list or a listing;
    a bullet's item starts a paragraph of its own even in the block of the lines above.
    `listing`: ids of the lines of code listings (`listing_lines`)."""
    last = paragraph[-1]
    code = id(line) in listing
    if code != (id(last) in listing):
        # A listing set in the block of the prose around it starts or ends here, unless the
        # line stands beside the other (a table cell) or flush with it (a path on a line).
        return line.block == last.block and (
            line.y0 - last.y0 < 0.5 * last.size or abs(line.x0 - last.x0) < last.size
        )
    if not code and ITEM_MARK.match(line.text):
        return False
    if (
        not code
        and ITEM_MARK.match(paragraph[0].text)
        and line.x0 < paragraph[0].x0 - 2
        and last.text.rstrip().endswith(SENTENCE_END)
        and not first_letter(line.text).islower()
    ):
        # left of the item's mark after its sentence ended: the text after the list, in its
        # block or not (an item wrapping to the margin goes on: "…from the official" /
        # "Debian archive")
        return False
    if line.block == last.block:
        return True
    if line.page != last.page:
        return False
    if code:
        return 0 < line.y0 - last.y0 <= _code_step_max(paragraph)
    return _prose_goes_on(paragraph, line, margins)


def _code_step_max(listing: list[Line]) -> float:
    """How far below a listing's last line its next line may start (`_CODE_STEP_MAX`); its
    leading is the least step between its last lines on the page (a step over a blank line
    is two)."""
    last = listing[-1]
    recent = [line for line in listing[-_LEADING_LINES:] if line.page == last.page]
    steps = [b.y0 - a.y0 for a, b in itertools.pairwise(recent) if b.y0 - a.y0 >= 0.5 * b.size]
    if not steps:
        return _CODE_FIRST_STEP_MAX * last.size
    return max(_CODE_STEP_MAX * last.size, 2 * min(steps) + 0.1 * last.size)


def _prose_goes_on(paragraph: list[Line], line: Line, margins: Margins) -> bool:
    """Whether `line`, in a block of its own on the page of the paragraph's last line, goes
    on with that paragraph of prose (`same_paragraph`)."""
    last = paragraph[-1]
    step = line.y0 - last.y0
    hyphenated = line.text[:1].islower() and bool(_HYPHENATED.search(last.text))
    mixed, start = _mixed_row(paragraph, line, hyphenated)
    first = opening(line)
    if not (
        first
        and abs(line.size - last.size) <= (0.15 * max(line.size, last.size) if mixed else 0.5)
        and 0 < step <= _LINE_STEP_MAX * last.size
        and abs(line.x0 - start) <= _COLUMN_SLACK * last.size
    ):
        return False
    if hyphenated:
        return True
    margin = margins[(last.page, round(last.size))]
    if (
        first.islower()
        and not mixed
        and step <= _RAGGED_STEP * last.size
        and abs(line.x0 - last.x0) <= 1
        and last.x1 - last.x0 >= 0.6 * (margin - last.x0)
        and not last.text.endswith(SENTENCE_END)
    ):
        # ragged right (a browser's print, each line its own block): a sentence going on in
        # lowercase at the next line's usual distance, flush left, after a line that is most
        # of the measure (not a short item of a list) — not only after a full line
        return True
    ends = SENTENCE_END if first.islower() and not mixed else _CLAUSE_END
    return _fills_measure(paragraph, line, margin) and not last.text.endswith(ends)


def _mixed_row(paragraph: list[Line], line: Line, hyphenated: bool) -> tuple[bool, float]:
    """Whether the paragraph's last row mixes prose and monospaced words with `line`, and the
    left edge `line` is to be flush with. A line may come in pieces ("строками," …
    "функциями-", "(смотрите" + a path in a monospaced font, each its own block): a broken
    word, or prose after a word set in a monospaced font, goes on at the row's start."""
    last = paragraph[-1]
    row = [ln for ln in paragraph[-8:] if ln.page == last.page and abs(ln.y0 - last.y0) < 1]
    row = sorted(row, key=lambda ln: ln.x0) or [last]
    # … and such a word, a size smaller, may wrap onto a line of its own: "…Смотрите info
    # autoconf и info" / "automake." (LibreOffice) was a code block; not prose after a
    # listing's line (numbered: "500 % \\Declare…")
    mixed = (
        (line.mono or any(ln.mono for ln in row))
        and any(not ln.mono and _LETTERS.search(ln.text) for ln in row)
        # flush with the row (not the next item of a list) or a word broken across them
        and (hyphenated or abs(line.x0 - row[0].x0) <= 1)
    )
    return mixed, row[0].x0 if hyphenated or mixed else last.x0


def _fills_measure(paragraph: list[Line], line: Line, margin: float) -> bool:
    """Whether the paragraph's last line reaches the right margin, or ends where the line
    before or after it ends when the paragraph is set narrower than the page."""
    last = paragraph[-1]
    return last.x1 >= margin - last.size or (
        last.x1 - last.x0 >= 0.5 * (margin - last.x0)
        and any(
            abs(other.x1 - last.x1) <= 0.5 * last.size
            for other in (*paragraph[-2:-1], line)
            if other.page == last.page
        )
    )


def opening(line: Line) -> str:
    """The letter `line` opens with (`first_letter`), or "A" for a name set in a monospaced
    font opening a line of prose ("*.html. Вы должны…": a sentence goes on with one)."""
    first = first_letter(line.text)
    if not first and line.mono_ends[0] and not line.mono and not _ENUMERATION.match(line.text):
        return "A"
    return first


def first_letter(text: str) -> str:
    """The letter a line's first word starts with, behind an opening bracket or quote; "" when
    the line opens with something else (a digit, a mark, an item's "(a)")."""
    if _ENUMERATION.match(text):
        return ""
    opening_marks = _OPENING_MARKS.match(text).end()
    if opening_marks and not _WORD_AFTER.match(text, opening_marks):
        return ""
    found = text[opening_marks : opening_marks + 1]
    return found if found.isalpha() else ""


def listing_lines(lines: list[Line]) -> set[int]:
    """Ids of the lines of code listings: monospaced throughout, and so is the rest of their
    row (a command name set alone on a line of prose is not a listing)."""
    found: set[int] = set()
    for _, group in itertools.groupby(lines, key=lambda line: line.page):
        page = list(group)
        if any(line.code for line in page):
            for row in rows_of(page):
                if all(line.code for line in row):
                    found.update(id(line) for line in row)
    return found
