"""Tables set in a grid of ruled lines, read by their grid.

The text-only table finder (`pdf_tables`) reads a table from its lines' left edges, which holds
while each row's cells are one line each. A table of wrapped cells — DocBook's (dblatex),
LaTeX's `p{…}` columns, a word processor's — gives rows of unequal heights whose lines stand in
no common row: the Debian Reference's apt / aptitude / apt-get table came out as "apt update |
update aptitude | update update package archive metadata apt-get", half its rows paragraphs and
code. Where such a table is ruled, its rules say where each cell is: a row between two
horizontal rules, a cell between two vertical ones (the rules crossing that row: a cell spanning
columns has none between them), a cell going on down where no rule closes it (a cell spanning
rows). Each line goes to the cell its first character stands in — the end of one too long for
its cell runs across the rule ("apt-get" set over it), and the text after it is the next cell's
(MuPDF reads "update" and the next cell's "update package archive metadata" as one line: its
words are split at the rule). Lines of one cell are joined as running text is.

Reading the drawings costs ~0.6 ms a page: they are read only on pages where the text-only
finder found a table. A box around a listing or a note (one cell a row) is no table, nor a
grid without text in two cells of two rows.
"""

from __future__ import annotations

import bisect
import itertools
import re
import statistics
from dataclasses import dataclass

import pymupdf

from mirage_pipeline.parsing.pdf_lines import Line, PageLines
from mirage_pipeline.parsing.pdf_rules import SAME, TOUCH, Rule, components, page_rules
from mirage_pipeline.parsing.pdf_text import Vocabulary, join_text

_MIN_ROW = 4.0  # points: a band narrower than this is a double rule, no row
_ALIGNED = 0.6  # points: lines of a left-aligned column start this close to each other
_OVERRUN = 3.0  # points: a line running this far past its cell's rule holds the next cell's
_MAX_CROSSINGS = 40_000  # pairs of rules looked at on a page
_TALLEST_ROW = 0.4  # of the page's height: a band taller is no table's row
_FILLED = 0.6  # of the cells of its rows holding text: a table's, not a diagram's
_WORDY = 0.5  # of a grid's lines: holding a word or a number (not a diagram's marks)
_WORD = re.compile(r"[^\W\d_]{2,}|\d{2,}")
_UNRULED = 4  # lines side by side in a band: rows the rules do not divide


@dataclass
class Grid:
    """A ruled table: its text (rows of cells joined by " | ") and the lines it is made of."""

    text: str
    lines: list[Line]


def grids(page: pymupdf.Page, lines: PageLines, words: Vocabulary) -> list[Grid]:
    """The page's ruled tables, read by their grids."""
    if page.rotation or abs(page.rect.height - lines.height) > 1:
        return []  # its lines were read turned: not in the drawings' coordinates
    horizontal, vertical = page_rules(page)
    if len(horizontal) < 2 or not vertical or len(horizontal) * len(vertical) > _MAX_CROSSINGS:
        return []  # no grid, or a drawing of many strokes (a plot): no table's
    found = []
    taken: set[int] = set()
    for hs, vs in components(horizontal, vertical):
        grid = _read(page, hs, vs, [ln for ln in lines.lines if id(ln) not in taken], words)
        if grid is not None:
            taken.update(id(ln) for ln in grid.lines)
            found.append(grid)
    return found


def _levels(rules: list[Rule]) -> list[float]:
    levels: list[float] = []
    for at in sorted(r.at for r in rules):
        if not levels or at - levels[-1] > SAME:
            levels.append(at)
    return levels


