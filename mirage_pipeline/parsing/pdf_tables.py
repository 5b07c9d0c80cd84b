"""Tables on PDF pages, found from the text lines alone, kept as rows of text.

PyMuPDF's own table finder costs ~300 ms a page (it analyses the vector drawings), more than
parsing a whole book otherwise. Tables in books and manuals are visible in the text already:
rows of short cells side by side, their left edges in the same columns from row to row. A run of
at least three such rows becomes one `table` block, one line per row, cells joined by " | ";
a row that starts right of the first column continues the cells above it (a cell wrapped onto
a second line, joined as running text is: `pdf_text`). Two-column running text is not a
table: its "cells" are long lines.

Nor is a code listing whose lines are numbered (LaTeX's documented sources — every package's
dtx manual, babel's, gost's —, a book's listings): its numbers stand apart like a first
column, its indentation like empty cells, and it was indexed as "305 |  | \\dimen0=#1" rows.
Rows numbered one after another, most of them one monospaced cell holding code's signs, are a
`code` block: the lines without their numbers, indented as printed.
"""

from __future__ import annotations

import itertools
import re
import statistics
from dataclasses import dataclass, replace

import pymupdf

from mirage_pipeline.parsing.pdf_grid_cells import trimmed
from mirage_pipeline.parsing.pdf_grids import aligned_rows, grids
from mirage_pipeline.parsing.pdf_lines import Line, PageLines, rows_of
from mirage_pipeline.parsing.pdf_text import Vocabulary, join_text

_MIN_ROWS = 3  # rows with two or more cells
_LOOK = 12  # pages of tables whose drawings are read before a document is taken to rule none
_WORD = re.compile(r"[^\W\d_]{2,}")
_MAX_MEDIAN_CELL = 40  # characters: cells are short, lines of running text are not
_COLUMN_SLACK = 6.0  # points: cells of one column start this close to each other
_LINE_NUMBER = re.compile(r"(\d{1,5})(?:\s+(\S.*))?")
_CODE_SIGN = re.compile(r"[\\{}();=<>%#@$\[\]]")
_NUMBERED_SHARE = 0.6  # of a listing's rows: the others are comments between its lines
_STEP_SHARE = 0.8  # of the numbered rows' steps: one more than the row above
_CODE_SHARE = 0.5  # of its code lines: holding a sign of code
_MONO_SHARE = 0.8  # of a run's characters set monospaced: a listing ("> x[i] | # comment")


@dataclass
class Table:
    page: int
    text: str
    lines: list[Line]  # every line the table is made of, in reading order
    kind: str = "table"  # or "code": a numbered listing


def find_tables(
    pages: list[PageLines], body_size: float, doc: pymupdf.Document, words: Vocabulary
) -> list[Table]:
    """The tables of every page; a row set larger than the body text (a numbered heading whose
    number stands apart from its title) is never part of one. A table set in a grid of rules
    is read by its grid (`pdf_grids`, from the `doc` the pages were read from), on a page
    where tables were found or two rows of cells with a column in common (reading a page's
    drawings costs half as much as reading its text), while the first `_LOOK` such pages or a
    page since held one."""
    found: list[Table] = []
    looked, ruled = 0, 0  # pages whose drawings were read, and those holding a grid
    for page in pages:
        on_page = len(found)
        grouped, parts = _centred_cells(rows_of(page.lines), words)
        rows = [
            [] if max(ln.size for ln in row) > 1.15 * body_size else _cells(row, parts)
            for row in grouped
        ]
        start = 0
        cells_seen = False  # rows of cells in columns: a table may be ruled here
        while start < len(rows):
            if len(rows[start]) < 2:  # a table starts with a row of cells
                start += 1
                continue
            end = _run_end(rows, start, parts)
            cells_seen = cells_seen or aligned_rows(rows[start:end], _COLUMN_SLACK)
            table = (
                _table(page.number, rows[start:end], words) if end - start >= _MIN_ROWS else None
            )
            if table is not None:
                table.lines = [part for ln in table.lines for part in parts.get(id(ln), [ln])]
                found.append(table)
                start = end
            else:
                start += 1
        # a document whose first tables are none of them ruled has none ruled (a TeX book's)
        if (len(found) > on_page or cells_seen) and (ruled or looked < _LOOK):
            found[on_page:], read = _ruled(doc[page.number - 1], page, found[on_page:], words)
            looked += 1
            ruled += read
    return found


