"""A PDF's section tree: headings open sections, the lines between them become paragraphs,
code listings, tables and footnotes.

A paragraph is a PyMuPDF block, or more: a block boundary inside a paragraph (a producer cuts
one where the indentation changes) does not end it when the next block goes on with the
second half of a hyphenated word, or in lowercase after a line filled to the margin; and a
paragraph broken by a page break is joined across it (past the footnotes of its first page).
Monospaced lines form a code block with their line breaks and indentation, apart from the
prose around them even within one block.
"""

from __future__ import annotations

import functools
import itertools
import re
import statistics

from mirage_pipeline.parsing.model import Block, Section
from mirage_pipeline.parsing.pdf_headings import CAPTION, Heading
from mirage_pipeline.parsing.pdf_lines import LIST_MARKS, Line, rows_of
from mirage_pipeline.parsing.pdf_margins import margin_notes
from mirage_pipeline.parsing.pdf_tables import Table
from mirage_pipeline.parsing.pdf_text import Vocabulary, join_lines, join_text
from mirage_pipeline.parsing.text_repair import literal_break

_SENTENCE_END = (".", "!", "?", "…", ":", ";", '"', "»", ")")
# before a capital: a closing quote or bracket ends what it closes ("… upgraded.⟩" | "New in")
_CLAUSE_END = (*_SENTENCE_END, "”", "’", "⟩", "]")
_HYPHENATED = re.compile(r"\w[-\u00ad]$")
_LINE_STEP_MAX = 2.0  # font sizes between the tops of two lines of one paragraph
_RAGGED_STEP = 1.75  # … when the line before ends short of the margin (no paragraph's spacing)
_CODE_STEP_MAX = 2.5  # … of one code listing (a blank line in it)
_COLUMN_SLACK = 5.0  # font sizes an indented line may stand off the line above it
_FULL_LINE_CHARS = 30  # a line shorter than this is not taken to fill the measure
_MONO_ADVANCE = 0.55  # width of a monospaced character, in font sizes
# a list item's mark: the item starts a paragraph even inside the block of the one before
# (a tight LaTeX itemize: texlive-ru's "• Английский: … • Итальянский: …" was one paragraph);
# not "·" or "∙", which also stand between a contents entry and its page, or in "· · ·"
_ITEM_MARK = re.compile(f"[{LIST_MARKS}]\\s")
# a line goes on with a word behind an opening bracket or quote too ("скрипт" | "(текстовый
# файл) main3.lua", "модуль" | "“sprite”, который"), not with an item's mark: "(a)", "(2)"
_OPENING_MARKS = re.compile(r"[(«»“„‚\"‘]*")
_ENUMERATION = re.compile(r"\((?:\d+|[^\W\d_]|[ivxIVX]{1,4})\)")
# behind the bracket a word, not a formula's variable: "(в данном примере", "(i.e. the", "(с.
# 12)", not "(x + a)²"
_WORD_AFTER = re.compile(r"[^\W\d_]{2}|[^\W\d_] [^\W\d_]|[^\W\d_]\.")


