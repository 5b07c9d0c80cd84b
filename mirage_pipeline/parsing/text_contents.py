"""Printed tables of contents in plain text: found, left out of the text, and kept as evidence
of which numbered lines further on are headings.

A run of lines is a table of contents when most of its lines are entries (a number, a
"Chapter 2", or a title with a dot leader and a page number) and most of those entries come
back later as lines of their own. Such a block matches every question about the book if it is
indexed; the headings it lists already give the structure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mirage_pipeline.parsing.text_numbering import (
    BARE_NUMBERED,
    KEYWORD,
    NUMBERED,
    number_key,
    parse_number,
)
from mirage_pipeline.parsing.text_runs import Run

_CONTENTS_TITLE = re.compile(
    r"^\s*(?:table of contents|contents|содержание|оглавление)\s*:?\s*$", re.IGNORECASE
)
# ". . . . 12", "....... 12" or a page number after a wide gap
_LEADER = re.compile(r"(?:[ \t]*\.){3,}[ \t]*\d{1,4}[ \t]*$|[ \t]{2,}\d{1,4}[ \t]*$")
_ITEM = re.compile(r"^\s*[*•\-–]\s+")  # a list item's mark
_PREFIX = 20  # letters and digits of a title compared with a heading's


@dataclass
class Contents:
    """Runs that are printed contents, and the (number, title start) of their entries."""

    runs: set[int] = field(default_factory=set)
    keys: set[tuple[str, str]] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)  # entries without a number
    depths: dict[str, int] = field(default_factory=dict)  # a nested bulleted list's, by depth


def norm(text: str) -> str:
    """Words only, lower case: "2.3. Where/How?" and "2.3 where how" compare equal."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def _title_key(title: str) -> str:
    """The start of a title, its letters and digits only: the contents may space a word the
    heading does not ("WEB PAGES" listed, "WEBPAGES" set)."""
    return "".join(re.findall(r"\w+", title.casefold()))[:_PREFIX]


def heading_key(text: str) -> tuple[str, str] | None:
    """(number, start of title) of a numbered or "Chapter N" line, else None."""
    match = NUMBERED.match(text) or KEYWORD.match(text) or BARE_NUMBERED.match(text)
    if not match or not match.group("title"):
        return None
    return number_key(parse_number(match.group("num"))), _title_key(match.group("title"))


def find_contents(runs: list[Run]) -> Contents:
    """Every printed table of contents among the runs (some books print one per chapter)."""
    latest: dict[tuple[str, str], int] = {}
    short: list[tuple[int, str]] = []
    for i, run in enumerate(runs):
        if len(run.lines) <= 4:
            text = run.joined()
            key = heading_key(text)
            if key:
                latest[key] = i
            short.append((i, norm(text)))
    found = Contents()
    for i, run in enumerate(runs):
        nested = _nested_list(run.lines)
        if not nested:
            continue
        later = {text for j, text in short if j > i}
        if sum(title in later for title in nested) >= max(4, 0.6 * len(nested)):
            found.runs.add(i)
            for title, depth in nested.items():
                found.depths.setdefault(title, depth)
    for indexes, lines in _blocks(runs):
        i = indexes[-1]
        if len(lines) < 3 or indexes[0] in found.runs:
            continue
        entries = _entries(lines)
        if len(entries) < 3 or len(entries) < 0.4 * len(lines):
            continue
        later = [(j, text) for j, text in short if j > i]
        matched = sum(
            1
            for key, title in entries
            if (key and latest.get(key, -1) > i)
            or (len(title) >= 4 and any(title in text for _, text in later))
        )
        if matched < max(3, 0.6 * len(entries)):
            continue
        found.runs.update(indexes)
        first = indexes[0]
        if (
            first > 0
            and len(runs[first - 1].lines) == 1
            and _CONTENTS_TITLE.match(runs[first - 1].lines[0])
        ):
            found.runs.add(first - 1)
        for key, title in entries:
            if key:
                found.keys.add(key)
            else:
                found.titles.add(title)
    return found


def _blocks(runs: list[Run]) -> list[tuple[list[int], list[str]]]:
    """Each run with its lines; a list of one-entry items set apart by blank lines (Sphinx's
    text contents: "* 2. Applying", "  * 2.1. Getting started") one block, bullets removed."""
    blocks: list[tuple[list[int], list[str]]] = []
    items: list[int] = []
    for i, run in enumerate([*runs, None]):
        if run is not None and len(run.lines) <= 2 and _ITEM.match(run.lines[0]):
            items.append(i)
            continue
        if len(items) >= 3:
            lines = [_ITEM.sub("", line, count=1) for k in items for line in runs[k].lines]
            blocks.append((list(items), lines))
        else:
            blocks.extend(([k], runs[k].lines) for k in items)
        items = []
        if run is not None:
            blocks.append(([i], run.lines))
    return blocks


def _entries(lines: list[str]) -> list[tuple[tuple[str, str] | None, str]]:
    """(number key or None, title) of each entry; lines without a number of their own and
    without a leader continue the entry above (a title wrapped in the contents)."""
    entries: list[tuple[str | None, str]] = []  # (number, title so far)
    for line in lines:
        has_leader = bool(_LEADER.search(line))
        text = _LEADER.sub("", line)
        match = NUMBERED.match(text) or KEYWORD.match(text) or BARE_NUMBERED.match(text)
        if match and match.group("title"):
            entries.append((number_key(parse_number(match.group("num"))), match.group("title")))
        elif has_leader:
            entries.append((None, text))
        elif entries:
            number, title = entries[-1]
            entries[-1] = (number, f"{title} {text.strip()}")
    return [
        ((number, _title_key(title)) if number else None, norm(title)) for number, title in entries
    ]


def _nested_list(lines: list[str]) -> dict[str, int]:
    """A bulleted list of one-line entries, nested by indentation — pandoc's plain-text
    contents ("-   USAGE AND OPTIONS", "    -   Network Options") —: title → depth (1 for the
    outermost indent); empty unless the run is such a list of five entries or more."""
    entries: list[tuple[int, str]] = []
    for line in lines:
        mark = _ITEM.match(line)
        if mark:
            entries.append((len(line) - len(line.lstrip()), line[mark.end() :]))
        elif entries and line.startswith(" " * (entries[-1][0] + 2)):  # a wrapped entry
            entries[-1] = (entries[-1][0], f"{entries[-1][1]} {line.strip()}")
        else:
            return {}
    if len(entries) < 5 or any(len(title) > 80 for _, title in entries):
        return {}
    indents = sorted({indent for indent, _ in entries})
    nested: dict[str, int] = {}
    for indent, title in entries:
        nested.setdefault(norm(title), indents.index(indent) + 1)
    return nested
