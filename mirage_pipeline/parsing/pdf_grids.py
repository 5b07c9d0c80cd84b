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

Rules between groups of rows only are not the rows: a band whose cells hold three lines or
more each, line beside line, is that many rows; one of four lines side by side or more, or of
two cells broken where their next word would have fitted, leaves the table to `pdf_tables`.
Nor is a table: a box around a listing or a note (no rule between columns), a grid without
text in two cells of two rows, a page's frame (a band taller than 0.4 of the page), a
drawing's lines (cells mostly empty, text mostly marks).

Reading a page's drawings costs about half as much as reading its text: `pdf_tables` reads
them on pages where it found a table or rows of cells in a column, while a document's first
pages of tables or a page since held a grid.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from dataclasses import dataclass

import pymupdf

from mirage_pipeline.parsing.pdf_grid_cells import Piece, centre, placed, trimmed
from mirage_pipeline.parsing.pdf_lines import Line, PageLines
from mirage_pipeline.parsing.pdf_rules import SAME, TOUCH, Rule, components, page_rules
from mirage_pipeline.parsing.pdf_text import Vocabulary, join_text

_MIN_ROW = 4.0  # points: a band narrower than this is a double rule, no row
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
    """The page's ruled tables, read by their grids; none when a drawing trips the reader (it
    costs the page its grids, not the PDF: its tables are read from their edges)."""
    try:
        return _grids(page, lines, words)
    except (ArithmeticError, LookupError, ValueError, RuntimeError):
        return []


def _grids(page: pymupdf.Page, lines: PageLines, words: Vocabulary) -> list[Grid]:
    if page.rotation or abs(page.rect.height - lines.height) > 1:
        return []  # its lines were read turned: not in the drawings' coordinates
    horizontal, vertical = page_rules(page)
    if len(horizontal) < 2 or not vertical or len(horizontal) * len(vertical) > _MAX_CROSSINGS:
        return []  # no grid, or a drawing of many strokes (a plot): no table's
    found = []
    taken: set[int] = set()
    ordered = sorted(lines.lines, key=centre)
    centres = [centre(ln) for ln in ordered]
    for hs, vs in components(horizontal, vertical):
        left, right = min(r.lo for r in hs), max(r.hi for r in hs)
        if not any(left + TOUCH < v.at < right - TOUCH for v in vs):
            continue  # no rule between columns: a box, a frame
        top = min(min(r.at for r in hs), min(v.lo for v in vs))
        foot = max(max(r.at for r in hs), max(v.hi for v in vs))
        near = ordered[bisect.bisect_right(centres, top) : bisect.bisect_left(centres, foot)]
        grid = _read(page, hs, vs, [ln for ln in near if id(ln) not in taken], words)
        if grid is not None:
            taken.update(id(ln) for ln in grid.lines)
            found.append(grid)
    return found


def aligned_rows(rows: list[list[Line]], slack: float) -> bool:
    """Whether two rows of cells or more have a cell (not their first) in one column (their
    left edges within `slack` of each other, about)."""
    edges = Counter(round(cell.x0 / slack) for row in rows if len(row) >= 2 for cell in row[1:])
    return bool(edges) and max(edges.values()) >= 2


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
        ln for ln in lines if levels[0] < centre(ln) < levels[-1] and left - TOUCH <= ln.x0 < right
    ]
    rows = [_edges(band, left, right, vertical) for band in bands]
    if not all(rows):
        return None  # rules too close together to hold a cell (hatching)
    cells = placed(page, words, inside, bands, rows)
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
                table_rows.append(" | ".join(trimmed(texts)))
    return Grid("\n".join(table_rows), inside)


def _line_rows(row: list[list[Piece]]) -> list[list[list[Piece]]]:
    """A band as its rows: itself, or one row a line when its cells stand line beside line."""
    if not _side_by_side(row):
        return [row]
    tops = sorted({round(p.y0) for p in next(cell for cell in row if cell)})
    rows: list[list[list[Piece]]] = [[[] for _ in row] for _ in tops]
    for slot, cell in enumerate(row):
        for piece in cell:  # to the line of the nearest top
            rows[min(range(len(tops)), key=lambda i: abs(tops[i] - piece.y0))][slot].append(piece)
    return rows


def _edges(
    band: tuple[float, float], left: float, right: float, vertical: list[Rule]
) -> list[tuple[float, float]]:
    """A band's cells, (left, right) each: between the vertical rules crossing it."""
    middle = (band[0] + band[1]) / 2
    xs = sorted({left, right} | {v.at for v in vertical if v.lo - TOUCH <= middle <= v.hi + TOUCH})
    edges: list[float] = []
    for x in xs:  # rules closer than TOUCH to the last kept one are that one
        if not edges or x - edges[-1] > TOUCH:
            edges.append(x)
    if len(edges) > 1:
        edges[-1] = xs[-1]
    return list(itertools.pairwise(edges))


def _unruled_rows(row: list[list[Piece]], edges: list[tuple[float, float]], height: float) -> bool:
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


def _side_by_side(row: list[list[Piece]]) -> bool:
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


def _broken(cell: list[Piece], left: float, right: float) -> bool:
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


def _diagram(cells: list[list[list[Piece]]]) -> bool:
    """Whether a grid is a drawing's: its rows' cells mostly empty (labels scattered over a
    figure's lines), or its text mostly marks ("?", "6", "i 9": a page layout's)."""
    filled = [sum(1 for cell in row if cell) for row in cells if any(row)]
    total = sum(len(row) for row in cells if any(row))
    if sum(filled) < _FILLED * total:
        return True
    texts = [piece.text for row in cells for cell in row for piece in cell]
    return sum(1 for t in texts if _WORD.search(t)) < _WORDY * len(texts)


def _cell_text(pieces: list[Piece], words: Vocabulary) -> str:
    text = ""
    last: Piece | None = None
    for piece in sorted(pieces, key=lambda p: (round(p.y0), p.x0)):
        mono = last is not None and last.mono_ends[1] and piece.mono_ends[0]
        text = join_text(text, piece.text, words, mono)
        last = piece
    return text


def _span_rows(
    horizontal: list[Rule],
    bands: list[tuple[float, float]],
    rows: list[list[tuple[float, float]]],
    cells: list[list[list[Piece]]],
) -> None:
    """A cell no rule closes above (one spanning rows: `\\multirow`, a merged cell) goes on
    in the cell above it: its lines join that cell's."""
    owner = [[(i, j) for j in range(len(row))] for i, row in enumerate(rows)]
    for i in range(1, len(rows)):
        top = bands[i][0]
        closing = [h for h in horizontal if abs(h.at - top) <= SAME]  # the rules over the row
        for j, (x0, x1) in enumerate(rows[i]):
            middle = (x0 + x1) / 2
            if any(h.lo - TOUCH <= middle <= h.hi + TOUCH for h in closing):
                continue
            above = next((k for k, (a0, a1) in enumerate(rows[i - 1]) if a0 <= middle < a1), None)
            if above is None:
                continue
            oi, oj = owner[i][j] = owner[i - 1][above]
            cells[oi][oj] += cells[i][j]
            cells[i][j] = []
