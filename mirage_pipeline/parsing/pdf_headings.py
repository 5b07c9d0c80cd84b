"""Where a PDF's sections start when it has no outline: headings detected from font statistics
(an outline's entries are placed by pdf_outline.py)."""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from dataclasses import dataclass, replace

from mirage_pipeline.parsing.pdf_lines import LIST_MARKS, Line

_NUMBERED = re.compile(
    r"^(?:(?:глава|часть|раздел|приложение|розділ|частина|додаток|chapter|part|section|appendix)"
    r"\s+[\w.]+"
    r"|\d+(?:\.\d+)*\.?\s+[^\s\d])",
    re.IGNORECASE,
)
_NUMBER_ONLY = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.?|[А-ЯA-Z]\.?)$")
# A chapter's label set above its title ("Глава 5" / "Декорации", "CHAPTER" / "ONE" / "Title"):
# part of the heading, not the last words of the chapter before.
_LABEL_WORD = (  # Russian, Ukrainian, English
    r"(?:глава|chapter|часть|частина|part|раздел|розділ|appendix|приложение|додаток|лекция"
    r"|лекція|lecture)"
)
_LABEL_START = re.compile(_LABEL_WORD + r"\b", re.IGNORECASE)
CHAPTER_LABEL = re.compile(
    r"^"
    + _LABEL_WORD
    + r"(?:\s+(?:\d{1,3}|[ivxl]{1,6}|[a-zа-яё]|one|two|three|four|five|six|seven|eight|nine"
    r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|twenty|первая|вторая|третья|четв[её]ртая|пятая|шестая|седьмая|восьмая|девятая"
    r"|десятая))?\.?$",
    re.IGNORECASE,
)
# A figure's or a table's caption ("Рис. 1: Поля документа", "Figure 3.2. Layout", "Таблица 4"):
# set apart and often bold, never a section's title.
CAPTION = re.compile(
    r"^(?:рис\.|рисунок|табл\.|таблица|fig\.|figure|table|listing|листинг)\s*"
    r"(?:[A-ZА-Я]\.)?\d+(?:[.\d]*)"
    r"(?:\s*[:.—–-]|\s|$)",
    re.IGNORECASE,
)
# the label of a note's box, bold in the body's size (MkDocs, Sphinx, DocBook, printed from a
# browser: "Note" took the text after the box as its section, 30–80 % of a manual's chunks)
_BOX_LABEL = re.compile(
    r"(?:note|notes|warning|tip|tips|hint|important|caution|danger|attention|info|see also"
    r"|примечание|примечания|предупреждение|подсказка|внимание|важно|совет|замечание"
    r"|заметка|осторожно|см\. также|примітка|увага|порада|попередження)[.:!]?",
    re.IGNORECASE,
)
# A list item's mark: "• ldconfig" set in bold is an item, not a heading (the list's marks, and
# "∙", "·" and "*" opening a line)
_BULLET = re.compile(f"^(?:[{LIST_MARKS}∙·*]|[-–—](?=\\s))")


# a heading found: its first and last line, its size, its text
Candidate = tuple[int, int, float, str]


@dataclass
class Heading:
    start: int  # index of the first line of the section's body (or of the heading line)
    level: int
    title: str
    page: int
    lines: tuple[int, ...] = ()  # indexes of the heading's own lines, left out of the body
    size: float = 0.0  # its font size, when detected from fonts


