"""Running headers and footers of PDF pages: what repeats from page to page at the top or
bottom edge — page numbers, chapter titles, a section title beside the page number, ESKD
title-block stamps — is dropped, since it would pollute every chunk."""

from __future__ import annotations

import re
from collections import Counter

from mirage_pipeline.parsing.pdf_lines import Line, PageLines
from mirage_pipeline.parsing.text_numbering import roman_number

_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*[-–—])?$|^(?:page|стр\.?|страница)\s*\d+(?:\s*(?:of|из)\s*\d+)?$",
    re.IGNORECASE,
)
# Sphinx's label where a code listing breaks across pages, in the languages it is translated to
_CONTINUATION = re.compile(
    r"^\((?:continued from previous page|continues on next page"
    r"|продолжение с предыдущей страницы|продолжается на следующей странице"
    r"|Fortsetzung der vorherigen Seite|Fortsetzung auf der nächsten Seite"
    r"|suite de la page précédente|suite sur la page suivante"
    r"|viene de la página anterior|continúa en la página siguiente"
    r"|continuação da página anterior|continua na próxima página"
    r"|continua dalla pagina precedente|continua nella pagina successiva)\)$",
    re.IGNORECASE,
)
# A page number at either end of a running head: "1.3 Source files 5", "62 Typesetting Math".
_END_NUMBER = re.compile(r"^(\d{1,4})(?:\s|$)|\s(\d{1,4})$")
# The front matter's: "viii Preface", "Contents xiii"
_END_ROMAN = re.compile(r"^([ivxlc]{1,9})(?:\s|$)|\s([ivxlc]{1,9})$")
# an HTML page's navigation bar, printed wherever the page began: "[ Contents | Introduction |
# Credits ]", "Prev | Up | Next" — short cells of words between bars
_NAV_BAR = re.compile(r"^\[?\s*[^\W\d_][\w .'-]{0,30}(?:\s\|\s*[^\W\d_][\w .'-]{0,30})+\s*\]?$")
# A line of prose ends a sentence or a clause, or runs to many words with a comma among them; a
# running head is a title ("2.2. C++’S HISTORY", "Chapter 9: List of Commands in the Gri
# Language", "When to change the headers and footers?").
_PROSE_REPEATS = 3  # pages a line of prose may recur on ("1 Ibid., p. 11.", digits aside)
_CLAUSE_END = re.compile(r"[.,;:!][\"'»”’)\]]*$")
_TITLE_START = re.compile(
    r"^(?:\d+(?:\.\d+)+\.?|chapter|part|section|appendix|глава|часть|раздел|приложение)\s",
    re.IGNORECASE,
)


def drop_running_lines(
    pages: list[PageLines],
    folios: dict[int, int] | None = None,
    listings: set[int] | None = None,
) -> int:
    """Remove running headers/footers and page numbers in place; return how many lines went.
    `folios` gets the printed page numbers found (physical page → number); `listings` the
    pages whose first listing goes on from the page before (Sphinx's labels say so).

    Candidates are a page's edge rows: its topmost and bottommost lines, when set apart from
    the body by a gap (a running header sits above the text, not on its first line). An edge
    row goes when it is a bare page number, or when its text (digits ignored) or its vertical
    slot recurs on many pages; so does Sphinx's "(continued from previous page)" beside a code
    listing broken across pages, wherever it is. Anywhere on the page, short text recurring at
    the very same place on most pages (stamps, frames) goes too, and so does a navigation bar
    of an HTML page printed to PDF ("[ Contents | Introduction | Credits ]") recurring on many
    pages wherever it stands (xfig's manual: 25 of 176 pages). So does a top or bottom row,
    gap or not, with a page number at one end that follows the physical page on many pages (a
    section title beside the page number: the text changes, the number keeps its step). When
    something went, the rows that now lie outermost are looked at once more for such page
    numbers: a proof's stamp above the running head ("3 Jan 2020 2:18 p.m.", "No 35", the
    book's title) hid "Preparing an input file 15" from the first pass.
    """
    if not pages:
        return 0
    lines_before = sum(len(page.lines) for page in pages)
    found: dict[int, int] = {} if folios is None else folios
    numbered, offsets = _numbered_rows(pages, found)
    numbered |= _lone_page_numbers(pages, offsets, found)
    recurring = _Recurring(pages)
    gone: set[int] = set()
    for page, edge in zip(pages, recurring.edges, strict=True):
        for line in page.lines:
            zone = edge.get(line)
            text = line.text.strip()
            running = False
            if _CONTINUATION.match(text):
                running = True  # not running text, but as much furniture: anywhere it is
                if listings is not None:  # over a listing's rest, or under its first part
                    upper = line.y0 < page.height / 2
                    listings.add(page.number if upper else page.number + 1)
            elif id(line) in numbered or (zone and _PAGE_NUMBER.match(text)):
                running = True
                if text.isdigit():
                    found.setdefault(page.number, int(text))
            else:
                running = recurring.running(line, zone, page)
            if running:
                gone.add(id(line))
    if gone:  # the rows now outermost, their page numbers still beside them
        for page in pages:
            page.lines = [
                line
                for line in page.lines
                if id(line) not in gone or _PAGE_NUMBER.match(line.text.strip())
            ]
        gone |= _numbered_rows(pages)[0]  # lone numbers there found nothing more on any PDF
    for page in pages:
        page.lines = [line for line in page.lines if id(line) not in gone]
    return lines_before - sum(len(page.lines) for page in pages)