def _read(
    page: pymupdf.Page,
    horizontal: list[Rule],
    vertical: list[Rule],
    lines: list[Line],
    words: Vocabulary,
) -> Grid | None:
    levels = _levels(horizontal)
    # a table ruled only between its rows (DocBook's FHS): its column rules reach its top and
    # foot
    top, foot = min(v.lo for v in vertical), max(v.hi for v in vertical)
    if levels[0] - top >= _MIN_ROW:
        levels.insert(0, top)
    if foot - levels[-1] >= _MIN_ROW:
        levels.append(foot)
    bands = [(a, b) for a, b in itertools.pairwise(levels) if b - a >= _MIN_ROW]
    if len(bands) < 2:
        return None
    left = min(r.lo for r in horizontal)
    right = max(r.hi for r in horizontal)
    inside = [
        ln
        for ln in lines
        if levels[0] < (ln.y0 + ln.y1) / 2 < levels[-1] and left - TOUCH <= ln.x0 < right
    ]
    rows = [_edges(band, left, right, vertical) for band in bands]
    cells = _placed(page, inside, bands, rows)
    if sum(1 for row in cells if sum(1 for c in row if c) >= 2) < 2:
        return None  # a box around a listing or a note, a drawing's frame: no table
    if max(b - a for a, b in bands) > _TALLEST_ROW * page.rect.height:
        return None  # a page's frame (ESKD's, with its title block's cells), no row of a table
    if _diagram(cells):
        return None
    if any(_unruled_rows(cells[i], rows[i], bands[i][1] - bands[i][0]) for i in range(len(rows))):
        return None  # rules between groups of rows only: its rows are the lines' (pdf_tables)
    _span_rows(horizontal, bands, rows, cells)
    table_rows = []
    for row in cells:
        for line_row in _line_rows(row):
            texts = [_cell_text(cell, words) for cell in line_row]
            if any(texts):
                table_rows.append(" | ".join(texts).rstrip(" |"))
    return Grid("\n".join(table_rows), inside)


def _line_rows(row: list[list[_Piece]]) -> list[list[list[_Piece]]]:
    """A band as its rows: itself, or one row a line when its cells stand line beside line."""
    if not _side_by_side(row):
        return [row]
    tops = sorted({round(p.y0) for p in next(cell for cell in row if cell)})
    return [[[p for p in cell if abs(round(p.y0) - top) <= 2] for cell in row] for top in tops]


def _edges(
    band: tuple[float, float], left: float, right: float, vertical: list[Rule]
) -> list[tuple[float, float]]:
    """A band's cells, (left, right) each: between the vertical rules crossing it."""
    middle = (band[0] + band[1]) / 2
    xs = sorted({left, right} | {v.at for v in vertical if v.lo - TOUCH <= middle <= v.hi + TOUCH})
    edges = [x for i, x in enumerate(xs) if i == 0 or x - xs[i - 1] > TOUCH]
    return list(itertools.pairwise(edges))


def _placed(
    page: pymupdf.Page,
    lines: list[Line],
    bands: list[tuple[float, float]],
    rows: list[list[tuple[float, float]]],
) -> list[list[list[_Piece]]]:
    """Each band's cells' pieces of text: a line in the cell its first character stands in,
    a line running over its cell's rule split between the cells its words start in."""
    cells: list[list[list[_Piece]]] = [[[] for _ in row] for row in rows]
    overruns: list[tuple[int, int, Line]] = []
    starts: dict[int, list[float]] = {}  # a column's left rule → where its cells' lines start
    tops = [top for top, _ in bands]
    for line in lines:
        middle = (line.y0 + line.y1) / 2
        near = bisect.bisect_right(tops, middle) - 1  # the band it is in, or the one above
        band = min(
            (i for i in (near, near + 1) if 0 <= i < len(bands)),
            key=lambda i: _distance(middle, bands[i]),
        )
        row = rows[band]
        slot = _slot(row, line.x0 + 1)
        if line.x1 > row[slot][1] + _OVERRUN and slot + 1 < len(row):
            overruns.append((band, slot, line))
        else:
            piece = _Piece(line.y0, line.x0, line.text, line.mono_ends, x1=line.x1)
            cells[band][slot].append(piece)
            starts.setdefault(round(row[slot][0]), []).append(line.x0)
    lefts = _text_lefts(starts)
    chars = _line_chars(page, [line for _, _, line in overruns]) if overruns else {}
    for band, slot, line in overruns:
        row = rows[band]
        begins = [lefts.get(round(x0)) for x0, _ in row]
        # a cell holding a line of its own beside this one takes none of it
        held = {
            k for k, cell in enumerate(cells[band]) if any(abs(p.y0 - line.y0) < 2 for p in cell)
        }
        for at, piece in _split(line, chars.get(id(line)), row, slot, begins, held):
            cells[band][at].append(piece)
    return cells