def detect_headings(
    lines: list[Line], body_size: float, cells: frozenset[int] = frozenset()
) -> list[Heading]:
    """Headings from typography: larger than the body, or bold and short, or numbered.

    A whole PyMuPDF block can be a heading by itself. A block also splits where the font size
    or weight changes (a producer may put a heading in one block with the paragraph before or
    after it); such a part, or a block the rules above turn down, is a heading when it is
    numbered and larger than the body or set in a style (size and weight) that whole-block
    headings use — a bold term opening a paragraph is not.
    `cells`: ids of lines that are table cells (a bold header row is not a heading)."""
    runs = _style_runs(lines)
    found: dict[int, Candidate] = {}  # first line → first, last, size, text
    styles: set[tuple[float, bool]] = set()
    code_size = _code_size(lines)
    for first, last, whole in runs:
        n = last - first + 1
        if not whole or n > 3 or _in_table(lines, first, last, cells):
            continue
        if _looks_like_heading(lines, first, n, body_size):
            found[first] = _candidate(lines, first, last)
            styles.add(_style(lines[first]))
        elif code_size and _code_heading(lines[first : last + 1], body_size, code_size):
            # ranked among the others as if set in the body's font
            first, last, size, text = _candidate(lines, first, last)
            found[first] = first, last, size * body_size / code_size, text
    for first, last, _ in runs:
        n = last - first + 1
        if first in found or n > 3 or _in_table(lines, first, last, cells):
            continue
        styled = _style(lines[first]) in styles or lines[first].size >= body_size + 1
        if styled and _numbered_heading(lines, first, n, body_size):
            found[first] = _candidate(lines, first, last)
    italic = _add_italic_subsections(lines, body_size, cells, found)
    candidates = _join_wrapped(_join_number_lines([found[i] for i in sorted(found)], lines), lines)
    if not candidates:
        return []
    sizes = sorted({_size_class(c[2]) for c in candidates if c[0] not in italic}, reverse=True)
    # Many heading sizes are rare: keep the four largest as levels, the rest as level 4.
    level_of = {s: min(n + 1, 4) for n, s in enumerate(sizes)}
    headings = [
        Heading(
            first,
            level_of.get(_size_class(size), 4),  # an italic subsection: _numbered_levels
            " ".join(text.split()),
            lines[first].page,
            tuple(range(first, last + 1)),
            size,
        )
        for first, last, size, text in candidates
    ]
    return _numbered_levels(headings, italic) if italic else headings


def _size_class(size: float) -> float:
    return round(size * 2) / 2


def _style(line: Line) -> tuple[float, bool]:
    return _size_class(line.size), line.bold


def _style_runs(lines: list[Line]) -> list[tuple[int, int, bool]]:
    """Blocks cut where the font size (by 1 pt or more) or weight changes: (first, last line,
    whether the run is its whole block)."""
    runs: list[tuple[int, int, bool]] = []
    i = 0
    while i < len(lines):
        end = i + _block_length(lines, i)
        first = i
        for k in range(i + 1, end + 1):
            if k == end or (
                abs(lines[k].size - lines[k - 1].size) >= 1 or lines[k].bold != lines[k - 1].bold
            ):
                runs.append((first, k - 1, first == i and k == end))
                first = k
        i = end
    return runs


def _in_table(lines: list[Line], first: int, last: int, cells: frozenset[int]) -> bool:
    return any(id(lines[j]) in cells for j in range(first, last + 1))


def _candidate(lines: list[Line], first: int, last: int) -> Candidate:
    group = lines[first : last + 1]
    return first, last, max(ln.size for ln in group), " ".join(ln.text for ln in group)


def _block_length(lines: list[Line], i: int) -> int:
    n = 1
    while i + n < len(lines) and lines[i + n].block == lines[i].block:
        n += 1
    return n


def _looks_like_heading(lines: list[Line], i: int, n: int, body: float) -> bool:
    group = lines[i : i + n]
    text = " ".join(line.text for line in group).strip()
    if _BULLET.match(text) or CAPTION.match(text):
        return False
    if _NUMBER_ONLY.match(text):
        return group[0].size >= body + 1 or group[0].bold
    if len(text) > 120 or not any(ch.isalpha() for ch in text):
        return False
    if _code_words(group) or text.endswith((".", ",", ";", ":")):
        return False
    if not _NUMBERED.match(text) and any(ln.mono and ": " in ln.text for ln in group):
        return False  # a label and its code: "E-mail: kaspar@…", "Опция: Aptitude::…"
    if _cells_of_a_row(group) and not _NUMBERED.match(text):
        return False
    larger = all(line.size >= body + 1.0 for line in group)
    bold = all(line.bold for line in group) and all(line.size >= body - 0.5 for line in group)
    if larger:
        return True
    if _BOX_LABEL.fullmatch(text):
        return (
            False  # a note's box, in the body's size: its text and what follows are the section's
        )
    if bold and len(text) <= 80 and n <= 2:
        return True
    return bool(_NUMBERED.match(text)) and bold


def _code_words(group: list[Line]) -> bool:
    """Whether lines are code, not a title: all monospaced, or mostly and opening so. A title
    may hold code that outweighs its words ("5.1. Файл `README.Debian`") or wrap before it
    ("…загрузка в стабильный и предыдущий" / "`стабильный` выпуски")."""
    return any(ln.code for ln in group) or (group[0].mono and group[0].mono_ends[0])


