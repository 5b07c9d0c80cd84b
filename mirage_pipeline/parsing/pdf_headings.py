"""Where a PDF's sections start: outline entries located on their pages, or headings detected
from font statistics when the PDF has no outline."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mirage_pipeline.parsing.pdf_lines import Line

_NOT_WORD = re.compile(r"[\W_]+")
_LEADING_NUMBER = re.compile(r"^(?:\d+|[ivxlc]+|[a-z])(?:[.\d]*)")
_NUMBERED = re.compile(
    r"^(?:(?:глава|часть|раздел|приложение|chapter|part|section|appendix)\s+[\w.]+"
    r"|\d+(?:\.\d+)*\.?\s+\w)",
    re.IGNORECASE,
)
_NUMBER_ONLY = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.?|[А-ЯA-Z]\.?)$")


@dataclass
class Heading:
    start: int  # index of the first line of the section's body (or of the heading line)
    level: int
    title: str
    page: int
    lines: tuple[int, ...] = ()  # indexes of the heading's own lines, left out of the body


def _norm(text: str) -> str:
    return _NOT_WORD.sub("", text.casefold())


def locate_outline(
    toc: list[tuple[int, str, int]], lines: list[Line], page_starts: dict[int, int]
) -> list[Heading]:
    """Each outline entry placed at its heading line on its page (or at the page's top)."""
    headings: list[Heading] = []
    floor = search_from = 0
    for level, title, page in toc:
        start = max(page_starts.get(page, floor), floor)
        found = _find_title(title, lines, max(start, search_from), page)
        if found:
            first, last = found
            heading = Heading(first, level, title, page, tuple(range(first, last + 1)))
            search_from = last + 1
        else:
            heading = Heading(start, level, title, page)
        floor = heading.start
        headings.append(heading)
    return headings


def _find_title(title: str, lines: list[Line], start: int, page: int) -> tuple[int, int] | None:
    want = _norm(title)
    if not want:
        return None
    bare = _LEADING_NUMBER.sub("", want, count=1) if _LEADING_NUMBER.match(want) else want
    i = start
    while i < len(lines) and lines[i].page == page:
        text = ""
        for k in range(i, min(i + 3, len(lines))):
            if lines[k].page != page:
                break
            text += _norm(lines[k].text)
            if len(text) > len(want) + 8:
                break
            plain = _LEADING_NUMBER.sub("", text, count=1) if _LEADING_NUMBER.match(text) else text
            if text in (want, bare) or (plain and plain in (want, bare) and len(plain) >= 3):
                return i, k
        i += 1
    return None


def detect_headings(
    lines: list[Line], body_size: float, cells: frozenset[int] = frozenset()
) -> list[Heading]:
    """Headings from typography: larger than the body, or bold and short, or numbered.

    `cells`: ids of lines that are table cells (a bold header row is not a heading)."""
    candidates: list[tuple[int, int, float, str]] = []  # first, last line, size, text
    i = 0
    while i < len(lines):
        block_len = _block_length(lines, i)
        in_table = any(id(lines[j]) in cells for j in range(i, i + block_len))
        if block_len <= 3 and not in_table and _looks_like_heading(lines, i, block_len, body_size):
            text = " ".join(lines[j].text for j in range(i, i + block_len))
            size = max(lines[j].size for j in range(i, i + block_len))
            candidates.append((i, i + block_len - 1, size, text))
            i += block_len
            continue
        i += block_len
    candidates = _join_number_lines(candidates, lines)
    if not candidates:
        return []
    sizes = sorted({round(c[2] * 2) / 2 for c in candidates}, reverse=True)
    # Many heading sizes are rare: keep the four largest as levels, the rest as level 4.
    level_of = {s: min(n + 1, 4) for n, s in enumerate(sizes)}
    return [
        Heading(
            first,
            level_of[round(size * 2) / 2],
            " ".join(text.split()),
            lines[first].page,
            tuple(range(first, last + 1)),
        )
        for first, last, size, text in candidates
    ]


def _block_length(lines: list[Line], i: int) -> int:
    n = 1
    while i + n < len(lines) and lines[i + n].block == lines[i].block:
        n += 1
    return n


def _looks_like_heading(lines: list[Line], i: int, n: int, body: float) -> bool:
    group = lines[i : i + n]
    text = " ".join(line.text for line in group).strip()
    if _NUMBER_ONLY.match(text):
        return group[0].size >= body + 1 or group[0].bold
    if len(text) > 120 or not any(ch.isalpha() for ch in text):
        return False
    if any(line.mono for line in group) or text.endswith((".", ",", ";", ":")):
        return False
    larger = all(line.size >= body + 1.0 for line in group)
    bold = all(line.bold for line in group) and all(line.size >= body - 0.5 for line in group)
    if larger:
        return True
    if bold and len(text) <= 80 and n <= 2:
        return True
    return bool(_NUMBERED.match(text)) and bold


def _join_number_lines(
    candidates: list[tuple[int, int, float, str]], lines: list[Line]
) -> list[tuple[int, int, float, str]]:
    """ "1" then "Параметры класса" as two headings → one heading "1 Параметры класса"."""
    joined: list[tuple[int, int, float, str]] = []
    for cand in candidates:
        if (
            joined
            and _NUMBER_ONLY.match(joined[-1][3].strip())
            and cand[0] == joined[-1][1] + 1
            and lines[cand[0]].page == lines[joined[-1][0]].page
        ):
            prev = joined.pop()
            joined.append((prev[0], cand[1], max(prev[2], cand[2]), f"{prev[3]} {cand[3]}"))
        else:
            joined.append(cand)
    # A bare number that found no title is not a heading.
    return [c for c in joined if not _NUMBER_ONLY.match(c[3].strip())]
