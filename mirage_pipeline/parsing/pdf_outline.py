"""Where a PDF's outline entries start: each placed at its heading's lines on its page, the
entries repeated out of page order left out; and the headings the outline does not hold: those
of the text before its first entry, and numbered ones below its depth; and a contents made of
its titles before it, which goes."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from mirage_pipeline.parsing.pdf_contents_pages import CONTENTS_TITLE
from mirage_pipeline.parsing.pdf_headings import CHAPTER_LABEL, Heading, detect_headings
from mirage_pipeline.parsing.pdf_lines import Line, PageLines

_NOT_WORD = re.compile(r"[\W_]+")
# A slide without a title in a presentation program's PDF: its bookmark is the slide's default
# name (LibreOffice Impress: "Slide 5", "Слайд 5", "Folie 5"), no section's title — the slide
# goes on from the one before.
SLIDE_NAME = re.compile(
    r"(?:slide|слайд|folie|diapositiva|diapositive|slajd|snímek)\s*\d+", re.IGNORECASE
)
_FRONT_TEXT = 3000  # characters before the outline's first entry: more than a title page
_LEADING_NUMBER = re.compile(r"^(?:\d+|[ivxlc]+|[a-z])(?:[.\d]*)")


def _norm(text: str) -> str:
    return _NOT_WORD.sub("", text.casefold())


def ordered_outline(toc: list[tuple[int, str, int]]) -> tuple[list[tuple[int, str, int]], int]:
    """The outline without the entries that repeat another out of page order, and how many
    were left out. xfig's manual (htmldoc) lists "Miscellaneous" p. 93, "Fig Format 3.2"
    p. 156, "Internationalization" p. 151, "LaTeX and Xfig" p. 124, then every chapter again in
    order: placed in the outline's order, every page from 97 to 155 fell under
    "Miscellaneous". Of the run of entries in page order holding the most different entries,
    an entry outside it is left out when the run holds its level, title and page, and so is a
    copy of an entry already kept across such a jump ("Miscellaneous" again); one that repeats
    nothing stays where it stands (lshortru's "Предметный указатель", the last entry, points to
    page 5 — placed after the one before it, it still heads the index at the book's end), and
    so do repeats in order (an "Exercises" under each chapter on one page)."""
    pages = [page for _, _, page in toc]
    if all(a <= b for a, b in itertools.pairwise(p for p in pages if p > 0)):
        return toc, 0
    run = _page_ordered_run(toc)
    in_run = {toc[i] for i in run}
    out: list[tuple[int, str, int]] = []
    kept_at: dict[tuple[int, str, int], int] = {}
    jumped = -1  # the last entry left out
    for i, entry in enumerate(toc):
        repeat = i not in run and entry in in_run
        if repeat or kept_at.get(entry, len(toc)) < jumped:
            jumped = i
            continue
        kept_at[entry] = i
        out.append(entry)
    return out, len(toc) - len(out)


def _page_ordered_run(toc: list[tuple[int, str, int]]) -> set[int]:
    """The indexes of a run of entries whose pages never go down holding the most different
    entries (then the most entries); an entry without a page (-1) is in it wherever it stands.
    Quadratic: only an outline out of order comes here."""
    best: list[tuple[int, int, int]] = []  # per entry: different entries, entries, the one before
    for i, (_, _, page) in enumerate(toc):
        choice = (1, 1, -1)
        for j in range(i) if page > 0 else ():
            if toc[j][2] <= 0 or toc[j][2] > page:
                continue
            distinct, length, _ = best[j]
            k, repeated = j, False  # a repeat shares its page with the run's last entries
            while k >= 0 and toc[k][2] == page and not repeated:
                repeated = toc[k] == toc[i]
                k = best[k][2]
            choice = max(choice, (distinct + (not repeated), length + 1, j))
        best.append(choice)
    ends = [i for i, (_, _, page) in enumerate(toc) if page > 0]
    run = set()
    i = max(ends, key=lambda e: best[e][:2]) if ends else -1
    while i >= 0:
        run.add(i)
        i = best[i][2]
    return run | {i for i, (_, _, page) in enumerate(toc) if page <= 0}


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
            first = _label_above(lines, first, max(start, search_from))
            title = _spaced(title, lines[found[0] : last + 1])
            heading = Heading(first, level, title, page, tuple(range(first, last + 1)))
            search_from = last + 1
        else:
            heading = Heading(start, level, title, page)
        floor = heading.start
        headings.append(heading)
    return headings


def _spaced(title: str, found: list[Line]) -> str:
    """The outline's title, or the heading's own lines when they read the same but for the
    spaces the outline lost where the heading wraps (a browser's outline: "Configuring
    thesynchronisation daemon forremote storage")."""
    text = " ".join(" ".join(line.text for line in found).split())
    plain = "".join(title.split())
    if "".join(text.split()) == plain and text.count(" ") > title.count(" "):
        return text
    return title


def _label_above(lines: list[Line], first: int, floor: int) -> int:
    """The first line of a chapter label set just above the title line `first` on its page
    (one line, or two: "CHAPTER" / "ONE"), apart from any text above it, else `first` — a
    paragraph's last line that happens to read "Part II." is no label."""
    title = lines[first]
    for above in (1, 2):
        k = first - above
        if k < floor or lines[k].page != title.page:
            break
        text = " ".join(" ".join(ln.text.strip() for ln in lines[k:first]).split())
        apart = (
            k == 0
            or lines[k - 1].page != title.page
            or (lines[k].y0 - lines[k - 1].y1 >= 0.8 * lines[k].size)
        )
        if lines[k].size >= 0.6 * title.size and apart and CHAPTER_LABEL.match(text):
            return k
    return first


def _find_title(title: str, lines: list[Line], start: int, page: int) -> tuple[int, int] | None:
    want = _norm(title)
    if not want:
        return None
    bare = _LEADING_NUMBER.sub("", want, count=1) if _LEADING_NUMBER.match(want) else want
    i = start
    while i < len(lines) and lines[i].page == page:
        if not _norm(lines[i].text):  # a title starts with a word, not with "?‘" before it
            i += 1
            continue
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


# A section's number opening a title: "5.8.5.1. Debian Security Tracker", "3.2 Options", or
# alone in a piece of its own ("5.14.2.1." | "Устаревание")
_SECTION_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?(?:\s|$)")
_TITLE_MAX = 160
_LINE_STEP = 1.6  # font sizes between the tops of two lines of one title


def numbered_below(
    headings: list[Heading], lines: list[Line], cells: frozenset[int] = frozenset()
) -> list[Heading]:
    """The outline's headings with the numbered headings below its depth added: bold lines
    whose number extends the number of the section they stand in ("5.8.5.1. Debian Security
    Tracker" in "5.8.5. Команда безопасности") are a section one level deeper. LaTeX's
    bookmarks stop at a depth (pandoc's `\\paragraph` headings are in no outline), and such a
    title, run into its paragraph, was read as its first words. `cells`: table cells."""
    if not headings:
        return headings
    taken = {i for h in headings for i in h.lines}
    numbers = {found[1] for h in headings if (found := _SECTION_NUMBER.match(h.title.strip()))}
    # … and the titles of its unnumbered entries: texinfo's outline holds "Extending TeX Live"
    # that the page numbers "6.6 Extending TEX Live"
    titles = {_norm(h.title) for h in headings if not _SECTION_NUMBER.match(h.title.strip())}
    titles.discard("")
    starts = sorted(headings, key=lambda h: h.start)
    added: list[Heading] = []
    stack: list[tuple[str, int]] = []  # (number, level) of the sections open at a line
    k = 0
    for i, line in enumerate(lines):
        while k < len(starts) and starts[k].start <= i:
            _open(stack, starts[k].title, starts[k].level)
            k += 1
        if i in taken or id(line) in cells or not line.bold or line.mono:
            continue
        found = _SECTION_NUMBER.match(line.text.strip())
        if not found or found[1] in numbers:  # an outline entry placed off its line
            continue
        parent = next((s for s in reversed(stack) if found[1].startswith(s[0] + ".")), None)
        if parent is None or found[1].count(".") != parent[0].count(".") + 1:
            continue
        own = _title_lines(lines, i)
        text = " ".join(lines[j].text.strip() for j in own)
        if (
            not own
            or text.endswith((".", ",", ";", ":"))
            or text == found[0]
            or _norm(text[found.end() :]) in titles
        ):
            continue
        heading = Heading(i, parent[1] + 1, text, line.page, own, line.size)
        added.append(heading)
        taken.update(own)
        numbers.add(found[1])
        _open(stack, text, heading.level)
    return sorted([*headings, *added], key=lambda h: h.start) if added else headings


def _title_lines(lines: list[Line], first: int) -> tuple[int, ...]:
    """The lines of a title opening at `first`: it and the bold lines after it in its block,
    on its row or the next ones (a title wrapped, or its words in pieces: "5.14.2.1." |
    "Устаревание", "5.10.3.3." | "wanna-build" in a monospaced font), up to a line opening
    with a number of its own; none when they run longer than a title (a bold numbered clause
    of a contract)."""
    own = [first]
    length = len(lines[first].text)
    for j in range(first + 1, len(lines)):
        line, above = lines[j], lines[own[-1]]
        if (
            not line.bold
            or line.block != above.block
            or not 0 <= line.y0 - above.y0 <= _LINE_STEP * above.size
            or _SECTION_NUMBER.match(line.text.strip())
        ):
            break
        length += len(line.text) + 1
        if length > _TITLE_MAX:
            return ()
        own.append(j)
    return tuple(own) if length <= _TITLE_MAX else ()


def _open(stack: list[tuple[str, int]], title: str, level: int) -> None:
    """A section of `level` opened: the deeper and equal ones close; its number, if any, on
    the stack."""
    while stack and stack[-1][1] >= level:
        stack.pop()
    found = _SECTION_NUMBER.match(title.strip())
    if found:
        stack.append((found[1], level))


def front_headings(
    lines: list[Line], outline: list[Heading], body: float, cells: frozenset[int]
) -> list[Heading]:
    """Headings from typography in the text before the outline's first entry: DocBook's
    outlines start at chapter 1, and the preface's own headings ("Disclaimer", "About this
    document") were all "Front matter". When that text is no more than a title page's, only
    the lines set as the outline's top-level headings are, at that level (a `\\section*`
    "Введение" the outline leaves out; a title page's author and date can share the size of
    a subsection, not of a section)."""
    first = min((h.start for h in outline), default=0)
    found = detect_headings(lines[:first], body, cells) if first else []
    if sum(len(line.text) for line in lines[:first]) >= _FRONT_TEXT:
        return found
    placed = [h for h in outline if h.lines]
    top = min((h.level for h in placed), default=0)
    styles = {_style(lines[h.lines[0]]) for h in placed if h.level == top}
    styles = {(size, bold) for size, bold in styles if bold or size > body + 0.5}
    return [replace(h, level=top) for h in found if _style(lines[h.lines[0]]) in styles]


def _style(line: Line) -> tuple[float, bool]:
    return round(line.size, 1), line.bold


_ENTRIES_MIN = 3  # outline titles standing as lines before the outline starts
_ENTRIES_SHARE = 0.6  # of a page's lines, for it to be a page of the contents


def drop_outline_entries(pages: list[PageLines], toc: list[tuple[int, str, int]]) -> int:
    """Remove, in place, a contents without page numbers before the outline's first page:
    pages whose lines are mostly the titles of the outline's entries (and a "Contents" title),
    when they hold at least three; return how many lines went. calibre prints an HTML book's
    contents as links, an entry or a few a page (a history's first six pages: 280 words of
    titles, indexed as text). A title page (the first entry's title on the first page) or a
    table of numbers, titles and pages is not."""
    first = min((page for _, _, page in toc if page > 0), default=0)
    titles = {_norm(title) for _, title, _ in toc}
    titles.discard("")
    found: dict[int, set[int]] = {}  # page number → ids of its lines that are titles
    for page in pages:
        if page.number >= first:
            break
        entries = {
            id(line)
            for line in page.lines
            if _norm(line.text) in titles
            and not (page.number == 1 and line.text.strip() == toc[0][1])  # the title page
        }
        rest = [
            line
            for line in page.lines
            if id(line) not in entries and not CONTENTS_TITLE.match(line.text.strip())
        ]
        if entries and len(entries) >= _ENTRIES_SHARE * (len(entries) + len(rest)):
            found[page.number] = entries
    if sum(map(len, found.values())) < _ENTRIES_MIN:
        return 0
    gone = 0
    for page in pages:
        if page.number >= first:
            break
        if page.number in found or page.number + 1 in found:  # its title on the page before
            entries = found.get(page.number, set())
            kept = [
                line
                for line in page.lines
                if id(line) not in entries and not CONTENTS_TITLE.match(line.text.strip())
            ]
            gone += len(page.lines) - len(kept)
            page.lines = kept
    return gone