def build_tree(
    lines: list[Line],
    headings: list[Heading],
    tables: list[Table],
    notes: dict[int, bool],
    listings: frozenset[int] | set[int] = frozenset(),
) -> Section:
    """The document's sections with their blocks, in reading order. `notes`: ids of footnote
    lines → whether the line opens a footnote; `listings`: pages whose first listing goes on
    from the page before."""
    root = Section(title="", level=0, page=1)
    stack = [root]
    starts: dict[int, list[Heading]] = {}
    for heading in headings:
        starts.setdefault(heading.start, []).append(heading)
    skip = {i for h in headings for i in h.lines}
    where = {id(line): i for i, line in enumerate(lines)}
    table_at: dict[int, Table] = {}
    for table in tables:
        at = [where[id(line)] for line in table.lines]
        table_at[min(at)] = table
        skip.update(at)
    listing = _listing_lines(lines)
    notes_beside = margin_notes(lines, skip, listing | notes.keys())
    aside = {i for found in notes_beside.values() for i in found}
    skip.update(aside)
    margins: dict[tuple[int, float], float] = {}  # (page, font size) → right edge of its text
    lefts: dict[tuple[int, float], float] = {}  # … → left edge
    for i, line in enumerate(lines):
        if i in aside:
            continue
        key = (line.page, round(line.size))
        margins[key] = max(margins.get(key, 0.0), line.x1)
        lefts[key] = min(lefts.get(key, line.x0), line.x0)
    builder = _Builder(Vocabulary(line.text for line in lines), margins, lefts, listings)
    front: Section | None = None
    paragraph: list[Line] = []
    note: list[Line] = []
    beside: list[list[Line]] = []  # margin notes of the lines in `paragraph`

    def target(page: int) -> Section:
        """The open section; text before the first heading goes to a "Front matter" one."""
        nonlocal front
        if stack[-1] is not root:
            return stack[-1]
        if front is None:
            front = Section(title="Front matter", level=1, page=page)
            root.children.insert(0, front)
        return front

    def flush() -> None:
        for group in (paragraph, note):
            if group:
                section = target(group[0].page)
                block = builder.add(section, group, note=group is note)
                group.clear()
                if beside:  # before the paragraph they stand beside, as blocks of their own
                    at = next(i for i, b in enumerate(section.blocks) if b is block)
                    section.blocks[at:at] = [builder.margin_note(aside) for aside in beside]
                    beside.clear()

    for i, line in enumerate([*lines, None]):
        if i in starts:
            flush()
            for heading in starts[i]:
                while stack[-1].level >= heading.level:
                    stack.pop()
                title = _unbroken(heading.title, builder.vocabulary)
                section = Section(title=title, level=heading.level, page=heading.page)
                stack[-1].children.append(section)
                stack.append(section)
        if i in table_at:
            flush()
            table = table_at[i]
            target(table.page).blocks.append(Block(table.kind, table.text, page=table.page))
        if line is None:
            break
        if i in skip:
            continue
        opens_note = notes.get(id(line))
        if opens_note is not None:
            if opens_note or not note:
                flush()  # the paragraph above, or the footnote before this one
            note.append(line)
            continue
        if note or (paragraph and not _same_paragraph(paragraph, line, listing, margins)):
            flush()
        paragraph.append(line)
        if i in notes_beside:
            beside.append([lines[j] for j in notes_beside[i]])
    flush()
    if front is not None and root.children == [front] and not front.children:
        root.blocks, root.children = front.blocks, []  # no heading at all: no "Front matter"
    for _, section in root.walk():
        section.blocks = _continued_code(section.blocks)
    return root


# DocBook's (dblatex's) mark of a code line broken to fit: "←" and a hooked arrow its font
# does not map ("… /etc/apt/sources.list.d/ ←↩" / "    bookworm-backports.sources.list")
_CONTINUED = re.compile(r"[ \t]*(?:←[ \t]*[\ufffd↩]|↩)[ \t]*\n[ \t]*")
_CONTINUED_END = re.compile(r"[ \t]*(?:←[ \t]*[\ufffd↩]|↩)[ \t]*$")
# In a listing read as prose, only "←" beside the unmapped glyph counts ("↩" alone in prose is
# the Return key), at its end or anywhere inside (its lines joined by spaces or not).
_MARK_END = re.compile(r"[ \t]*←[ \t]*\ufffd[ \t]*$")
_MARK_INSIDE = re.compile(r"[ \t]*←[ \t]*\ufffd\s*(?=\S)")
_ENDS = {"code": _CONTINUED_END, "paragraph": _MARK_END}  # a block going on in the next


def _continued_code(blocks: list[Block]) -> list[Block]:
    """Code lines broken with a continuation mark joined again, also across the block the
    broken line's indentation started (a command cut in two can be neither run nor found).
    A listing's lines are not always read as code (the installation guide's example files,
    whose comments are set in another font): a code block or a paragraph ending with the mark
    goes on in the next one of either kind, and the mark inside a paragraph goes too. Tables
    are left alone (a table of arrows: "← | \\gets", "↩")."""
    out: list[Block] = []
    for block in blocks:
        if block.kind not in ("code", "paragraph"):
            out.append(block)
            continue
        head = out[-1] if out else None
        end = _ENDS.get(head.kind) if head is not None else None
        if end is not None and end.search(head.text):
            text = end.sub("", head.text)
            head.text = text + _glue(text, block.text.lstrip()) + block.text.lstrip()
            head.page_end = block.last_page if block.last_page != head.page else head.page_end
            block = head
            out.pop()
        if block.kind == "code":
            block.text = _marks_glued(block.text, _CONTINUED)
        if "←" in block.text:
            block.text = _marks_glued(block.text, _MARK_INSIDE)
        out.append(block)
    return out


