"""PDF text as lines: extraction with font facts, running headers and footers removed.

PyMuPDF gives blocks of lines of spans. We keep each line with its page, position, dominant
font size and weight, then drop what repeats across pages at the same place — running headers,
footers, page numbers, ESKD title-block stamps — since those would pollute every chunk.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pymupdf

# Expand ligatures (ﬁ → fi), keep whitespace readable; no images.
_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*[-–—])?$|^(?:page|стр\.?|страница)\s*\d+(?:\s*(?:of|из)\s*\d+)?$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_MONO = re.compile(r"mono|courier|consol|typewriter|code|\btt|cmtt|lmmono", re.IGNORECASE)


@dataclass
class Line:
    page: int  # 1-based
    block: int  # a page-independent block number: lines of one PyMuPDF block share it
    x0: float
    y0: float
    y1: float
    text: str
    size: float  # the font size most of its characters have
    bold: bool
    mono: bool

    @property
    def norm(self) -> str:
        return _DIGITS.sub("#", " ".join(self.text.split()).casefold())


@dataclass
class PageLines:
    number: int
    height: float
    lines: list[Line]


def extract_lines(doc: pymupdf.Document) -> list[PageLines]:
    pages: list[PageLines] = []
    block_id = 0
    for page in doc:
        found: list[Line] = []
        info = page.get_text("dict", flags=_FLAGS)
        for block in info["blocks"]:
            if block.get("type", 0) != 0:
                continue
            block_id += 1
            for line in block["lines"]:
                spans = [s for s in line["spans"] if s["text"]]
                text = "".join(s["text"] for s in spans).strip()
                if not text:
                    continue
                weights: Counter[tuple[float, bool, bool]] = Counter()
                for s in spans:
                    bold = bool(s["flags"] & 16) or "bold" in s["font"].lower()
                    mono = bool(s["flags"] & 8) or bool(_MONO.search(s["font"]))
                    weights[(round(s["size"], 1), bold, mono)] += len(s["text"].strip()) or 1
                (size, bold, mono), _ = weights.most_common(1)[0]
                x0, y0, _, y1 = line["bbox"]
                found.append(Line(page.number + 1, block_id, x0, y0, y1, text, size, bold, mono))
        pages.append(PageLines(page.number + 1, page.rect.height, found))
    return pages


def drop_running_lines(pages: list[PageLines]) -> int:
    """Remove running headers/footers and page numbers in place; return how many lines went.

    A line goes when it sits in the top or bottom band of its page and either is a bare page
    number, or its text (digits ignored) or its vertical slot recurs on many pages; and anywhere
    on the page when short text recurs at the very same place on most pages (stamps, frames).
    """
    n = len(pages)
    if n == 0:
        return 0
    by_text: Counter[tuple[str, str]] = Counter()
    by_slot: Counter[tuple[str, int]] = Counter()
    by_place: Counter[tuple[str, int, int]] = Counter()
    for page in pages:
        seen_text: set[tuple[str, str]] = set()
        seen_slot: set[tuple[str, int]] = set()
        seen_place: set[tuple[str, int, int]] = set()
        for line in page.lines:
            zone = _zone(line, page.height)
            if zone:
                seen_text.add((zone, line.norm))
                seen_slot.add((zone, round(line.y0 / 3)))
            if len(line.text) <= 60:
                seen_place.add((line.norm, round(line.x0 / 4), round(line.y0 / 4)))
        by_text.update(seen_text)
        by_slot.update(seen_slot)
        by_place.update(seen_place)
    repeats = n >= 4
    text_min = max(3, int(0.3 * n))
    slot_min = max(3, int(0.4 * n))
    place_min = max(3, int(0.5 * n))
    dropped = 0
    for page in pages:
        kept = []
        for line in page.lines:
            zone = _zone(line, page.height)
            running = False
            if zone and _PAGE_NUMBER.match(line.text.strip()):
                running = True
            elif repeats and zone and len(line.text) <= 160:
                running = (
                    by_text[(zone, line.norm)] >= text_min
                    or by_slot[(zone, round(line.y0 / 3))] >= slot_min
                )
            if not running and repeats and len(line.text) <= 60:
                place = (line.norm, round(line.x0 / 4), round(line.y0 / 4))
                running = by_place[place] >= place_min
            if running:
                dropped += 1
            else:
                kept.append(line)
        page.lines = kept
    return dropped


def _zone(line: Line, height: float) -> str:
    middle = (line.y0 + line.y1) / 2
    if middle < 0.1 * height:
        return "top"
    if middle > 0.9 * height:
        return "bottom"
    return ""


def body_font_size(pages: list[PageLines]) -> float:
    """The size most characters of prose-like lines are set in."""
    sizes: Counter[float] = Counter()
    fallback: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            n = len(line.text)
            fallback[round(line.size * 2) / 2] += n
            if not line.mono and n >= 30 and " " in line.text:
                sizes[round(line.size * 2) / 2] += n
    counts = sizes or fallback
    return counts.most_common(1)[0][0] if counts else 10.0