def _ruled(
    page: pymupdf.Page, lines: PageLines, tables: list[Table], words: Vocabulary
) -> tuple[list[Table], int]:
    """A page's tables, those set in a grid of rules read by it: in place of the tables found
    from their lines' edges that share a line with it, when those lie inside it; and how many
    grids were read."""
    kept = list(tables)
    read = 0
    for grid in grids(page, lines, words):
        inside = {id(line) for line in grid.lines}
        overlapping = [t for t in kept if any(id(line) in inside for line in t.lines)]
        if any(id(line) not in inside for t in overlapping for line in t.lines):
            continue  # a table reaching out of its rules (labels beside a ruled box of cells)
        kept = [t for t in kept if all(t is not o for o in overlapping)]
        kept.append(Table(lines.number, grid.text, grid.lines))
        read += 1
    return kept, read


def _centred_cells(
    rows: list[list[Line]], words: Vocabulary
) -> tuple[list[list[Line]], dict[int, list[Line]]]:
    """Rows with their vertically centred cells made whole. DocBook's tables (dblatex) and
    LaTeX's m-columns centre a row's cells on its height: a cell of two lines has one line
    above the row's other cells and one below, each a row of its own ("return the NUL
    character (not the same as the" | "/dev/zero | read" | "number zero ASCII)"), and the line
    above went on with the row before (or, two such lines in a row, ended the table). A row
    of cells with lone lines of one column above it and as many below, each side half a line
    away, gets them as one cell; a cell of an odd count of lines, its middle one in the row,
    once the page has shown a centred cell of an even one (else it is a cell wrapped onto the
    lines under the row's, and the row above's wrapped cell). Also the lines each merged
    cell is made of."""
    merged: dict[int, list[Line]] = {}
    taken: set[int] = set()  # rows whose line went into a cell
    out = [list(row) for row in rows]
    for odd in (False, True):
        if odd and not merged:
            break
        for i, row in enumerate(rows):
            if len(row) < 2 or i in taken or i == 0 or len(rows[i - 1]) != 1:
                continue
            column = rows[i - 1][0].x0
            if column <= min(ln.x0 for ln in row) + 1:
                continue  # the row's first column: no cell centred on it
            ups = _lone_lines(rows, i, column, -1, taken)
            downs = _lone_lines(rows, i, column, 1, taken)
            if not ups or len(downs) < len(ups):
                continue
            downs = downs[: len(ups)]  # lines further down may be the next row's cell
            y, size = row[0].y0, rows[ups[0]][0].size
            # measured at the lines' feet: nearer their baselines than their tops, where a
            # column set in another font (a command in Courier) stands apart from the row
            foot = row[0].y1
            up, down = foot - rows[ups[0]][0].y1, rows[downs[0]][0].y1 - foot
            middle = [ln for ln in row if abs(ln.x0 - column) <= _COLUMN_SLACK]
            if abs(up - down) > 1 or bool(middle) != odd or up > (1.6 if odd else 0.8) * size:
                continue
            # a row with a cell of two lines or more stands further from the rows around it
            # than its lines from each other (two rows' logos set below their baselines,
            # "TEX" | "\\LaTeX" | "LATEX", are no cell)
            pitch = up + down if not odd else up
            tops = _row_tops(rows, i)
            if any(abs(y - other) < 1.3 * pitch for other in tops):
                continue
            # each line nearer this row than the rows of cells above and below (cells stacked
            # a line apart: the walk went on into the next row's centred cell)
            if any(
                abs(rows[j][0].y0 - other) <= abs(rows[j][0].y0 - y)
                for j in ups + downs
                for other in tops
            ):
                continue
            lines = [rows[j][0] for j in reversed(ups)] + middle + [rows[j][0] for j in downs]
            text = ""
            for line in lines:
                text = join_text(text, line.text, words)
            cell = replace(
                lines[0],
                text=text,
                y0=min(ln.y0 for ln in lines),
                y1=max(ln.y1 for ln in lines),
                x1=max(ln.x1 for ln in lines),
            )
            merged[id(cell)] = lines
            out[i] = [ln for ln in row if ln not in middle] + [cell]
            taken.update(ups + downs)
    if not merged:
        return rows, {}
    return [row for j, row in enumerate(out) if j not in taken], merged


def _row_tops(rows: list[list[Line]], i: int) -> list[float]:
    """The tops of the rows of cells next above and below row `i`."""
    above = [rows[j][0].y0 for j in range(i - 1, -1, -1) if len(rows[j]) >= 2][:1]
    below = [rows[j][0].y0 for j in range(i + 1, len(rows)) if len(rows[j]) >= 2][:1]
    return above + below