class _Recurring:
    """What recurs across a document's pages: its edge rows' texts and vertical slots (beside
    the slots of the body's own lines), short texts at the very same place, navigation bars;
    and how many pages make each recur."""

    def __init__(self, pages: list[PageLines]) -> None:
        n = len(pages)
        self.repeats = n >= 4
        self.text_min = max(3, int(0.3 * n))
        self.slot_min = max(3, int(0.4 * n))
        self.place_min = max(3, int(0.5 * n))
        self.bar_min = max(3, int(0.1 * n))
        self.edges = [_edge_rows(page) for page in pages]
        self.outermost = {page.number: _outermost(page) for page in pages}
        self.by_text: Counter[tuple[str, str]] = Counter()
        self.by_slot: Counter[tuple[str, int]] = Counter()
        self.body_slots: Counter[tuple[str, int]] = Counter()
        self.by_place: Counter[tuple[str, int, int]] = Counter()
        self.bars: Counter[str] = Counter()  # navigation bars: pages holding each
        for page, edge in zip(pages, self.edges, strict=True):
            self.bars.update(
                {
                    line.norm
                    for line in page.lines
                    if not line.mono and _NAV_BAR.match(line.text.strip())
                }
            )
            self.by_text.update({(zone, line.norm) for line, zone in edge.items()})
            self.by_slot.update({(zone, round(line.y0 / 3)) for line, zone in edge.items()})
            # … and where the body's own lines stand: a page's first line sits in the same
            # slot on every page of a PDF without running heads (a browser's print), set apart
            # by a paragraph's spacing on some: not a running head's slot (1–2 % of a printed
            # manual's lines went, often a section's first sentence)
            self.body_slots.update(
                {
                    (zone, round(line.y0 / 3))
                    for line in page.lines
                    if line not in edge and (zone := _zone(line, page.height))
                }
            )
            self.by_place.update(
                {
                    place
                    for line in page.lines
                    if _placed(line, page, self.outermost[page.number])
                    for place in _places(line)
                }
            )

    def running(self, line: Line, zone: str | None, page: PageLines) -> bool:
        """Whether `line` (in the edge row `zone` of `page`, or None) is furniture by what
        recurs: its text or slot at the page's edge, its place, or a navigation bar. A slot
        alone does not make a line of prose found on one or two pages furniture: a document
        without running heads (pandoc's DOCX, printed by LibreOffice) sets each page's first
        line, and its last footnote's, at one height, and they went (a 13-page chapter: 15
        lines, 6 of its 8 footnotes); a chapter's title over five pages still goes, however
        long."""
        if not self.repeats:
            return False
        if zone and len(line.text) <= 160:
            slot = (zone, round(line.y0 / 3))
            if self.by_text[(zone, line.norm)] >= self.text_min or (
                self.by_slot[slot] >= self.slot_min
                and self.by_slot[slot] > 2 * self.body_slots[slot]
                and not (
                    self.by_text[(zone, line.norm)] < _PROSE_REPEATS and _reads_as_prose(line.text)
                )
            ):
                return True
        if _placed(line, page, self.outermost[page.number]):
            return (
                any(self.by_place[place] >= self.place_min for place in _places(line))
                or self.bars[line.norm] >= self.bar_min
            )
        return False


def _reads_as_prose(text: str) -> bool:
    """Whether a line reads as a line of prose, not a title (`_CLAUSE_END`)."""
    text = text.strip()
    words = text.split()
    if len(words) < 4 or text.isupper() or _TITLE_START.match(text):
        return False
    return bool(_CLAUSE_END.search(text)) or (len(words) >= 9 and "," in text)


