"""Notes in a page's margins: a macro's name set beside the paragraph that describes it
(LaTeX's ltxdoc `\\DescribeMacro`), a `\\marginpar`.

PyMuPDF puts such a note in the block of the line beside it, and read in order it cut the
paragraph there (a monospaced name is a listing of its own) and kept a word broken at that
line's end from joining its other half ("развёрнутых верти-" ‖ "\\rotheadsize" ‖ "кально").
The tree takes the notes out of the text's flow and sets each before the paragraph it stands
beside, as a block of its own.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable

from mirage_pipeline.parsing.pdf_lines import Line

_NOTE_CHARS = 40  # a line of a margin note is a name or a few words
_MEASURE_CHARS = 30  # lines this long set the text column's edges
_EDGE_LINES = 5  # … when at least this many share an edge
_EDGE_SHARE = 0.2  # … and at least this share of the lines at the commonest edge
_OFF_COLUMN = 0.25  # font sizes a note stands clear of the column, at least
_GAP = 0.8  # … and of the line beside it (a margin's separation, not a word space)
_ALIGNED = 3  # a document's margin notes line up: this many lines at least share an edge
_NOTE_STEP = 2.0  # font sizes between the tops of two lines of one note, at most


def margin_notes(lines: list[Line], skip: set[int], apart: set[int]) -> dict[int, list[int]]:
    """Notes in the margins, by the line they stand beside: index of that line → indexes of
    its notes' lines, one note after the other.

    A note's lines lie wholly outside the document's text column (left or right of the edges
    its full lines share on pages of that parity: a book's odd and even pages mirror their
    margins), stacked one under the other, short, lined up with other such lines, and none of
    them goes on in a line reaching into the column or shares its row with one (an example's
    source set wider than the column, a float's caption beside its figure). One of them stands
    a margin's width from a line of prose in the column on its row; the note holds a letter
    (an equation's number is none). `skip`: indexes of lines already taken (headings, tables);
    `apart`: ids of lines no note stands beside (a listing's, a footnote's)."""
    columns = {parity: _column(ln for ln in lines if ln.page % 2 == parity) for parity in (0, 1)}
    candidates: list[tuple[int, bool]] = []  # (line, on the left)
    inside: dict[int, list[int]] = {}  # page → its prose lines in the column
    indexed = [(i, line) for i, line in enumerate(lines) if i not in skip]
    for number, group in itertools.groupby(indexed, key=lambda item: item[1].page):
        edges = columns[number % 2]
        if edges is None:
            continue
        left, right = edges
        found = []
        astride = []  # lines reaching from a margin into the column
        for i, line in group:
            clear = _OFF_COLUMN * line.size
            if line.x1 <= left - clear or line.x0 >= right + clear:
                found.append((i, line.x1 <= left - clear))
            elif line.x0 >= left - 1 and line.x1 <= right + 1:
                if id(line) not in apart:
                    inside.setdefault(number, []).append(i)
            else:
                astride.append(line)
        candidates += [
            (i, on_left)
            for i, on_left in found
            if not any(_goes_on(lines[i], other) for other in astride)
        ]
    aligned = _aligned(lines, candidates)
    notes: dict[int, list[int]] = {}
    for note in _stacks(lines, [c for c in candidates if c[0] in aligned]):
        texts = [lines[i].text for i, _ in note]
        if any(len(text) > _NOTE_CHARS for text in texts) or not any(
            c.isalpha() for text in texts for c in text
        ):
            continue
        beside = next(
            (b for i, on_left in note if (b := _beside(lines, i, on_left, inside)) is not None),
            None,
        )
        if beside is not None:
            notes.setdefault(beside, []).extend(i for i, _ in note)
    return notes


def _goes_on(line: Line, other: Line) -> bool:
    """`other` is in `line`'s block, on its row, or the line right above or below it."""
    return (
        line.block == other.block
        or _same_row(line, other)
        or _stacked(line, other)
        or _stacked(other, line)
    )


def _aligned(lines: list[Line], candidates: list[tuple[int, bool]]) -> set[int]:
    """The candidates sharing an edge with others on their side of pages of their parity."""
    edges: Counter[tuple[int, bool, str, int]] = Counter()
    for i, on_left in candidates:
        line = lines[i]
        edges[(line.page % 2, on_left, "x0", round(line.x0))] += 1
        edges[(line.page % 2, on_left, "x1", round(line.x1))] += 1
    kept = set()
    for i, on_left in candidates:
        line = lines[i]
        key = (line.page % 2, on_left)
        shared = max(edges[(*key, "x0", round(line.x0))], edges[(*key, "x1", round(line.x1))])
        if shared >= _ALIGNED:
            kept.add(i)
    return kept


def _stacks(lines: list[Line], candidates: list[tuple[int, bool]]) -> list[list[tuple[int, bool]]]:
    """The candidates as notes: each the lines stacked one under the other, top to bottom."""
    notes: list[list[tuple[int, bool]]] = []
    for item in sorted(candidates, key=lambda c: (lines[c[0]].page, lines[c[0]].y0)):
        open_note = next(
            (n for n in reversed(notes[-3:]) if _stacked(lines[n[-1][0]], lines[item[0]])), None
        )
        if open_note is not None:
            open_note.append(item)
        else:
            notes.append([item])
    return notes


def _beside(lines: list[Line], i: int, on_left: bool, inside: dict[int, list[int]]) -> int | None:
    """The prose line in the column on line i's row, a margin's width from it, if any."""
    note = lines[i]
    row = [j for j in inside.get(note.page, ()) if _same_row(note, lines[j])]
    if not row:
        return None
    if on_left:
        j = min(row, key=lambda j: lines[j].x0)
        gap = lines[j].x0 - note.x1
    else:
        j = max(row, key=lambda j: lines[j].x1)
        gap = note.x0 - lines[j].x1
    return j if gap >= _GAP * note.size else None


def _stacked(above: Line, below: Line) -> bool:
    """`below` is the line right under `above`, overlapping it across."""
    return (
        above.page == below.page
        and 0.5 * above.size < below.y0 - above.y0 <= _NOTE_STEP * above.size
        and min(above.x1, below.x1) > max(above.x0, below.x0)
    )


def _column(lines: Iterable[Line]) -> tuple[float, float] | None:
    """The left and right edges of the text column: the leftmost left edge and the rightmost
    right edge that many of the full lines share (a fifth as many as the commonest edge: the
    outer edges of two columns; the farthest right edge of text set ragged), or None."""
    starts: Counter[int] = Counter()
    ends: Counter[int] = Counter()
    for line in lines:
        if len(line.text) >= _MEASURE_CHARS:
            starts[round(line.x0)] += 1
            ends[round(line.x1)] += 1
    if not starts:
        return None
    lefts, rights = (
        [x for x, n in counts.items() if n >= _shared(counts)] for counts in (starts, ends)
    )
    if not lefts:
        return None
    return min(lefts), max(rights or ends)  # a ragged right edge: its farthest line


def _shared(counts: Counter[int]) -> float:
    return max(_EDGE_LINES, _EDGE_SHARE * max(counts.values()))


def _same_row(note: Line, body: Line) -> bool:
    """The two lines' heights overlap by at least half the shorter one."""
    overlap = min(note.y1, body.y1) - max(note.y0, body.y0)
    return overlap >= 0.5 * min(note.y1 - note.y0, body.y1 - body.y0)
