"""A ruled table's text into its cells (pdf_grids): each line to the cell its first character
stands in; a line running over its cell's rule split between the cells its words start in."""

from __future__ import annotations

import bisect
import statistics
from dataclasses import dataclass

import pymupdf

from mirage_pipeline.parsing.pdf_lines import Line
from mirage_pipeline.parsing.pdf_text import Vocabulary

ALIGNED = 0.6  # points: lines of a left-aligned column start this close to each other
OVERRUN = 3.0  # points: a line running this far past its cell's rule holds the next cell's


@dataclass(frozen=True)
class Char:
    """A character of a line as MuPDF set it: where it stands, and whether a span opens at it."""

    c: str
    x0: float
    x1: float
    opens: bool


@dataclass
class Piece:
    """A cell's line, or the part of a line in that cell."""

    y0: float
    x0: float
    text: str
    mono_ends: tuple[bool, bool] = (False, False)
    start: int = 0  # where it starts in its line's text, when it is a part of one
    x1: float = 0.0  # where a whole line ends (0: a part of a line)


def placed(
    page: pymupdf.Page,
    words: Vocabulary,
    lines: list[Line],
    bands: list[tuple[float, float]],
    rows: list[list[tuple[float, float]]],
) -> list[list[list[Piece]]]:
    """Each band's cells' pieces of text: a line in the cell its first character stands in,
    a line running over its cell's rule split between the cells its words start in."""
    cells: list[list[list[Piece]]] = [[[] for _ in row] for row in rows]
    overruns: list[tuple[int, int, Line]] = []
    starts: dict[int, list[float]] = {}  # a column's left rule → where its cells' lines start
    tops = [top for top, _ in bands]
    for line in lines:
        middle = centre(line)
        near = bisect.bisect_right(tops, middle) - 1  # the band it is in, or the one above
        band = min(
            (i for i in (near, near + 1) if 0 <= i < len(bands)),
            key=lambda i: _distance(middle, bands[i]),
        )
        row = rows[band]
        slot = _slot(row, line.x0 + 1)
        if line.x1 > row[slot][1] + OVERRUN and slot + 1 < len(row):
            overruns.append((band, slot, line))
        else:
            piece = Piece(line.y0, line.x0, line.text, line.mono_ends, x1=line.x1)
            cells[band][slot].append(piece)
            starts.setdefault(round(row[slot][0]), []).append(line.x0)
    lefts = _text_lefts(starts)
    chars = _line_chars(page, [line for _, _, line in overruns]) if overruns else {}
    for band, slot, line in overruns:
        row = rows[band]
        begins = [lefts.get(round(x0)) for x0, _ in row]
        # a cell holding a line of its own beside this one takes none of it
        held = {
            k
            for k, cell in enumerate(cells[band])
            if any(abs(p.y0 - line.y0) < 2 and p.x0 < line.x1 - OVERRUN for p in cell)
        }
        for at, piece in _split(line, chars.get(id(line)), row, slot, begins, held, words):
            cells[band][at].append(piece)
    return cells


def centre(line: Line) -> float:
    """The height of a line's middle."""
    return (line.y0 + line.y1) / 2


def _distance(y: float, band: tuple[float, float]) -> float:
    top, bottom = band
    return 0.0 if top <= y <= bottom else min(abs(y - top), abs(y - bottom))


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
        if sum(1 for x in xs if abs(x - at) <= ALIGNED) >= 0.6 * len(xs):
            lefts[rule] = at
    return lefts


def _split(
    line: Line,
    chars: list[Char] | None,
    row: list[tuple[float, float]],
    slot: int,
    begins: list[float | None],
    held: set[int],
    words: Vocabulary,
) -> list[tuple[int, Piece]]:
    """A line running across its cell's rule, its words each to the cell it starts in — a
    word is also cut where the text steps back left (the next cell's, set over the end of
    this one's: "config::ifupdown" + "standardized") or where a later column's text starts
    (`begins`: "config::Netfilter" + "administration", set touching; where MuPDF starts a
    span, as it does where the text jumps, or where a word of the document starts that the
    glued token is not: "manpage→html" + "converter"); a cell in `held` (a line of its own beside
    this one) takes none of it; the line whole when its characters cannot be matched to its
    text (a re-decoded legacy font's)."""
    whole = [(slot, Piece(line.y0, line.x0, line.text, line.mono_ends, x1=line.x1))]
    text = line.text
    raw = "".join(c.c for c in chars or ())
    if chars is None or raw.strip() != text:
        return whole
    lead = len(raw) - len(raw.lstrip())
    parts: list[tuple[int, Piece]] = []
    in_word, last_x1 = False, None
    for i, char in enumerate(chars[lead : lead + len(text)]):
        x0 = char.x0
        if char.c.isspace():
            in_word = False
            continue
        stepped = last_x1 is not None and (
            x0 < last_x1 - 1
            or (
                any(
                    b is not None and k > slot and k not in held and abs(x0 - b) <= ALIGNED
                    for k, b in enumerate(begins)
                )
                and (char.opens or _word_starts(text, i, words))
            )
        )
        last_x1 = char.x1
        if in_word and not stepped:
            continue
        in_word = True
        at = max(slot, _slot(row, x0 + 1))
        if at in held:
            at = parts[-1][0] if parts else slot
        if parts and parts[-1][0] == at:
            continue
        if parts:
            parts[-1][1].text = text[parts[-1][1].start : i].strip()
        parts.append((at, Piece(line.y0, x0, "", line.mono_ends, i)))
    if len(parts) < 2:
        return whole
    parts[-1][1].text = text[parts[-1][1].start :].strip()
    return parts


def trimmed(values: list[str]) -> list[str]:
    """A row's cells without the empty ones at its end (a cell's own "|" stays)."""
    end = len(values)
    while end and not values[end - 1]:
        end -= 1
    return values[:end]


def _word_starts(text: str, i: int, words: Vocabulary) -> bool:
    """Whether a word of the document starts at `text[i]` inside a token that is none."""
    end = next((k for k in range(i, len(text)) if text[k].isspace()), len(text))
    begin = next((k + 1 for k in range(i - 1, -1, -1) if text[k].isspace()), 0)
    tail, token = text[i:end].casefold(), text[begin:end].casefold()
    known = words.tokens()
    return len(tail) >= 3 and tail.rstrip(".,;:") in known and token not in known


def _line_chars(page: pymupdf.Page, lines: list[Line]) -> dict[int, list[Char]]:
    """The characters of the MuPDF lines `lines` were read from, by the line's id: read once
    for them all (a text page is made per reading)."""
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
                    Char(c["c"], c["bbox"][0], c["bbox"][2], k == 0)
                    for span in found["spans"]
                    for k, c in enumerate(span["chars"])
                ]
                break
    return out