def _marks_glued(text: str, mark: re.Pattern[str]) -> str:
    """`text` with each of its continuation marks glued (_glue), left to right: each glue sees
    the text before it already glued."""
    done, last = "", 0
    for found in mark.finditer(text):
        done += text[last : found.start()]
        done += _glue(done, text[found.end() :])
        last = found.end()
    return done + text[last:]


def _glue(before: str, after: str) -> str:
    """What joins a broken code line to its rest: nothing inside a path, an address or an
    option ("sources.list.d/" + "bookworm…", "44:55:" + "ff"), what the dictionary says
    between two Python bytes literals (text_repair.literal_break: "на" + "стройки" in
    "b’’аb’’" + "b’’сb’’", but "выполнять" + "оставшуюся"), else a space (the mark's layout
    hides whether the break was at one: "non-free-firmware" + "contrib")."""
    if before.endswith("b’’"):
        return literal_break(before, after)
    return "" if before.rstrip()[-1:] in "/:=,-." else " "


def _same_paragraph(
    paragraph: list[Line], line: Line, listing: set[int], margins: dict[tuple[int, float], float]
) -> bool:
    """Whether `line` goes on with the paragraph (or code listing) `paragraph` holds. Across a
    block boundary a paragraph goes on in the same column and font with a word — lowercase
    after a hyphenated one, or any after a line filled to the right margin without a sentence
    end (a Russian sentence goes on with "INSTEAD", "Windows", "LATEX" as often as an English
    one with a name) — the page's margin, or the paragraph's own right edge when it is set
    narrower (a boxed or indented note, each line its own block): the line before or after
    ends where it does. The word may stand behind an opening bracket or quote ("(текстовый
    файл)", "«Особняк»"). Not with a bullet, a digit or an item's "(a)": a list or a listing;
    a bullet's item starts a paragraph of its own even in the block of the lines above."""
    last = paragraph[-1]
    code = id(line) in listing
    if code != (id(last) in listing):
        # A listing set in the block of the prose around it starts or ends here, unless the
        # line stands beside the other (a table cell) or flush with it (a path on a line).
        return line.block == last.block and (
            line.y0 - last.y0 < 0.5 * last.size or abs(line.x0 - last.x0) < last.size
        )
    if not code and _ITEM_MARK.match(line.text):
        return False
    if (
        not code
        and _ITEM_MARK.match(paragraph[0].text)
        and line.x0 < paragraph[0].x0 - 2
        and last.text.rstrip().endswith(_SENTENCE_END)
        and not _first_letter(line.text).islower()
    ):
        # left of the item's mark after its sentence ended: the text after the list, in its
        # block or not (an item wrapping to the margin goes on: "…from the official" /
        # "Debian archive")
        return False
    if line.block == last.block:
        return True
    if line.page != last.page:
        return False
    step = line.y0 - last.y0
    if code:
        return 0 < step <= _CODE_STEP_MAX * last.size
    hyphenated = line.text[:1].islower() and bool(_HYPHENATED.search(last.text))
    # a line may come in pieces ("строками," … "функциями-", "(смотрите" + a path in a
    # monospaced font, each its own block): a broken word, or prose after a word set in a
    # monospaced font, goes on at the row's start
    row = [ln for ln in paragraph[-8:] if ln.page == last.page and abs(ln.y0 - last.y0) < 1]
    row = sorted(row, key=lambda ln: ln.x0) or [last]
    # … and such a word, a size smaller, may wrap onto a line of its own: "…Смотрите info
    # autoconf и info" / "automake." (LibreOffice) was a code block; not prose after a
    # listing's line (numbered: "500 % \\Declare…")
    mixed = (
        (line.mono or any(ln.mono for ln in row))
        and any(not ln.mono and _LETTERS.search(ln.text) for ln in row)
        # flush with the row (not the next item of a list) or a word broken across them
        and (hyphenated or abs(line.x0 - row[0].x0) <= 1)
    )
    start = row[0].x0 if hyphenated or mixed else last.x0
    first = _opening(line)
    if not (
        first
        and abs(line.size - last.size) <= (0.15 * max(line.size, last.size) if mixed else 0.5)
        and 0 < step <= _LINE_STEP_MAX * last.size
        and abs(line.x0 - start) <= _COLUMN_SLACK * last.size
    ):
        return False
    if hyphenated:
        return True
    margin = margins[(last.page, round(last.size))]
    if (
        first.islower()
        and not mixed
        and step <= _RAGGED_STEP * last.size
        and abs(line.x0 - last.x0) <= 1
        and last.x1 - last.x0 >= 0.6 * (margin - last.x0)
        and not last.text.endswith(_SENTENCE_END)
    ):
        # ragged right (a browser's print, each line its own block): a sentence going on in
        # lowercase at the next line's usual distance, flush left, after a line that is most
        # of the measure (not a short item of a list) — not only after a full line
        return True
    full = last.x1 >= margin - last.size or (
        last.x1 - last.x0 >= 0.5 * (margin - last.x0)
        and any(
            abs(other.x1 - last.x1) <= 0.5 * last.size
            for other in (*paragraph[-2:-1], line)
            if other.page == last.page
        )
    )
    ends = _SENTENCE_END if first.islower() and not mixed else _CLAUSE_END
    return full and not last.text.endswith(ends)


