"""Headings of plain text, read from layout alone and conservatively: a line only becomes a
heading when it stands on its own and has a heading's shape.

- numbered lines ("1.", "2.3.4", "A.1") of at most four lines, continuing the numbering of
  the headings before them (items of a numbered list do not) or listed in a printed contents;
- "Chapter 3", "Глава 5.", "Part II", "Appendix A", "CHAPTER I." lines;
- titles underlined with "=====", "-----", "~~~~" (setext style);
- short ALL-CAPS lines, Roman numerals alone ("IV."), and titles standing out to the left
  of a body indented throughout (RFCs), or listed in the printed contents.

Levels: numbered headings by depth ("1.2.3" is 3, a chapter or appendix 1; one more under
parts); the other styles in order of first appearance, as reStructuredText does.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

from mirage_pipeline.parsing.text_contents import Contents, heading_key, norm
from mirage_pipeline.parsing.text_numbering import (
    BARE_NUMBERED,
    KEYWORD,
    NUMBERED,
    PART_WORDS,
    Number,
    longest_chain,
    parse_number,
    roman_value,
)
from mirage_pipeline.parsing.text_runs import Run, indent_of, is_separator

_ROMAN_ALONE = re.compile(r"^\s*(?P<num>[IVXL]{1,7})\.\s*$")
_CAPS_CHARS = re.compile(r"^[\w\s.,'’&:!?()\"«»—–-]+$")
_MAX_TITLE = 240
_RECURRING = 3  # times a title recurs to be a label under the numbered sections


@dataclass
class Heading:
    """A run of lines that is a heading (all of it: a wrapped title, or a title and its rules)."""

    title: str
    style: str  # "number", "part", or a style ranked by first appearance
    depth: int = 1  # of a number
    level: int = 0
    chapter: bool = False  # "Chapter 2", "Appendix A": numbered by a keyword
    opening: bool = False  # numbered "1." (a chapter's own numbering may start over)


def find_headings(runs: list[Run], body: int, contents: Contents) -> dict[int, Heading]:
    """Headings by run index; runs of the printed contents are not looked at."""
    found: dict[int, Heading] = {}
    pending: dict[int, Heading] = {}  # numbered lines the numbering chain decides on
    numbered: list[tuple[int, Number, int]] = []  # (run, number, weight)
    for i in range(len(runs)):
        if i in contents.runs:
            continue
        heading, number, sure = _classify(runs, i, body, contents)
        if heading is None:
            continue
        if number is not None:
            numbered.append((i, number, 5 if sure else 1))
        (found if sure else pending)[i] = heading
    chain = longest_chain(
        [n for _, n, _ in numbered], [i for i, _, _ in numbered], [w for _, _, w in numbered]
    )
    if len(chain) >= 2:
        found.update((i, pending[i]) for i in (numbered[k][0] for k in chain) if i in pending)
    _drop_unlikely(found, runs)
    _assign_levels(found)
    empty = [i for i in found if _empty(found, runs, contents, i)]
    if empty:
        for i in empty:
            del found[i]
        _assign_levels(found)
    return found


def _classify(
    runs: list[Run], i: int, body: int, contents: Contents
) -> tuple[Heading | None, Number | None, bool]:
    """(heading, its number, whether it is sure without the numbering chain)."""
    run = runs[i]
    lines = run.lines
    if is_separator(lines[-1]) and len(lines) in (2, 3):
        return _setext(runs, i, body)
    if len(lines) > 4:
        return None, None, False
    text = run.joined()
    keyword = KEYWORD.match(text) if len(text) <= _MAX_TITLE else None
    if keyword and keyword.group("kw")[0].isupper() and _title_ok(keyword.group("title")):
        if keyword.group("kw").casefold() in PART_WORDS:
            return Heading(text, "part"), None, True
        return Heading(text, "number", chapter=True), parse_number(keyword.group("num")), True
    match = NUMBERED.match(text) or BARE_NUMBERED.match(text)
    if match and _numbered_layout(runs, i, body):
        number = parse_number(match.group("num"))
        listed = heading_key(text) in contents.keys
        if listed or (match.re is NUMBERED and _title_ok(match.group("title"))):
            opening = len(number) == 1 and any(v == 1 for _, v in number[0])
            return Heading(text, "number", len(number), opening=opening), number, listed
    if run.hanging and _title_ok(text):  # one style: one level, "NAME" as "DESCRIPTION"
        return Heading(text.strip(), "hanging"), None, True
    if len(lines) == 1 and _ROMAN_ALONE.match(text):
        return Heading(text, "roman"), None, True
    depth = contents.depths.get(norm(text)) if len(lines) == 1 else None
    if depth is not None and run.indent <= body:
        return Heading(text.strip().rstrip(":"), f"contents {depth}"), None, True
    # centred lines in capitals are often quoted signs or letters: only after a wide gap
    centred = run.indent >= body + 8 and (i == 0 or run.start - runs[i - 1].end >= 3)
    if len(lines) == 1 and (run.indent <= body or centred) and _caps_title(text):
        return Heading(text, "caps"), None, True
    if len(lines) == 1 and _outdented(runs, i, body):
        return Heading(text, "margin"), None, True
    if len(lines) == 1 and run.indent <= body and norm(text) in contents.titles:
        return Heading(text, "listed"), None, True
    return None, None, False


def _setext(runs: list[Run], i: int, body: int) -> tuple[Heading | None, Number | None, bool]:
    """A title underlined (or lined over and under) with one character repeated."""
    lines = runs[i].lines
    overlined = len(lines) == 3
    title_line = lines[1] if overlined else lines[0]
    title = " ".join(title_line.split())
    rule = lines[-1].strip()
    if indent_of(title_line) > body + overlined or not _plain_title(title):
        return None, None, False
    if len(rule) < (len(title) if overlined else max(3, len(title) // 2)):
        return None, None, False
    number = _number_of(title)
    style = "number" if number else f"{'over+' if overlined else ''}underline {rule[0]}"
    return Heading(title, style, len(number or ())), number, True


def _number_of(title: str) -> Number | None:
    match = NUMBERED.match(title) or KEYWORD.match(title)
    return parse_number(match.group("num")) if match else None


def _title_ok(title: str | None) -> bool:
    """A title, not a sentence or the start of one: no closing comma or colon, and no full
    stop unless it is Title Cased ("Conveying Verbatim Copies.")."""
    if title is None:
        return True
    title = title.strip()
    if not title or len(title) > _MAX_TITLE or not re.search(r"[^\W\d_]", title):
        return False
    if title.endswith((",", ";", ":")):
        return False
    if not title.endswith(".") or title.endswith(("..", "…")):
        return True
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", title) if len(w) >= 4]
    return 0 < len(words) <= 8 and sum(w[0].isupper() for w in words) >= 0.7 * len(words)


def _plain_title(title: str) -> bool:
    """An underlined line that is a title: short, one phrase (not a row of table columns nor
    a command between the rules of a listing)."""
    if len(title) > 100 or "  " in title.strip() or not re.match(r"[\w\"'«“(]", title):
        return False
    return _title_ok(title)


def _numbered_layout(runs: list[Run], i: int, body: int) -> bool:
    """Placed as a heading: not indented deeper than the text, wrapped lines flush with the
    first one (not hanging like a list item), and the next block not further out."""
    run = runs[i]
    if run.indent > body:
        return False
    for line in run.lines[1:]:
        if indent_of(line) != run.indent or NUMBERED.match(line):
            return False
    return i + 1 >= len(runs) or runs[i + 1].indent >= run.indent


def _caps_title(text: str) -> bool:
    """A short line in capitals: "INTRODUCTION", "ADVENTURE I. A SCANDAL IN BOHEMIA"."""
    letters = [c for c in text if c.isalpha()]
    words = text.split()
    if len(letters) < 4 or len(text) > 70 or len(words) > 10:
        return False
    if len(words) == 1 and (len(letters) < 5 or re.search(r"\d", text)):
        return False  # a term or a name ("RAID0", "NOTE"), not a title
    if not all(c.isupper() for c in letters) or not _CAPS_CHARS.match(text):
        return False
    if "_" in text or text.startswith(('"', "'", "«", "“")):
        return False  # a line of dialogue
    return _title_ok(text) or bool(re.search(r"\b(?:[IVXLC]+|\d+)\.$", text))


def _outdented(runs: list[Run], i: int, body: int) -> bool:
    """A short title at the margin of a text indented throughout, the text right under it."""
    run = runs[i]
    text = run.lines[0].strip()
    if body < 2 or run.indent != 0 or i + 1 >= len(runs) or runs[i + 1].indent < body:
        return False
    if len(text.split()) > 6 or not text[0].isupper() or re.search(r"\d", text):
        return False
    return _title_ok(text) and not re.search(r"\s{3,}", text)


def _drop_unlikely(found: dict[int, Heading], runs: list[Run]) -> None:
    """Leave out headings that are not: capitals when a third of the text is in capitals,
    Roman numerals out of order, and rows of headings with nothing between them whose
    titles come again later (a contents printed as separate lines)."""
    caps = [i for i, h in found.items() if h.style == "caps"]
    if len(caps) > max(3, len(runs) // 3):
        for i in caps:
            del found[i]
    previous = 0
    for i in sorted(found):
        if found[i].style == "roman":
            value = roman_value(runs[i].lines[0].strip().rstrip("."))
            if value not in (1, previous + 1):
                del found[i]
                continue
            previous = value
    order = sorted(found)
    titles = {i: norm(found[i].title) for i in order}
    for _, group in itertools.groupby(enumerate(order), key=lambda pair: pair[1] - pair[0]):
        row = [i for _, i in group]  # headings on consecutive runs
        later = {titles[j] for j in order if j > row[-1]}
        if len(row) >= 3 and sum(titles[j] in later for j in row) >= 0.6 * len(row):
            for j in row:
                del found[j]


def _empty(found: dict[int, Heading], runs: list[Run], contents: Contents, i: int) -> bool:
    """An unnumbered heading with no text under it: the next heading follows at once and is
    not below it (an author's name on a title page, a line of a quoted notice)."""
    if found[i].style in ("number", "part"):
        return False
    j = i + 1
    while j in contents.runs:
        j += 1
    if j >= len(runs):
        return True
    return j in found and found[j].level <= found[i].level


def _assign_levels(found: dict[int, Heading]) -> None:
    """Numbered headings by depth, parts above them, and one deeper under a "Chapter N" whose
    sections number from "1." again (the Mutt manual: "Chapter 2", then "1.", "2.", "2.1");
    other styles ranked in order of first appearance, from the top when first seen before any
    numbered heading, else under the numbered heading they follow — as is a title of such a
    style that recurs (the FHS's "Rationale", 27 times: its style first met on the title
    page had made each a chapter, the numbered sections after it its children)."""
    parts = any(h.style == "part" for h in found.values())
    titles = Counter(norm(h.title) for h in found.values())
    # a nested contents list gives its entries' levels: its depths rank first, in order
    listed = sorted({h.style for h in found.values() if h.style.startswith("contents ")})
    ranks: dict[str, int] = {style: rank for rank, style in enumerate(listed, 1)}
    top: set[str] = set(listed)
    base = 0
    chapter = False  # under a "Chapter N" whose sections number from 1 again
    after_chapter = False
    for i in sorted(found):
        heading = found[i]
        if heading.style == "part":
            heading.level, base, chapter = 1, 0, False
        elif heading.style == "number":
            if heading.chapter:
                chapter, after_chapter = False, True
            elif after_chapter:  # the chapter's first numbered section: "1." or "2.1."?
                chapter, after_chapter = heading.opening, False
            heading.level = max(heading.depth, 1) + parts + (chapter and not heading.chapter)
            base = heading.level
        else:
            if heading.style not in ranks:
                ranks[heading.style] = len(ranks) + 1
                if not base:
                    top.add(heading.style)
            start = parts if heading.style in top else base or parts
            heading.level = start + ranks[heading.style]
            if heading.style in top and base and titles[norm(heading.title)] >= _RECURRING:
                heading.level = base + 1  # "Rationale" under each numbered section, not above