def _lone_lines(
    rows: list[list[Line]], i: int, column: float, step: int, taken: set[int]
) -> list[int]:
    """The rows of one line in `column` next to row `i`, going up (`step` -1) or down, one
    line's height apart: the lines of a cell centred on row `i`, nearest first (their
    indices)."""
    found: list[int] = []
    j = i + step
    while 0 <= j < len(rows) and j not in taken and len(rows[j]) == 1:
        line = rows[j][0]
        if abs(line.x0 - column) > _COLUMN_SLACK or not _WORD.search(line.text):
            break  # another column's, or a glyph of a tall sign's pieces ("⎫" | "⎭")
        if found and abs(line.y0 - rows[found[-1]][0].y0) > 1.6 * line.size:
            break
        found.append(j)
        j += step
    return found


def _cells(row: list[Line], parts: dict[int, list[Line]]) -> list[Line]:
    """The row's lines left to right, when they stand apart as cells (a gap between each).
    `parts`: the centred cells made whole (a cell each, by how they were found)."""
    cells = sorted(row, key=lambda ln: ln.x0)
    for left, right in itertools.pairwise(cells):
        if id(left) in parts:
            continue
        gap = right.x0 - (left.x0 + 0.45 * left.size * len(left.text))
        if gap < left.size:  # touching: one line of text broken into spans, not two cells
            return [cells[0]]
    return cells


def _run_end(rows: list[list[Line]], start: int, parts: dict[int, list[Line]]) -> int:
    """End of the run of rows (as cells) from `start` that could be one table: rows of two or
    more cells, and single-cell rows between them (wrapped cells), close together."""
    end = start
    while end < len(rows):
        if not rows[end]:
            break  # a heading
        if len(rows[end]) < 2 and (end + 1 >= len(rows) or len(rows[end + 1]) < 2):
            break  # a lone line not between two table rows ends the run
        if end > start:
            above = rows[end - 1]
            gap = rows[end][0].y0 - above[0].y0
            if any(id(ln) in parts for ln in above + rows[end]):
                # from the foot of the row above (a centred cell's last line) to this row's
                # top, and a line's height: as the tops of rows of one line are apart
                lowest = max(ln.y1 for ln in above)
                gap = min(ln.y0 for ln in rows[end]) - lowest + (above[0].y1 - above[0].y0)
            if gap > 3 * max(ln.size for ln in above):
                break
        end += 1
    return end


def _table(page: int, cells: list[list[Line]], words: Vocabulary) -> Table | None:
    texts = [c.text for row in cells for c in row]
    if sum(1 for row in cells if len(row) >= 2) < _MIN_ROWS:
        return None
    listing = _numbered_listing(page, cells)
    if listing is not None:
        return listing
    if sum(len(c.text) for row in cells for c in row if c.mono) >= _MONO_SHARE * sum(
        map(len, texts)
    ):
        return None  # a listing whose output or comments stand in columns: code, not cells
    if statistics.median(len(t) for t in texts) > _MAX_MEDIAN_CELL:
        return None
    columns = _columns([c.x0 for row in cells if len(row) >= 2 for c in row])
    recurring = [x for x, n in columns if n >= _MIN_ROWS]
    if len(recurring) < 2:
        return None
    edges = [x for x, _ in columns]
    if _columns_of_prose(cells, edges):
        return None
    table_rows: list[list[str]] = []
    above: dict[int, Line] = {}  # the last line of each column
    rights: dict[int, float] = {}  # the right edge of each column of sentences
    ends: dict[int, list[bool]] = {}
    row_slots = [[_column(c.x0, edges) for c in row] for row in cells]
    for row, slots in zip(cells, row_slots, strict=True):
        for slot, cell in zip(slots, row, strict=True):
            rights[slot] = max(rights.get(slot, 0.0), cell.x1)
            ends.setdefault(slot, []).append(cell.text.rstrip().endswith((".", "!", "?")))
    for slot, ended in ends.items():
        if sum(ended) < 0.3 * len(ended):
            rights[slot] = float("inf")  # labels and phrases: a full line is no wrapped one
    for row, slots in zip(cells, row_slots, strict=True):
        wrapped = table_rows and slots[0] != 0 and len(row) < len(edges)
        if wrapped or _continues(row, slots, above, rights):
            for slot, cell in zip(slots, row, strict=True):  # a wrapped cell goes on
                last = above.get(slot)
                mono = last is not None and last.mono_ends[1] and cell.mono_ends[0]
                table_rows[-1][slot] = join_text(table_rows[-1][slot], cell.text, words, mono)
                above[slot] = cell
            continue
        above.update(zip(slots, row, strict=True))
        values = [""] * len(edges)
        for slot, cell in zip(slots, row, strict=True):
            values[slot] = f"{values[slot]} {cell.text}".strip()
        table_rows.append(values)
    text = "\n".join(" | ".join(trimmed(values)) for values in table_rows)
    return Table(page=page, text=text, lines=[c for row in cells for c in row])


