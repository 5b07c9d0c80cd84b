"""Plain text as runs of non-blank lines: page furniture and separator lines left out, the
indentation of the body measured, and what kind of block each run is (prose or code)."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from dataclasses import dataclass

# A line drawn with one character repeated, or spaced: "-----", "=====", "* * *", "━━━━".
_SEPARATOR = re.compile(r"^\s*([-=_*~#+.•·─━═])(?:\s?\1){2,}\s*$")
# The line between two records of a fortune file ("%"; "%%" in some): it ends a paragraph.
_RECORD_END = frozenset(("%", "%%"))
# Shell prompts opening a command block: "$ make", "# apt-get install foo".
_PROMPT = re.compile(r"^\s*[$#] +(?:sudo +)?[a-z./~][\w./+-]*")
_BULLET = re.compile(r"^\s*(?:[-*+•◦□▪‣–—]|\d{1,3}[.)]|[a-z][.)])\s")
# Marks of code or a diagram: brackets, operators, pipes, snake_case, options, "+-+" rules.
_CODE_MARK = re.compile(r"[{}\[\];=<>|$\\]|\w_\w|(?:^|\s)--?\w|\+-")
_WORD = re.compile(r"^[\"'«“(]*[^\W\d_]+(?:[-'’][^\W\d_]+)*[.,;:!?»”\")]*$")


@dataclass
class Run:
    """Consecutive non-blank lines; `start` is the 0-based index of the first one."""

    start: int
    lines: list[str]
    hanging: bool = False  # a manual page's title, split from the text under it (split_titles)

    @property
    def end(self) -> int:
        return self.start + len(self.lines)

    @property
    def indent(self) -> int:
        return indent_of(self.lines[0])

    def text(self) -> str:
        """The lines with their common indentation removed."""
        return textwrap.dedent("\n".join(expand(line) for line in self.lines)).strip("\n")

    def without_rules(self) -> Run | None:
        """The run without the rules over and under it (kept for a title that was not one)."""
        first, last = 0, len(self.lines)
        while first < last and is_separator(self.lines[first]):
            first += 1
        while last > first and is_separator(self.lines[last - 1]):
            last -= 1
        return Run(self.start + first, self.lines[first:last]) if first < last else None

    def joined(self) -> str:
        """The lines as one line of words (a wrapped title)."""
        return " ".join(" ".join(line.split()) for line in self.lines)


def expand(line: str) -> str:
    """Tabs expanded and no-break spaces used as indentation made plain spaces."""
    line = line.expandtabs(8)
    stripped = line.lstrip()
    return " " * (len(line) - len(stripped)) + stripped


def indent_of(line: str) -> int:
    line = line.expandtabs(8)
    return len(line) - len(line.lstrip())


def split_lines(text: str) -> list[str]:
    """Lines of the text as they number in the file; form feeds removed, trailing space cut."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [line.replace("\f", "").rstrip() for line in text.split("\n")]


def drop_page_furniture(raw: str, lines: list[str]) -> int:
    """Blank the running footer and header around page breaks (form feeds) in place, as in
    RFCs and other paginated text exports; return how many lines were blanked.

    Only lines next to a page break whose shape (digits aside) recurs at most breaks go.
    """
    raw_lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    breaks = [i for i, line in enumerate(raw_lines) if "\f" in line]
    if len(breaks) < 2:
        return 0
    near: dict[str, list[int]] = {}
    for i in breaks:
        around = [_nearest(lines, i, -1), _nearest(lines, i, 1)]
        if lines[i].strip():  # "\fRFC 3533   OGG   May 2003": the header on the break line
            around[1] = i
        for j in around:
            if j is not None:
                near.setdefault(_shape(lines[j]), []).append(j)
    blanked = 0
    for found in near.values():
        if len(found) >= max(2, len(breaks) // 2):
            for j in found:
                lines[j] = ""
                blanked += 1
    return blanked


def _nearest(lines: list[str], i: int, step: int) -> int | None:
    j = i + step
    while 0 <= j < len(lines) and abs(j - i) <= 4:
        if lines[j].strip():
            return j
        j += step
    return None


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()))