def _opening(line: Line) -> str:
    """The letter `line` opens with (`_first_letter`), or "A" for a name set in a monospaced
    font opening a line of prose ("*.html. Вы должны…": a sentence goes on with one)."""
    first = _first_letter(line.text)
    if not first and line.mono_ends[0] and not line.mono and not _ENUMERATION.match(line.text):
        return "A"
    return first


def _first_letter(text: str) -> str:
    """The letter a line's first word starts with, behind an opening bracket or quote; "" when
    the line opens with something else (a digit, a mark, an item's "(a)")."""
    if _ENUMERATION.match(text):
        return ""
    opening = _OPENING_MARKS.match(text).end()
    if opening and not _WORD_AFTER.match(text, opening):
        return ""
    found = text[opening : opening + 1]
    return found if found.isalpha() else ""


def _listing_lines(lines: list[Line]) -> set[int]:
    """Ids of the lines of code listings: monospaced throughout, and so is the rest of their
    row (a command name set alone on a line of prose is not a listing)."""
    found: set[int] = set()
    for _, group in itertools.groupby(lines, key=lambda line: line.page):
        page = list(group)
        if any(line.code for line in page):
            for row in rows_of(page):
                if all(line.code for line in row):
                    found.update(id(line) for line in row)
    return found


_LETTERS = re.compile(r"[^\W\d_]")
_BROKEN_TITLE = re.compile(r"(?<=[^\W\d_]-) (?=[^\W\d_])")
# a footnote's mark after a word of a title ("Пакет pst-eucl¹"), not a unit's power ("м²")
NOTE_MARKS = re.compile(r"(?<=[^\W\d_]{3})[⁰¹²³⁴⁵⁶⁷⁸⁹]+(?=[\s,.;:)]|$)")


def _unbroken(title: str, vocabulary: Vocabulary) -> str:
    """A heading's lines joined as a paragraph's are: "… неговите висо- чини" (its lines
    joined by a space) is "… неговите височини"; footnote marks left out."""
    parts = _BROKEN_TITLE.split(NOTE_MARKS.sub("", title))
    return functools.reduce(lambda text, part: join_text(text, part, vocabulary), parts)