@dataclass
class _Piece:
    """A cell's line, or the part of a line in that cell."""

    y0: float
    x0: float
    text: str
    mono_ends: tuple[bool, bool] = (False, False)
    start: int = 0  # where it starts in its line's text, when it is a part of one
    x1: float = 0.0  # where a whole line ends (0: a part of a line)


def _unruled_rows(row: list[list[_Piece]], edges: list[tuple[float, float]], height: float) -> bool:
    """Whether a band holds rows of its own: `_UNRULED` lines or more side by side in two
    cells or more (a cell wrapped onto several lines beside one-line cells has few), or two
    cells or more broken where their next word would have fitted (a line is wrapped when its
    next word did not fit its cell; one such cell is a list of options or a `\\` in it)."""
    if _side_by_side(row):
        return False  # rows of lines (_line_rows)
    unwrapped = sum(
        1 for cell, (left, right) in zip(row, edges, strict=True) if _broken(cell, left, right)
    )
    if unwrapped >= 2:
        return True
    if height < _UNRULED * 8:
        return False
    tops: dict[int, set[int]] = {}
    for slot, cell in enumerate(row):
        for piece in cell:
            tops.setdefault(round(piece.y0 / 2), set()).add(slot)
    return sum(1 for slots in tops.values() if len(slots) >= 2) >= _UNRULED


def _side_by_side(row: list[list[_Piece]]) -> bool:
    """Whether a band's cells, two or more, hold three lines or more each, line beside line
    ("Fidelio" / "Peter Grimes" / "Don Giovanni" beside three composers: rows the rules do
    not divide; a wrapped cell stands beside shorter ones; of two lines each, a list of two
    options beside its description wrapped is one row)."""
    tops = [sorted({round(p.y0) for p in cell}) for cell in row if cell]
    return (
        len(tops) >= 2
        and len(tops[0]) >= 3
        and all(
            len(t) == len(tops[0]) and all(abs(a - b) <= 2 for a, b in zip(t, tops[0], strict=True))
            for t in tops
        )
    )


def _broken(cell: list[_Piece], left: float, right: float) -> bool:
    """Whether a cell's lines break where the next one's first word would have fitted."""
    lines = sorted(cell, key=lambda p: (round(p.y0), p.x0))
    for above, below in itertools.pairwise(lines):
        if not above.x1 or not below.x1 or round(above.y0) == round(below.y0):
            continue
        pad = max(above.x0 - left, 0.0)
        room = right - left - 2 * pad
        each = (below.x1 - below.x0) / max(len(below.text), 1)  # a character's width
        word = len(below.text.split()[0]) if below.text.split() else 0
        if (above.x1 - above.x0) + each * (word + 1) < room - 2 * each:
            return True
    return False


def _diagram(cells: list[list[list[_Piece]]]) -> bool:
    """Whether a grid is a drawing's: its rows' cells mostly empty (labels scattered over a
    figure's lines), or its text mostly marks ("?", "6", "i 9": a page layout's)."""
    filled = [sum(1 for cell in row if cell) for row in cells if any(row)]
    total = sum(len(row) for row in cells if any(row))
    if sum(filled) < _FILLED * total:
        return True
    texts = [piece.text for row in cells for cell in row for piece in cell]
    return sum(1 for t in texts if _WORD.search(t)) < _WORDY * len(texts)


def _distance(y: float, band: tuple[float, float]) -> float:
    top, bottom = band
    return 0.0 if top <= y <= bottom else min(abs(y - top), abs(y - bottom))


def _cell_text(pieces: list[_Piece], words: Vocabulary) -> str:
    text = ""
    last: _Piece | None = None
    for piece in sorted(pieces, key=lambda p: (round(p.y0), p.x0)):
        mono = last is not None and last.mono_ends[1] and piece.mono_ends[0]
        text = join_text(text, piece.text, words, mono)
        last = piece
    return text


def _slot(row: list[tuple[float, float]], x: float) -> int:
    for i, (_, right) in enumerate(row):
        if x < right:
            return i
    return len(row) - 1


def _text_lefts(starts: dict[int, list[float]]) -> dict[int, float]:
    """Where the text of each left-aligned column starts (most of its lines start there)."""
    lefts = {}
    for rule, xs in starts.items():
        at = statistics.median(xs)
        if sum(1 for x in xs if abs(x - at) <= _ALIGNED) >= 0.6 * len(xs):
            lefts[rule] = at
    return lefts


