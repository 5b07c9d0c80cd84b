"""The ruled lines of a PDF page: its horizontal and vertical rules, and the groups of them
that meet (a table's grid each). `pdf_grids` reads tables by them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pymupdf

THIN = 2.0  # points: a rule is at most this thick
MIN_RULE = 6.0  # points: … and at least this long
TOUCH = 2.5  # points: rules this close meet
SAME = 1.5  # points: rules this close are one (a rule drawn cell by cell)


@dataclass
class Rule:
    at: float  # y of a horizontal rule, x of a vertical one
    lo: float  # where it starts (x of a horizontal, y of a vertical)
    hi: float


def page_rules(page: pymupdf.Page) -> tuple[list[Rule], list[Rule]]:
    """The page's horizontal and vertical rules: thin lines and rectangles (a LaTeX rule is a
    filled rectangle), a stroked box's four sides, collinear pieces joined."""
    horizontal: list[Rule] = []
    vertical: list[Rule] = []
    try:
        paths = page.get_cdrawings()
    except (RuntimeError, ValueError):
        return [], []  # a damaged content stream costs the grids, not the page
    for path in paths:
        stroked = "s" in path.get("type", "")
        for item in path["items"]:
            if item[0] == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1]
            else:
                continue
            x0, x1 = sorted((x0, x1))
            y0, y1 = sorted((y0, y1))
            width, height = x1 - x0, y1 - y0
            if height <= THIN and width >= MIN_RULE:
                horizontal.append(Rule((y0 + y1) / 2, x0, x1))
            elif width <= THIN and height >= MIN_RULE:
                vertical.append(Rule((x0 + x1) / 2, y0, y1))
            elif item[0] == "re" and stroked and width >= MIN_RULE and height >= MIN_RULE:
                horizontal += [Rule(y0, x0, x1), Rule(y1, x0, x1)]
                vertical += [Rule(x0, y0, y1), Rule(x1, y0, y1)]
    return _joined(horizontal), _joined(vertical)


def _joined(rules: list[Rule]) -> list[Rule]:
    """Collinear rules that meet as one (a word processor draws a row's rule cell by cell):
    rules within `SAME` of each other's line, their pieces joined where they meet."""
    out: list[Rule] = []
    line: list[Rule] = []
    for rule in sorted(rules, key=lambda r: r.at):
        if line and rule.at - line[0].at > SAME:
            out += _pieces(line)
            line = []
        line.append(rule)
    return out + _pieces(line) if line else out


def _pieces(line: list[Rule]) -> list[Rule]:
    """One line's rules, those that meet or overlap joined."""
    at = sum(r.at for r in line) / len(line)
    out: list[Rule] = []
    for rule in sorted(line, key=lambda r: r.lo):
        if out and rule.lo <= out[-1].hi + TOUCH:
            out[-1].hi = max(out[-1].hi, rule.hi)
        else:
            out.append(Rule(at, rule.lo, rule.hi))
    return out


def _crosses(h: Rule, v: Rule) -> bool:
    return h.lo - TOUCH <= v.at <= h.hi + TOUCH and v.lo - TOUCH <= h.at <= v.hi + TOUCH


def components(horizontal: list[Rule], vertical: list[Rule]) -> list[tuple[list[Rule], list[Rule]]]:
    """The rules that meet, as groups (a table's grid each), those holding both kinds."""
    parent = list(range(len(horizontal) + len(vertical)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for (i, h), (j, v) in itertools.product(enumerate(horizontal), enumerate(vertical)):
        if _crosses(h, v):
            parent[find(i)] = find(len(horizontal) + j)
    groups: dict[int, tuple[list[Rule], list[Rule]]] = {}
    for i, h in enumerate(horizontal):
        groups.setdefault(find(i), ([], []))[0].append(h)
    for j, v in enumerate(vertical):
        groups.setdefault(find(len(horizontal) + j), ([], []))[1].append(v)
    return [g for g in groups.values() if len(g[0]) >= 2 and g[1]]