def _numbered_listing(page: int, cells: list[list[Line]]) -> Table | None:
    """The rows as a code listing, when most of them open with a line number one above the
    last one, and most of the numbered ones hold one monospaced cell with a sign of code (a
    backslash, a brace, an operator): a line of code, not a row of cells or a numbered step
    of prose."""
    numbered: list[int] = []
    rows: list[tuple[list[str], float | None]] = []  # its code, and where its code starts
    code_lines: list[Line] = []
    for row in cells:
        found = _LINE_NUMBER.fullmatch(row[0].text.strip())
        if found and (len(row) >= 2 or found[2]):
            numbered.append(int(found[1]))
            code = [found[2]] if found[2] else []  # "16 \\def…": the number set close
            code += [c.text for c in row[1:]]
            rows.append((code, None if found[2] else row[1].x0))
            code_lines += row[1:] if len(code) == 1 and not found[2] else []
        else:
            rows.append(([c.text for c in row], row[0].x0))
    if len(numbered) < _MIN_ROWS or len(numbered) < _NUMBERED_SHARE * len(cells):
        return None
    steps = sum(b == a + 1 for a, b in itertools.pairwise(numbered))
    if steps < _STEP_SHARE * (len(numbered) - 1):
        return None
    if len(code_lines) < 0.5 * len(numbered):
        return None  # numbered rows of cells: a table (TeX's category codes, 0–15, and theirs)
    if sum(1 for c in code_lines if c.mono) < 0.5 * len(code_lines):
        return None  # a numbered list of steps or messages set in the text's font
    if sum(1 for c in code_lines if _CODE_SIGN.search(c.text)) < _CODE_SHARE * len(code_lines):
        return None
    lefts = [left for _, left in rows if left is not None]
    base = min(lefts) if lefts else 0.0
    # a monospaced sign's width, as set (cmtt 0.525 em, Courier 0.6)
    widths = [(c.x1 - c.x0) / len(c.text) for c in code_lines if len(c.text) >= 4]
    width = statistics.median(widths) if widths else 0.55 * code_lines[0].size
    text = "\n".join(
        " " * (round((left - base) / width) if left is not None else 0) + "  ".join(code)
        for code, left in rows
    )
    return Table(page, text, [c for row in cells for c in row], "code")


def _continues(
    row: list[Line], slots: list[int], above: dict[int, Line], rights: dict[int, float]
) -> bool:
    """A row that goes on with the one above although its first column is filled too: each
    of its other cells carries on a cell broken at its column's edge — the line above ended in
    a broken word, or (in a column of sentences) words filled it to the edge without a
    sentence's end, and this one goes on in lower case, a digit or a bracket (an option
    table's "stitching | … По умол-" / "nostitching | чанию …", "… графы 19 по" /
    "nocolumnsxix | 23. По умолчанию …")."""
    if len(row) < 2 or slots[0] != 0:
        return False
    for slot, cell in zip(slots[1:], row[1:], strict=True):
        last = above.get(slot)
        if last is None or slot == 0:
            return False
        tail, start = last.text.rstrip(), cell.text.lstrip()[:1]
        if len(tail) > 1 and tail[-1] == "-" and tail[-2].isalpha() and start.islower():
            continue
        words = len(_WORD.findall(tail))
        filled = last.x1 >= rights[slot] - 2 * last.size and words >= 3
        if not filled or tail.endswith((".", "!", "?", ":", ";")):
            return False
        if not (start.islower() or start.isdigit() or start == "("):
            return False
    return True


def _columns_of_prose(cells: list[list[Line]], edges: list[float]) -> bool:
    """Every column reads like running text: most of its lines long and filled to about the
    same width (a column of a two-column page), unlike a table's cells."""
    by_column: dict[int, list[int]] = {}
    for row in cells:
        for cell in row:
            by_column.setdefault(_column(cell.x0, edges), []).append(len(cell.text))
    for lengths in by_column.values():
        if len(lengths) < _MIN_ROWS:
            continue
        full = sum(1 for n in lengths if n >= 25 and n >= 0.8 * max(lengths))
        if full < 0.6 * len(lengths):
            return False
    return True


def _columns(xs: list[float]) -> list[tuple[float, int]]:
    """Left edges clustered into columns: (edge, how many cells start there), left to right."""
    clusters: list[list[float]] = []
    for x in sorted(xs):
        if clusters and x - clusters[-1][-1] <= _COLUMN_SLACK:
            clusters[-1].append(x)
        else:
            clusters.append([x])
    return [(min(c), len(c)) for c in clusters]


def _column(x: float, edges: list[float]) -> int:
    return min(range(len(edges)), key=lambda i: abs(edges[i] - x))