class _Builder:
    """Adds paragraphs, code and footnotes to sections, joining a paragraph across a page
    break with the half before it: the text goes on in lowercase, or the half before filled
    its last line to the margin without a sentence end and the text goes on flush with the
    page's left edge in the same font ("… including LuaLaTeX, and" / "XeLaTeX. Nevertheless")."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        margins: dict[tuple[int, float], float],
        lefts: dict[tuple[int, float], float],
        listings: frozenset[int] | set[int] = frozenset(),
    ) -> None:
        self.vocabulary = vocabulary
        self.margins = margins
        self.lefts = lefts
        self.listings = listings  # pages whose first listing goes on from the page before
        self.notes: set[int] = set()  # ids of footnote and margin-note blocks
        self.ends: dict[int, Line] = {}  # paragraph block id → its last line

    def add(self, section: Section, lines: list[Line], note: bool = False) -> Block:
        """The block `lines` became, or the paragraph of the page before they went on with."""
        mono = not note and all(line.mono for line in lines)
        text = _code_text(lines) if mono else join_lines(lines, self.vocabulary)
        page, last = lines[0].page, lines[-1].page
        if mono and page in self.listings:
            listing = self._continued_listing(section, page)
            if listing is not None:  # Sphinx's labels said the listing goes on here
                listing.text += "\n" + text
                listing.page_end = last
                return listing
        previous = None if mono or note else self._continued(section, page)
        if previous is not None and (
            _first_letter(text).islower() or self._runs_on(self.ends[id(previous)], lines[0])
        ):
            end = self.ends[id(previous)]
            glue = end.mono_ends[1] and lines[0].mono_ends[0]
            previous.text = join_text(previous.text, text, self.vocabulary, glue)
            previous.page_end = last
            self.ends[id(previous)] = lines[-1]
            return previous
        block = Block(kind="code" if mono else "paragraph", text=text, page=page)
        if last != page:
            block.page_end = last
        section.blocks.append(block)
        if note:
            self.notes.add(id(block))
        elif not mono:
            self.ends[id(block)] = lines[-1]
        return block

    def margin_note(self, lines: list[Line]) -> Block:
        """A note in the margin (pdf_margins.py): names, one a line, or words. A paragraph
        going on across a page looks past it, as past a footnote."""
        if all(line.code for line in lines):
            block = Block("code", "\n".join(line.text for line in lines), page=lines[0].page)
        else:
            block = Block("paragraph", join_lines(lines, self.vocabulary), page=lines[0].page)
        self.notes.add(id(block))
        return block

    def _runs_on(self, end: Line, first: Line) -> bool:
        """`first`, opening a page, goes on with the line `end` closing the page before."""
        size = round(end.size)
        return (
            bool(_opening(first))
            and not CAPTION.match(first.text)
            and len(end.text) >= _FULL_LINE_CHARS
            and abs(first.size - end.size) <= 0.5
            and end.x0 <= self.lefts[(end.page, size)] + 0.5 * end.size
            and end.x1 >= self.margins[(end.page, size)] - end.size
            and first.x0 <= self.lefts[(first.page, round(first.size))] + 0.5 * first.size
        )

    def _continued_listing(self, section: Section, page: int) -> Block | None:
        """The listing a listing starting on `page` goes on with: the section's last block
        but footnotes and margin notes, a listing ending on the page before."""
        block = self._last(section)
        if block is not None and block.kind == "code" and block.last_page == page - 1:
            return block
        return None

    def _continued(self, section: Section, page: int) -> Block | None:
        """The paragraph a text starting on `page` may continue: the section's last block
        but footnotes and margin notes, ending on the page before and not at a sentence end."""
        block = self._last(section)
        if (
            block is not None
            and id(block) in self.ends
            and block.last_page == page - 1
            and not block.text.endswith(_SENTENCE_END)
        ):
            return block
        return None

    def _last(self, section: Section) -> Block | None:
        """The section's last block but footnotes and margin notes."""
        return next((b for b in reversed(section.blocks) if id(b) not in self.notes), None)


def _code_text(lines: list[Line]) -> str:
    """Lines of a listing with their breaks and their indentation (from where they start);
    pieces of one row (a comment set apart) stay on one line."""
    left = min(line.x0 for line in lines)
    advance = _MONO_ADVANCE * statistics.median(line.size for line in lines)
    rows: list[str] = []
    top = None
    for line in lines:
        column = round((line.x0 - left) / advance)
        if top is not None and abs(line.y0 - top) < 0.3 * line.size:
            rows[-1] += " " * max(1, column - len(rows[-1])) + line.text
        else:
            rows.append(" " * column + line.text)
            top = line.y0
    return "\n".join(rows)
