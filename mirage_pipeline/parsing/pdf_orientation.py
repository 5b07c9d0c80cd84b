"""Pages whose text runs up or down the page: a landscape page (`/Rotate 90`: a wide table, a
font's feature chart) or a table turned on a portrait page. MuPDF gives their lines in the
page's own unturned space, where each line stands upright and the next one sits beside it:
every line was a paragraph of its own, rows and running heads were read across the text, and
lines were dropped as headers. Turned back, they read as any page does."""

from __future__ import annotations

import re
from typing import Protocol

import pymupdf


class Boxed(Protocol):
    """A line of text with its box (pdf_lines.Line), as this module moves it."""

    x0: float
    y0: float
    x1: float
    y1: float
    block: int
    text: str


_UPRIGHT = 0.9  # |sin| of a line's direction: it runs up or down the page
_TURNED_SHARE = 0.6  # of a page's characters in such lines: the page is turned
_BARE_NUMBER = re.compile(r"\s*(?:\d{1,4}|[ivxlc]{1,7})\s*")

Box = tuple[float, float, float, float]


def turn_lines(lines: list[Boxed], info: dict, page: pymupdf.Page) -> float:
    """The page's lines, in place, as read with the page turned when its text runs up or down
    it; their page's height as read. A page number the book set across the turned page (at
    the foot of the portrait page it stands on) goes: read turned, it stood beside the text."""
    turn, across = page_turn(info)
    if not turn:
        return page.rect.height
    width, height = page.rect.width, page.rect.height
    if page.rotation % 180:  # the lines are in the unrotated page's space
        width, height = height, width
    kept = [
        ln
        for ln in lines
        if not ((round(ln.x0), round(ln.y0)) in across and _BARE_NUMBER.fullmatch(ln.text))
    ]
    for ln in kept:
        ln.x0, ln.y0, ln.x1, ln.y1 = turned((ln.x0, ln.y0, ln.x1, ln.y1), turn, width, height)
    kept.sort(key=lambda ln: (ln.block, ln.y0, ln.x0))
    lines[:] = kept
    return width


def page_turn(info: dict) -> tuple[int, set[tuple[int, int]]]:
    """+1 when most of the page's text runs up it (read turned a quarter clockwise), -1 when
    down, 0 when across as usual; and where the lines running across start. `info`: the
    page's `get_text("dict")`."""
    up = down = total = 0
    across: set[tuple[int, int]] = set()
    for block in info["blocks"]:
        for line in block.get("lines", ()):
            chars = sum(len(span["text"]) for span in line["spans"])
            total += chars
            sin = line["dir"][1]
            if sin <= -_UPRIGHT:
                up += chars
            elif sin >= _UPRIGHT:
                down += chars
            else:
                across.add((round(line["bbox"][0]), round(line["bbox"][1])))
    if up >= _TURNED_SHARE * total > 0:
        return 1, across
    if down >= _TURNED_SHARE * total > 0:
        return -1, across
    return 0, across


def turned(box: Box, turn: int, width: float, height: float) -> Box:
    """A line's box (x0, y0, x1, y1) on the page turned so that its text runs across: up the
    page, x is measured from the bottom and y from the left; down, x from the top and y from
    the right. `width` and `height`: the unturned page's."""
    x0, y0, x1, y1 = box
    if turn > 0:
        return height - y1, x0, height - y0, x1
    if turn < 0:
        return y0, width - x1, y1, width - x0
    return box
