"""A printed table of contents as evidence for a PDF without an outline.

Its numbered entries say which sections exist and at what depth ("3.5." is level 2); each is
found as the heading lines on its printed page (shifted to the physical page), and the headings
detected from fonts fill in the rest at levels calibrated against the entries they matched.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from mirage_pipeline.parsing.model import Section
from mirage_pipeline.parsing.pdf_contents_pages import LEADER
from mirage_pipeline.parsing.pdf_headings import Heading
from mirage_pipeline.parsing.pdf_lines import Line, PageLines, rows_of

_NOT_WORD = re.compile(r"[\W_]+")
_PAGE_AT_END = re.compile(r"(?:^|\s|\.)(\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)
_TITLE_END = re.compile(r"[\s.…·]+$")
_LABEL_WORDS = "chapter|part|appendix|section|глава|часть|раздел|приложение|розділ|частина|додаток"
_LABEL = re.compile(rf"^(?:{_LABEL_WORDS})\s+", re.IGNORECASE)
_PART = re.compile(r"^(?:part|часть)\s", re.IGNORECASE)
# "3.5.", "A.2", "IV" (roman numerals and single letters only after a label: "Part IV").
_NUMBER = re.compile(
    rf"^(?:(?i:{_LABEL_WORDS})\s+(?P<labelled>[IVXLC]+|[A-ZА-Я]|\d+)(?:\.\d+)*"
    r"|(?P<plain>\d+(?:\.\d+)*|[A-ZА-Я](?:\.\d+)+))\.?(?=\s|$)"
)
_CONTENTS_TITLE = re.compile(
    r"^(?:table of contents|contents|содержание|оглавление)$", re.IGNORECASE
)
_LIST_TITLE = re.compile(
    r"^(?:list of (?:figures|tables|listings|examples|illustrations)"
    r"|список (?:таблиц|рисунков|иллюстраций|листингов))$",
    re.IGNORECASE,
)
_ASIDE = re.compile(r"^\([^()]*\)$")
_PAGE_CELL = re.compile(r"(?:\s*\|)*\s+(?:\d{1,4}|[ivxlc]{1,6})\s*$")  # "… | 12", "… 12"
_MIN_VOTES = 2  # entries that must agree on where printed page 1 is


@dataclass(frozen=True)
class ContentsEntry:
    title: str  # as printed, without the leader and the page number
    number: str | None  # "3.5", "A.1", "IV": the section number, when it has one
    level: int
    page: int | None  # the printed page number (arabic), when there is one


def read_contents(pages: list[PageLines]) -> list[ContentsEntry]:
    """The entries of printed contents pages, in order; lists of figures and tables skipped."""
    raw: list[tuple[str, float]] = []  # text, indent
    listing = False
    for page in pages:
        pending: tuple[str, float] | None = None  # a title wrapped onto the next row
        for row in rows_of(page.lines):
            text = _row_text(row)
            if _CONTENTS_TITLE.match(text):
                listing = False
            elif _LIST_TITLE.match(text):
                listing = True
            elif listing:
                continue
            elif _PAGE_AT_END.search(text):
                raw.append((f"{pending[0]} {text}", pending[1]) if pending else (text, row[0].x0))
                pending = None
            else:
                pending = (text, row[0].x0)
    return _levels([_entry(text, x0) for text, x0 in raw])


def _row_text(row: list[Line]) -> str:
    seen: set[tuple[str, int]] = set()  # some producers print a line twice at one place
    parts = []
    for line in sorted(row, key=lambda ln: ln.x0):
        key = (line.text, round(line.x0))
        if key not in seen:
            seen.add(key)
            parts.append(line.text)
    return " ".join(" ".join(parts).split())


def _entry(text: str, x0: float) -> tuple[str, str | None, int, int | None, float]:
    """Title, number, depth (0 when unnumbered), printed page, indent of one entry row."""
    found = _PAGE_AT_END.search(text)
    page = int(found.group(1)) if found and found.group(1).isdigit() else None
    title = text[: found.start(1)] if found else text
    title = _TITLE_END.sub("", LEADER.sub(" ", title))
    title = " ".join(title.split())
    number = _number(title)
    return title, number, number.count(".") + 1 if number else 0, page, x0


def _levels(raw: list[tuple[str, str | None, int, int | None, float]]) -> list[ContentsEntry]:
    """Numbered entries by their depth (under parts, when there are any); unnumbered ones by
    their indent, as the numbered entries at that indent are."""
    parts = any(_PART.match(title) for title, *_ in raw)
    by_indent: dict[int, Counter[int]] = defaultdict(Counter)
    for title, number, depth, _, x0 in raw:
        if number:
            by_indent[round(x0 / 4)][depth + (parts and not _PART.match(title))] += 1
    indents = sorted({round(x0 / 4) for *_, x0 in raw})
    entries = []
    for title, number, depth, page, x0 in raw:
        if number:
            level = depth + (parts and not _PART.match(title))
        elif by_indent.get(round(x0 / 4)):
            level = by_indent[round(x0 / 4)].most_common(1)[0][0]
        else:
            level = indents.index(round(x0 / 4)) + 1
        entries.append(ContentsEntry(title, number, level, page))
    return entries


def _key(text: str) -> str:
    """Text compared without case, punctuation or a leading "Chapter"/"Глава" word."""
    return _NOT_WORD.sub("", _LABEL.sub("", text.strip()).casefold())


def apply_contents(
    entries: list[ContentsEntry],
    detected: list[Heading],
    lines: list[Line],
    page_starts: dict[int, int],
) -> list[Heading] | None:
    """Headings with the printed contents' evidence: its numbered entries placed on their
    pages at the level their numbering gives, its unnumbered ones where fonts found the same
    title; the other detected headings kept at levels calibrated on the matches. None when
    the entries cannot be tied to the pages (no agreement on the printed page numbering)."""
    keys = [_NOT_WORD.sub("", ln.text.casefold()) for ln in lines]
    # as the first line of a heading: without a leading "Chapter"
    heads = [
        _key(ln.text) if _LABEL.match(ln.text) else k for ln, k in zip(lines, keys, strict=True)
    ]
    offset = _page_offset(entries, detected, lines, heads)
    if offset is None:
        return None
    by_first = {h.lines[0]: h for h in detected}
    heading_at = {i: h for h in detected for i in h.lines}
    taken: dict[int, Heading] = {}  # first line → heading placed from an entry
    matched: list[tuple[Heading, int]] = []  # detected heading, level the contents give it
    cursor = 0
    numbers: set[str] = set()
    for entry in entries:
        if entry.page is None or (entry.number and entry.number in numbers):
            continue  # front matter (roman pages), or a list of figures under another title
        page = entry.page + offset
        span = _find(entry, lines, (heads, keys), page, page_starts, cursor, by_first)
        if span is None:
            continue
        first, last = span
        old = next((heading_at[i] for i in range(first, last + 1) if i in heading_at), None)
        if entry.number is None and old is None:
            continue  # an unnumbered entry only confirms a heading the fonts found
        if old is not None:
            matched.append((old, entry.level))
            first, last = min(first, old.lines[0]), max(last, old.lines[-1])
        title = " ".join(" ".join(ln.text for ln in lines[first : last + 1]).split())
        taken[first] = Heading(
            first, entry.level, title, lines[first].page, tuple(range(first, last + 1))
        )
        cursor = last + 1
        if entry.number:
            numbers.add(entry.number)
    if not taken:
        return None
    covered = {i for h in taken.values() for i in h.lines}
    style = {id(h): (_size_class(h.size), lines[h.lines[0]].bold) for h in detected}
    level_of = _calibrate(
        [style[id(h)] for h in detected], [(style[id(h)], lv) for h, lv in matched]
    )
    kept = [
        Heading(h.start, level_of[style[id(h)]], h.title, h.page, h.lines, h.size)
        for h in detected
        if not covered.intersection(h.lines) and _number(h.title) not in numbers
    ]
    return sorted([*taken.values(), *kept], key=lambda h: h.start)


def _page_offset(
    entries: list[ContentsEntry], detected: list[Heading], lines: list[Line], heads: list[str]
) -> int | None:
    """Physical minus printed page number, as most numbered entries found verbatim say."""
    pages_of: dict[str, set[int]] = defaultdict(set)
    for line, key in zip(lines, heads, strict=True):
        pages_of[key].add(line.page)
    for heading in detected:
        pages_of[_key(heading.title)].add(heading.page)
    votes: Counter[int] = Counter()
    for entry in entries:
        if entry.number and entry.page is not None:
            votes.update({page - entry.page for page in pages_of.get(_key(entry.title), ())})
    if not votes:
        return None
    offset, n = votes.most_common(1)[0]
    return offset if n >= _MIN_VOTES else None


def _find(
    entry: ContentsEntry,
    lines: list[Line],
    texts: tuple[list[str], list[str]],
    page: int,
    page_starts: dict[int, int],
    cursor: int,
    by_first: dict[int, Heading],
) -> tuple[int, int] | None:
    """The heading lines of an entry: on its page, else the next or the previous one (a
    heading at a page's foot), never before the previous entry's heading. `texts`: each line's
    text compared as a heading's first line and as a following line."""
    heads, keys = texts
    want = _key(entry.title)
    bare = _key(entry.title[len(entry.number or "") :].lstrip(". ")) if entry.number else ""
    for where in (page, page + 1, page - 1):
        if where not in page_starts:
            continue
        i = max(page_starts[where], cursor)
        while i < len(lines) and lines[i].page == where:
            text = heads[i]
            for k in range(i, min(i + 4, len(lines)) if text else i):  # up to 4 lines
                if k > i:
                    if lines[k].page != where:
                        break
                    if _ASIDE.match(lines[k].text):
                        continue  # "Приложение А" / "(справочное)" / its title
                    text += keys[k]
                # the title without its number only where the fonts found a heading
                if text == want or (text == bare and i in by_first and len(bare) >= 3):
                    return i, k
                if len(text) >= len(want):
                    break
            i += 1
    if entry.number:  # a title printed differently: the detected heading with its number
        for where in (page, page + 1, page - 1):
            same = [
                h
                for first, h in by_first.items()
                if first >= cursor and h.page == where and _number(h.title) == entry.number
            ]
            if same:
                return same[0].lines[0], same[0].lines[-1]
    return None


def _number(title: str) -> str | None:
    """ "3.5" of "3.5. /boot …", "4" of "Chapter 4. …", "A" of "Appendix A …"."""
    found = _NUMBER.match(title)
    if found is None:
        return None
    full = found.group(0).rstrip(".")
    return _LABEL.sub("", full) if found.group("labelled") else full


def _size_class(size: float) -> float:
    return round(size * 2) / 2


def _calibrate(
    styles: list[tuple[float, bool]], matched: list[tuple[tuple[float, bool], int]]
) -> dict[tuple[float, bool], int]:
    """Font style (size, bold) → level: what the contents gave most headings in that style, and
    one level below the deepest of the next larger style for styles no entry matched."""
    given: dict[tuple[float, bool], Counter[int]] = defaultdict(Counter)
    for style, level in matched:
        given[style][level] += 1
    level_of: dict[tuple[float, bool], int] = {}
    above = 0
    for style in sorted(set(styles), reverse=True):
        level_of[style] = given[style].most_common(1)[0][0] if given[style] else above + 1
        above = max(given[style], default=level_of[style])
    return level_of


def drop_contents_section(root: Section) -> bool:
    """Remove every section titled "Contents" ("Оглавление", …) that is one (`_drop_one`: a
    browser's print of a site has a contents box on each page). True if one went."""
    dropped = False
    while _drop_one(root):
        dropped = True
    return dropped


def _drop_one(root: Section) -> bool:
    """Remove a section titled "Contents" ("Оглавление", …) whose text is nothing but rows of
    entries the sections after it are titled by, each with its page number — a contents set
    as a table without dot leaders (russ.sty's), which would match any question about a
    chapter's title —, or whose entries were read as headings without text (a web page's
    contents box printed by a browser, its links set bold). True if one went."""
    later = [_key(s.title) for _, s in root.walk() if s.level > 0]
    for parents, section in root.walk():
        if not parents or not _CONTENTS_TITLE.match(section.title.strip()):
            continue
        if section.children:
            if _entries_as_headings(section, root):
                parents[-1].children.remove(section)
                return True
            continue
        rows = [row for block in section.blocks for row in block.text.split("\n") if row.strip()]
        entries = [_PAGE_CELL.sub("", row) for row in rows if _PAGE_CELL.search(row)]
        if len(entries) < 3 or len(entries) < 0.8 * len(rows):
            continue
        if sum(_key(entry) in later for entry in entries) >= max(3, 0.6 * len(entries)):
            parents[-1].children.remove(section)
            return True
    return False


def _entries_as_headings(section: Section, root: Section) -> bool:
    """Whether `section` holds sections without text (a word or two strayed in: a box's
    label), three or more, most titled as sections elsewhere in the document."""
    entries = [s for _, s in section.walk()][1:]
    text = sum(len(b.text) for _, s in section.walk() for b in s.blocks)
    if len(entries) < 3 or text > 20 * len(entries):
        return False
    inside = {id(s) for s in entries}
    others = {_key(s.title) for _, s in root.walk() if s.level > 0 and id(s) not in inside}
    return sum(_key(s.title) in others for s in entries) >= max(3, 0.6 * len(entries))