def _code_size(lines: list[Line]) -> float | None:
    """The size most characters of code listings' lines are set in."""
    sizes: Counter[float] = Counter()
    for line in lines:
        if line.code:
            sizes[_size_class(line.size)] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else None


def _code_heading(group: list[Line], body: float, code_size: float) -> bool:
    """A title set in a bold monospaced font larger than the listings' (an API reference's
    "fs.chmod(path, mode, callback)" or "Class: FileHandle" printed by a browser: 9.6 pt over
    9 pt listings and 10.3 pt prose): a heading, not code. A bold line of a listing is in the
    listing's size."""
    text = " ".join(line.text for line in group).strip()
    if len(group) > 2 or len(text) > 100 or text.endswith((";", "{", ",", "\\")):
        return False
    if not all(line.mono and line.bold for line in group) or not any(c.isalpha() for c in text):
        return False
    return all(line.size >= min(code_size + 0.5, body + 1) for line in group)


def _cells_of_a_row(group: list[Line]) -> bool:
    """Words side by side on one baseline, far apart: a table's header row ("Directory" …
    "Description") that the table finder missed, not a title."""
    return any(
        abs(b.y0 - a.y0) <= 2 and b.x0 - a.x1 >= 5 * max(a.size, b.size)
        for a, b in itertools.combinations(sorted(group, key=lambda ln: ln.x0), 2)
    )


def _numbered_heading(lines: list[Line], i: int, n: int, body: float) -> bool:
    """A numbered title ("3.5. /boot : …", or "5.9" over "Обычная страница"); one larger than
    the body may end in a full stop ("5.12.3 Графа 9.")."""
    group = lines[i : i + n]
    text = " ".join(line.text for line in group).strip()
    if len(text) > 120 or not any(ch.isalpha() for ch in text) or _code_words(group):
        return False
    if not (_NUMBERED.match(text) or _NUMBER_ONLY.match(group[0].text.strip())):
        return False
    larger = all(line.size >= body + 1.0 for line in group)
    return not text.endswith((",", ";", ":")) and (larger or not text.endswith("."))


_SECTION_NUMBER = re.compile(r"(\d+(?:\.\d+)*)\.?\s+[^\s\d]")
# a heading's number, also alone on its line ("5.8" above "Security bugs")
_NUMBER_AT = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")


def _add_italic_subsections(
    lines: list[Line], body: float, cells: frozenset[int], found: dict[int, Candidate]
) -> set[int]:
    """A heading level set in italics in the body's size (a word processor's "Heading 4":
    "5.8.5.1. Debian Security Tracker" under "5.8.5. Обработка ошибок безопасности"): one or
    two italic lines opening or closing their block (a producer may put it in one block with
    the paragraph before or after it) whose number goes on from the numbered heading found
    before them: its first child, or the next of one of its parents' children ("5.8.5.2"
    after "5.8.5.1", "5.9.1"; not "5.1" after "5.8"). Added to `found`; their first lines
    returned."""
    numbered = sorted(
        (first, m.group(1)) for first, c in found.items() if (m := _NUMBER_AT.match(c[3]))
    )
    starts = [first for first, _ in numbered]
    added: set[int] = set()
    i = 0
    while i < len(lines):
        if not lines[i].italic:
            i += 1
            continue
        first, last = i, i
        while last + 1 < len(lines) and lines[last + 1].italic and _same_block(lines, last):
            last += 1
        i = last + 1
        edge = not _same_block(lines, first - 1) or not _same_block(lines, last)
        group = lines[first : last + 1]
        if first in found or not edge or len(group) > 2 or _in_table(lines, first, last, cells):
            continue
        if not all(abs(ln.size - body) <= 0.5 and not ln.code for ln in group):
            continue
        text = " ".join(ln.text for ln in group).strip()
        number = _SECTION_NUMBER.match(text)
        if (
            not number
            or "." not in number.group(1)
            or len(text) > 120
            or text.endswith((".", ",", ";", ":"))
        ):
            continue
        at = bisect.bisect(starts, first)
        if at and _goes_on_from(numbered[at - 1][1], number.group(1)):
            found[first] = _candidate(lines, first, last)
            numbered.insert(at, (first, number.group(1)))
            starts.insert(at, first)
            added.add(first)
    return added


