"""Tables drawn in plain text with "+---+" and "|" (w3m's and pandoc's grid tables: the
Debian Reference as text), read as rows of cells. Drawn, a row's cells wrap over several
lines between the rules, and a chunk cut between those lines held half a row
("|gpm |V:11, |521 |The Unix style cut-and-paste on the text|" in one chunk, "console
(daemon)" in the next); read, each row is one line, "a | b | c", its cells' lines joined,
under the header and a Markdown rule (`|---|`), which the chunker repeats over every part of
a table it splits."""

from __future__ import annotations

import re

_BORDER = re.compile(r"^[+|][-=+|: ]*[-=][-=+|: ]*[+|]$")  # "+-----+", "|----+---|", "+==+"
_ROW = re.compile(r"^\|.*\|$")
_MIN_ROWS = 2


def grid_table(lines: list[str]) -> str | None:
    """The run's lines as a table's rows, when they draw a grid table (each line a border or
    a row of cells between "|", bordered above and below), else None."""
    stripped = [line.strip() for line in lines]
    if len(stripped) < 3 or not (_BORDER.match(stripped[0]) and _BORDER.match(stripped[-1])):
        return None
    if not all(_BORDER.match(line) or _ROW.match(line) for line in stripped):
        return None
    rows: list[list[str]] = []
    current: list[list[str]] = []
    for line in stripped[1:]:
        if _BORDER.match(line):
            if current:
                rows.append(_joined(current))
                current = []
            continue
        current.append([cell.strip() for cell in line[1:-1].split("|")])
    widths = {len(row) for row in rows}
    if len(rows) < _MIN_ROWS or len(widths) != 1 or widths == {1}:
        return None
    out = [" | ".join(row) for row in rows]
    if len(rows) > _MIN_ROWS:  # the first row heads the columns
        out.insert(1, " | ".join(["---"] * len(rows[0])))
    return "\n".join(out)


def _joined(lines: list[list[str]]) -> list[str]:
    """One row of cells from the lines it is drawn on: each cell's pieces, top to bottom."""
    width = max(len(cells) for cells in lines)
    return [
        " ".join(cells[i] for cells in lines if i < len(cells) and cells[i]) for i in range(width)
    ]