def split_runs(lines: list[str]) -> list[Run]:
    """Runs of non-blank lines, separator lines left out (a separator also ends a run) unless
    they underline a lone line or line it over and under (a setext or reStructuredText title);
    in a fortune file (its "%" lines outnumber its blank ones), a "%" between records ends one."""
    runs: list[Run] = []
    current: list[str] = []
    start = 0
    records = sum(line in _RECORD_END for line in lines)
    fortunes = records >= 3 and records > sum(not line.strip() for line in lines)
    for i, line in enumerate([*lines, ""]):
        if fortunes and line in _RECORD_END:
            line = ""
        if current and is_separator(line) and _underlines(current, line):
            current.append(line)
        elif not current and is_separator(line) and _overlines(lines, i):
            start, current = i, [line]
        elif not line.strip() or is_separator(line):
            if current:
                runs.append(Run(start, current))
            current = []
        else:
            if not current:
                start = i
            current.append(line)
    return runs


# A manual page's layout: a title at the margin, its text indented right under it, no blank
# line between ("NAME" / "       ls - list directory contents"), in this many runs at least.
_HANGING_TITLES = 3
_HANGING_BODY = 3  # … over a text whose paragraphs are set in by this much at least
# words only, starting with a letter: not a list's item ("- **Day 29:**", "1. File")
_PLAIN_TITLE = re.compile(r"[^\W\d_][\w .,'’()/&-]*$")


def split_titles(runs: list[Run]) -> list[Run]:
    """Runs of a text laid out as a manual page with their titles as runs of their own (the
    headings then stand out to the left of an indented body, text_headings.py); a text with
    fewer than _HANGING_TITLES such runs is left as it is (a term and its definition), as is
    one whose paragraphs start at the margin (a definition list in flush text: Debian Policy's
    upgrading checklist, "virtual" / "   New \"adventure\" virtual package…", 60 times)."""
    hanging = {i for i, run in enumerate(runs) if _hanging_title(run)}
    if len(hanging) < _HANGING_TITLES:
        return runs
    others = [run for i, run in enumerate(runs) if i not in hanging and len(run.lines) >= 2]
    if others and body_indent(others) < _HANGING_BODY:
        return runs
    out: list[Run] = []
    for i, run in enumerate(runs):
        if i in hanging:
            out += [Run(run.start, run.lines[:1], hanging=True), Run(run.start + 1, run.lines[1:])]
        else:
            out.append(run)
    return out


def _hanging_title(run: Run) -> bool:
    title, rest = run.lines[0], run.lines[1:]
    return (
        bool(rest)
        and indent_of(title) == 0
        and len(title) <= 60
        and len(title.split()) <= 6
        and _PLAIN_TITLE.match(title) is not None
        and all(indent_of(line) >= 3 for line in rest)
    )


def is_separator(line: str) -> bool:
    return bool(_SEPARATOR.match(line))


def _underlines(above: list[str], line: str) -> bool:
    """A separator-shaped line right under a lone line (or an overlined one) is its underline."""
    if " " in line.strip():
        return False
    if len(above) == 2 and is_separator(above[0]):
        return above[0].strip() == line.strip()
    return len(above) == 1 and not is_separator(above[0])


def _overlines(lines: list[str], i: int) -> bool:
    """A rule over a lone line with the same rule under it: "=====\\n CARE\\n=====" ."""
    if i + 2 >= len(lines) or " " in lines[i].strip():
        return False
    title, under = lines[i + 1], lines[i + 2]
    return bool(title.strip()) and not is_separator(title) and under.strip() == lines[i].strip()


def body_indent(runs: list[Run]) -> int:
    """Where paragraphs of running text start (0 for flush text, 3 in RFCs, 2 when first
    lines are indented): the commonest first-line indentation of runs of several lines."""
    counts = Counter(indent_of(run.lines[0]) for run in runs if len(run.lines) >= 2)
    return min(counts, key=lambda indent: (-counts[indent], indent)) if counts else 0


def block_kind(run: Run, body: int) -> str:
    """ "code" for a command (a shell prompt) or for lines set in from the text that read as
    code or a diagram: not wrapped sentences, not a bulleted list, most lines with code marks."""
    lines = run.lines
    if _PROMPT.match(lines[0]):
        return "code"
    if len(lines) < 2 or _BULLET.match(lines[0]) or _is_prose(lines):
        return "paragraph"
    if min(indent_of(line) for line in lines) < body + 2:
        return "paragraph"
    marked = sum(1 for line in lines if _CODE_MARK.search(line))
    return "code" if marked * 2 >= len(lines) else "paragraph"


def _is_prose(lines: list[str]) -> bool:
    """Mostly words, several to a line: wrapped sentences rather than commands or listings."""
    tokens = [token for line in lines for token in line.split()]
    words = sum(1 for token in tokens if _WORD.match(token))
    return words >= 0.7 * len(tokens) and len(tokens) >= 4 * len(lines)