def _goes_on_from(before: str, number: str) -> bool:
    """Whether section `number` may follow section `before`: as its first child, or after it
    at its own depth or from deeper down ("5.8.5.2" after "5.8.5.1" or "5.8.5.1.3")."""
    parent = number.rsplit(".", 1)[0]
    if before == parent:
        return True
    if not before.startswith(parent + "."):
        return False
    mine = [int(n) for n in number.split(".")]
    return mine > [int(n) for n in before.split(".")][: len(mine)]


def _numbered_levels(headings: list[Heading], italic: set[int]) -> list[Heading]:
    """The italic subsections' levels from their numbers, not their size (the body's, which
    a bold heading level may share): one below the numbered heading before for a child, its
    own for a sibling."""
    out: list[Heading] = []
    last: tuple[int, int] | None = None  # the numbered heading before: level, depth
    for heading in headings:
        number = _NUMBER_AT.match(heading.title)
        if heading.start in italic and number and last is not None:
            depth = number.group(1).count(".") + 1
            heading = replace(heading, level=max(1, last[0] + depth - last[1]))
        if number:
            last = heading.level, number.group(1).count(".") + 1
        out.append(heading)
    return out


def _same_block(lines: list[Line], i: int) -> bool:
    """Whether line `i` and the next are lines of one block."""
    return 0 <= i < len(lines) - 1 and lines[i].block == lines[i + 1].block


def _join_number_lines(candidates: list[Candidate], lines: list[Line]) -> list[Candidate]:
    """ "1" then "Параметры класса" as two headings → one heading "1 Параметры класса"; so
    "Глава 1" then "Общие сведения"."""
    joined: list[Candidate] = []
    for cand in candidates:
        label = joined and (
            _NUMBER_ONLY.match(joined[-1][3].strip())
            # "Part I" above "Chapter 1": two headings, not one
            or (
                CHAPTER_LABEL.match(" ".join(joined[-1][3].split()))
                and not _LABEL_START.match(cand[3].strip())
            )
        )
        if (
            label
            and cand[0] == joined[-1][1] + 1
            and lines[cand[0]].page == lines[joined[-1][0]].page
        ):
            prev = joined.pop()
            joined.append((prev[0], cand[1], max(prev[2], cand[2]), f"{prev[3]} {cand[3]}"))
        else:
            joined.append(cand)
    # A bare number that found no title is not a heading.
    return [c for c in joined if not _NUMBER_ONLY.match(c[3].strip())]


def _join_wrapped(candidates: list[Candidate], lines: list[Line]) -> list[Candidate]:
    """A heading set on two lines that are blocks of their own ("НА ТЕМУ: «Исследование … в
    многопоточных" / "приложениях Linux»") is one heading: the next line, in the same style,
    right below, going on (`_goes_on`)."""
    joined: list[Candidate] = []
    for cand in candidates:
        if joined:
            prev = joined[-1]
            above, below = lines[prev[1]], lines[cand[0]]
            if (
                cand[0] == prev[1] + 1
                and below.page == above.page
                and _style(below) == _style(above)
                and 0 <= below.y0 - above.y1 <= 0.8 * above.size
                and _goes_on(prev[3], cand[3])
            ):
                joined[-1] = (prev[0], cand[1], max(prev[2], cand[2]), f"{prev[3]} {cand[3]}")
                continue
        joined.append(cand)
    return joined


# words no title ends with: a wrapped heading's first line ("Атрибуты в" / "Windows")
_GOES_ON_WORDS = frozenset(
    "в во с со и к ко на по о об от до из за для при без над под или а но "  # noqa: SIM905
    "of the a an and or for to in on at by with from into via".split()
)
_OPENING = "\"'«“„(["


def _goes_on(above: str, below: str) -> bool:
    """Whether `below` continues the heading `above`: it starts lowercase or with an opening
    quote or bracket ("3. Вкладка" / "\"Расширенный\""), or `above` ends with a word no title
    ends with; never a numbered heading of its own."""
    above, below = above.strip(), below.strip()
    if not below or _NUMBERED.match(below):
        return False
    if below[0].islower() or below[0] in _OPENING:
        return True
    return above.rsplit(None, 1)[-1] in _GOES_ON_WORDS if above else False