def printed_labels(folios: dict[int, int], pages: int) -> list[str]:
    """Page labels from the numbers printed on the pages (`folios`), for a PDF without a label
    tree whose printed numbers are not the physical ones (a title page and contents before
    page 1): each page is numbered on from the last folio before it whose step from the
    physical number recurs (an unnumbered plate shifts the rest), the pages before the first
    by the step most folios keep; "" before page 1. Empty when printed and physical agree."""
    steps = Counter(number - page for page, number in folios.items())
    if not steps:
        return []
    usual, seen = steps.most_common(1)[0]
    if seen < max(3, len(folios) // 2):
        return []
    kept = {page: number - page for page, number in folios.items() if steps[number - page] >= 2}
    if not any(kept.values()):
        return []
    labels, step = [], usual
    for page in range(1, pages + 1):
        step = kept.get(page, step)
        labels.append(str(page + step) if page + step >= 1 else "")
    return labels


def _placed(line: Line, page: PageLines, edges: tuple[float, float]) -> bool:
    """Whether a line may go for recurring at its very place: short text anywhere (a stamp,
    a frame's label), longer on the page's outermost row (`edges`: its top and bottom) — a
    browser prints the page's title there, close above the body, "Расширенная настройка
    сборки пакетов — Руководство пользователя" on every page."""
    if len(line.text) <= 60:
        return True
    zone = _zone(line, page.height)
    outermost = (zone == "top" and line.y0 <= edges[0] + 2) or (
        zone == "bottom" and line.y1 >= edges[1] - 2
    )
    return len(line.text) <= 160 and outermost


def _outermost(page: PageLines) -> tuple[float, float]:
    if not page.lines:
        return 0.0, 0.0
    return min(ln.y0 for ln in page.lines), max(ln.y1 for ln in page.lines)


def _places(line: Line) -> tuple[tuple[str, int, int], tuple[str, int, int]]:
    """Where a line sits, by its left edge and by its right one: a right-aligned "No 9" and
    "No 100" share only the latter."""
    y = round(line.y0 / 4)
    return (line.norm, round(line.x0 / 4), y), (line.norm, -1 - round(line.x1 / 4), y)


def _edge_rows(page: PageLines, outer: float = 0.12) -> dict[Line, str]:
    """The top and bottom rows of a page (within its `outer` share), if apart from the body."""
    found: dict[Line, str] = {}
    lines = page.lines
    if len(lines) < 2:
        zones = {line: _zone(line, page.height, outer) for line in lines}
        return {line: zone for line, zone in zones.items() if zone}
    for zone, ordered in (
        ("top", sorted(lines, key=lambda ln: ln.y0)),
        ("bottom", sorted(lines, key=lambda ln: -ln.y1)),
    ):
        first = ordered[0]
        if _zone(first, page.height, outer) != zone:
            continue
        # a row's pieces may stand apart by most of a line: a scan's skew (OCR'd "Debian
        # Reference" 5 pt above its "2/233" on a page turned by 0.8°) split the running head
        # in two rows, and no row was set apart
        slack = max(2.0, 0.8 * (first.y1 - first.y0))
        if zone == "top":
            row = [ln for ln in ordered if ln.y0 <= first.y0 + slack]
            rest = [ln for ln in ordered if ln.y0 > first.y0 + slack]
            gap = (min(ln.y0 for ln in rest) - max(ln.y1 for ln in row)) if rest else 99.0
        else:
            row = [ln for ln in ordered if ln.y1 >= first.y1 - slack]
            rest = [ln for ln in ordered if ln.y1 < first.y1 - slack]
            gap = (min(ln.y0 for ln in row) - max(ln.y1 for ln in rest)) if rest else 99.0
        height = max(ln.y1 - ln.y0 for ln in row)
        if gap >= 0.8 * height:
            found.update({ln: zone for ln in row})
        elif zone == "top" and rest:
            found.update({ln: zone for ln in _wrapped_head(row, rest, height)})
    return found


def _wrapped_head(row: list[Line], rest: list[Line], height: float) -> list[Line]:
    """A running head wrapped onto a second, shorter row right under the first, both apart
    from the body: LibreOffice's "Руководство … — Глава 1. Хорошее начало — половина" /
    "дела" on an A5 page. Its rows, or none."""
    second = [ln for ln in rest if ln.y0 <= rest[0].y0 + 2]
    below = [ln for ln in rest if ln.y0 > rest[0].y0 + 2]
    if not below or rest[0].y0 - row[0].y0 > 1.6 * height:
        return []
    if sum(len(ln.text) for ln in second) >= sum(len(ln.text) for ln in row):
        return []  # a wrapped head's rest is shorter than its first row
    if {round(ln.size) for ln in second} != {round(ln.size) for ln in row}:
        return []
    gap = min(ln.y0 for ln in below) - max(ln.y1 for ln in second)
    return [*row, *second] if gap >= 0.8 * height else []


def _lone_page_numbers(
    pages: list[PageLines], offsets: set[int], folios: dict[int, int]
) -> set[int]:
    """Ids of the lines `_lone_numbers` finds whose number is the physical page number plus
    an offset they share on two pages or more (and a third of them), or plus one of `offsets`
    (the running heads'): page numbers, not a listing's line number or a figure's label that
    happen to end a page."""
    found = [
        (int(ln.text.strip()) - page.number, page.number, ln)
        for page in pages
        for ln in _lone_numbers(page)
        if ln.text.strip().isdigit()
    ]
    counts = Counter(offset for offset, _, _ in found)
    least = max(2, len(pages) // 3)
    kept = [(o, n, ln) for o, n, ln in found if counts[o] >= least or o in offsets]
    for offset, number, _ in kept:
        folios.setdefault(number, number + offset)
    return {id(ln) for _, _, ln in kept}


def _lone_numbers(page: PageLines) -> list[Line]:
    """A bare number alone on the page's first or last row, set apart from the text, within
    its outer fifth: a page number under a deep bottom margin (a book's page set on A4), which
    the outer 12 % of `_edge_rows` misses — "… (а не на-дзвичайний). 63 3. Не можна …"."""
    if len(page.lines) < 2:
        return []
    rows: dict[str, list[Line]] = {}
    for line, zone in _edge_rows(page, outer=0.2).items():
        rows.setdefault(zone, []).append(line)
    return [
        row[0] for row in rows.values() if len(row) == 1 and _PAGE_NUMBER.match(row[0].text.strip())
    ]


def _zone(line: Line, height: float, outer: float = 0.12) -> str:
    middle = (line.y0 + line.y1) / 2
    if middle < outer * height:
        return "top"
    if middle > (1 - outer) * height:
        return "bottom"
    return ""


def _numbered_rows(
    pages: list[PageLines], folios: dict[int, int] | None = None
) -> tuple[set[int], set[int]]:
    """Ids of the lines of running heads that carry the printed page number: a page's top
    (or bottom) row, within its outer fifth, ending or starting in a number that is the
    physical page number plus the same offset on at least a third of the pages; and those
    offsets. (A book on Letter paper sets its head 13 % down the page: "1.3. КАК СОЗДАВАТЬ
    ИГРУ 11", "12 ГЛАВА 1. ОБЩИЕ СВЕДЕНИЯ".) The front matter's heads, numbered in lowercase
    Roman ("viii Preface", "Contents xiii"), are too few for a third: three with one offset
    do (their numbers are not folios)."""
    found: list[tuple[str, int, list[Line]]] = []
    roman: list[tuple[str, int, list[Line]]] = []
    for page in pages:
        for zone, row in _outer_rows(page):
            text = " ".join(ln.text.strip() for ln in sorted(row, key=lambda ln: ln.x0))
            if len(text) > 160:
                continue
            if match := _END_NUMBER.search(text):
                number = int(match.group(1) or match.group(2))
                found.append((zone, number - page.number, row))
            elif (match := _END_ROMAN.search(text)) and (
                number := roman_number(match.group(1) or match.group(2))
            ):
                roman.append((zone, number - page.number, row))
    counts = Counter((zone, offset) for zone, offset, _ in found)
    least = max(3, len(pages) // 3)
    kept = [(offset, row) for zone, offset, row in found if counts[(zone, offset)] >= least]
    if folios is not None:
        for offset, row in kept:
            folios.setdefault(row[0].page, row[0].page + offset)
    # the front matter's few pages, numbered i, ii, … on: three rows keeping one step
    romans = Counter((zone, offset) for zone, offset, _ in roman)
    lines = {id(line) for _, row in kept for line in row}
    lines.update(
        id(line) for zone, offset, row in roman if romans[(zone, offset)] >= 3 for line in row
    )
    return lines, {offset for offset, _ in kept}


def _outer_rows(page: PageLines, outer: float = 0.2) -> list[tuple[str, list[Line]]]:
    """The topmost and the bottommost row of a page, each when it lies in the page's `outer`
    share, whatever the gap to the body."""
    if not page.lines:
        return []
    rows = []
    top = min(page.lines, key=lambda ln: ln.y0)
    if _zone(top, page.height, outer) == "top":
        rows.append(("top", [ln for ln in page.lines if ln.y0 <= top.y0 + 2]))
    bottom = max(page.lines, key=lambda ln: ln.y1)
    if _zone(bottom, page.height, outer) == "bottom":
        rows.append(("bottom", [ln for ln in page.lines if ln.y1 >= bottom.y1 - 2]))
    return rows