def _split(
    line: Line,
    chars: list[tuple[str, float, float]] | None,
    row: list[tuple[float, float]],
    slot: int,
    begins: list[float | None],
    held: set[int],
) -> list[tuple[int, _Piece]]:
    """A line running across its cell's rule, its words each to the cell it starts in — a
    word is also cut where the text steps back left (the next cell's, set over the end of
    this one's: "config::ifupdown" + "standardized") or where a later column's text starts
    (`begins`: "config::Netfilter" + "administration", set touching); a cell in `held` (a
    line of its own beside this one) takes none of it; the line whole when its characters
    cannot be matched to its text (a re-decoded legacy font's)."""
    whole = [(slot, _Piece(line.y0, line.x0, line.text, line.mono_ends, x1=line.x1))]
    text = line.text
    if chars is None or "".join(c for c, _, _ in chars).strip() != text:
        return whole
    lead = len("".join(c for c, _, _ in chars)) - len("".join(c for c, _, _ in chars).lstrip())
    parts: list[tuple[int, _Piece]] = []
    start, last_x1 = None, None
    for i, (c, x0, x1) in enumerate(chars[lead : lead + len(text)]):
        if c.isspace():
            start = None
            continue
        stepped = last_x1 is not None and (
            x0 < last_x1 - 1
            or any(
                b is not None and k > slot and k not in held and abs(x0 - b) <= _ALIGNED
                for k, b in enumerate(begins)
            )
        )
        last_x1 = x1
        if start is not None and not stepped:
            continue
        start = i
        at = max(slot, _slot(row, x0 + 1))
        if at in held:
            at = parts[-1][0] if parts else slot
        if parts and parts[-1][0] == at:
            continue
        if parts:
            parts[-1][1].text = text[parts[-1][1].start : i].strip()
        parts.append((at, _Piece(line.y0, x0, "", line.mono_ends, i)))
    if len(parts) < 2:
        return whole
    parts[-1][1].text = text[parts[-1][1].start :].strip()
    return parts


def _line_chars(page: pymupdf.Page, lines: list[Line]) -> dict[int, list[tuple[str, float, float]]]:
    """The characters of the MuPDF lines `lines` were read from, (character, x0, x1) each,
    by the line's id: read once for them all (a text page is made per reading)."""
    clip = pymupdf.Rect(
        min(ln.x0 for ln in lines) - 1,
        min(ln.y0 for ln in lines) - 1,
        max(ln.x1 for ln in lines) + 1,
        max(ln.y1 for ln in lines) + 1,
    )
    info = page.get_text("rawdict", clip=clip, flags=pymupdf.TEXT_PRESERVE_WHITESPACE)
    read = [found for block in info["blocks"] for found in block.get("lines", ())]
    out = {}
    for line in lines:
        for found in read:
            x0, y0, _, y1 = found["bbox"]
            if abs(x0 - line.x0) <= 0.5 and abs(y0 - line.y0) <= 0.5 and abs(y1 - line.y1) <= 0.5:
                out[id(line)] = [
                    (c["c"], c["bbox"][0], c["bbox"][2])
                    for span in found["spans"]
                    for c in span["chars"]
                ]
                break
    return out


def _span_rows(
    horizontal: list[Rule],
    bands: list[tuple[float, float]],
    rows: list[list[tuple[float, float]]],
    cells: list[list[list[_Piece]]],
) -> None:
    """A cell no rule closes above (one spanning rows: `\\multirow`, a merged cell) goes on
    in the cell above it: its lines join that cell's."""
    owner = [[(i, j) for j in range(len(row))] for i, row in enumerate(rows)]
    for i in range(1, len(rows)):
        top = bands[i][0]
        for j, (x0, x1) in enumerate(rows[i]):
            middle = (x0 + x1) / 2
            if any(
                abs(h.at - top) <= SAME and h.lo - TOUCH <= middle <= h.hi + TOUCH
                for h in horizontal
            ):
                continue
            above = next((k for k, (a0, a1) in enumerate(rows[i - 1]) if a0 <= middle < a1), None)
            if above is None:
                continue
            oi, oj = owner[i][j] = owner[i - 1][above]
            cells[oi][oj] += cells[i][j]
            cells[i][j] = []
