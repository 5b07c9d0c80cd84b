"""A PDF's section tree: headings open sections, the lines between them become paragraphs,
code listings, tables and footnotes.

A paragraph is a PyMuPDF block, or more (pdf_paragraphs.py): a block boundary inside a
paragraph (a producer cuts one where the indentation changes) does not end it when the next
block goes on with the second half of a hyphenated word, or in lowercase after a line filled
to the margin; and a paragraph broken by a page break is joined across it (past the
footnotes of its first page).
Monospaced lines form a code block with their line breaks and indentation, apart from the
prose around them even within one block.
"""

from __future__ import annotations

import functools
import re
import statistics

from mirage_pipeline.parsing.model import RAISED, Block, Section
from mirage_pipeline.parsing.pdf_headings import CAPTION, Heading
from mirage_pipeline.parsing.pdf_lines import RAISED_OPENING, Line
from mirage_pipeline.parsing.pdf_margins import margin_notes
from mirage_pipeline.parsing.pdf_paragraphs import (
    ITEM_MARK,
    SENTENCE_END,
    first_letter,
    listing_lines,
    opening,
    same_paragraph,
)
from mirage_pipeline.parsing.pdf_tables import Table
from mirage_pipeline.parsing.pdf_text import Vocabulary, join_lines, join_text
from mirage_pipeline.parsing.text_repair import literal_break

_FULL_LINE_CHARS = 30  # a line shorter than this is not taken to fill the measure
_SMALLER_GOES_ON = 0.75  # a page opening in a size under this share of a paragraph's: not its rest
_MONO_ADVANCE = 0.55  # width of a monospaced character, in font sizes


def build_tree(
    lines: list[Line],
    headings: list[Heading],
    tables: list[Table],
    notes: dict[int, bool],
    vocabulary: Vocabulary,
    listings: frozenset[int] | set[int] = frozenset(),
) -> Section:
    """The document's sections with their blocks, in reading order. `notes`: ids of footnote
    lines → whether the line opens a footnote; `vocabulary`: the document's words (built once
    for its tables and its tree); `listings`: pages whose first listing goes on from the page
    before."""
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
    listing = listing_lines(lines)
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
    edges = _text_edges(lines, skip | aside, notes)
    builder = _Builder(vocabulary, margins, lefts, edges, listings)
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
        if note or (paragraph and not same_paragraph(paragraph, line, listing, margins)):
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


_BROKEN_TITLE = re.compile(r"(?<=[^\W\d_]-) (?=[^\W\d_])")
# a footnote's mark after a word of a title ("Пакет pst-eucl¹"), not a unit's power ("м²")
NOTE_MARKS = re.compile(f"(?<=[^\\W\\d_]{{3}})[{RAISED}]+(?=[\\s,.;:)]|$)")


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
        edges: tuple[float, float],
        listings: frozenset[int] | set[int] = frozenset(),
    ) -> None:
        self.vocabulary = vocabulary
        self.margins = margins
        self.lefts = lefts
        self.listings = listings  # pages whose first listing goes on from the page before
        self.notes: set[int] = set()  # ids of footnote and margin-note blocks
        self.ends: dict[int, Line] = {}  # paragraph or listing block id → its last line
        self.top, self.bottom = edges  # where a full page's text starts and ends

    def add(self, section: Section, lines: list[Line], note: bool = False) -> Block:
        """The block `lines` became, or the paragraph of the page before they went on with."""
        # a list's item is no listing, though its words be mostly code ("• пакета
        # build-essential,", the mark in the text's font: Word's and LibreOffice's lists)
        item = ITEM_MARK.match(lines[0].text)
        mono = not note and not item and all(line.mono for line in lines)
        text = _code_text(lines) if mono else join_lines(lines, self.vocabulary)
        if note and (mark := RAISED_OPENING.match(text)):
            text = f"{mark[1]} {text[mark.end() :]}"  # "¹⁰То есть" as "¹⁰ То есть"
        page, last = lines[0].page, lines[-1].page
        if mono:
            listing = self._continued_listing(section, page)
            # Sphinx's labels said the listing goes on here, or it filled the page before
            if listing is not None and (
                page in self.listings
                or (self._fills_page(self.ends.get(id(listing))) and self._tops(lines[0]))
            ):
                listing.text += "\n" + text
                listing.page_end = last
                self.ends[id(listing)] = lines[-1]
                return listing
        previous = None if mono or note else self._continued(section, page)
        end = self.ends[id(previous)] if previous is not None else None
        if end is not None and (
            # a word going on, not in a much smaller size (a slide's next page opening with a
            # command at 18 pt does not go on with a bullet's item at 32)
            (first_letter(text).islower() and lines[0].size >= _SMALLER_GOES_ON * end.size)
            or self._runs_on(end, lines[0])
        ):
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
        else:
            self.ends[id(block)] = lines[-1]
        return block

    def _fills_page(self, end: Line | None) -> bool:
        """A listing's last line `end` stands at the foot of a full page's text (within two
        lines and a half: a page may end short of it): the listing goes on overleaf, as TeX's
        and the browsers' listings break across pages without a mark."""
        return end is not None and end.y1 >= self.bottom - 2.5 * end.size

    def _tops(self, first: Line) -> bool:
        """`first` opens its page's text, within two lines and a half of where most pages'
        text starts (not a listing under a figure at the page's head)."""
        return first.y0 <= self.top + 2.5 * first.size

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
            bool(opening(first))
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
        but footnotes and margin notes and a float set at the head of `page` (a table or a
        captioned figure or listing: TeX puts it there and goes on with the paragraph under
        it), ending on the page before and not at a sentence end."""
        block = self._last(section, page)
        if (
            block is None
            or block.kind != "paragraph"
            or id(block) not in self.ends
            or block.last_page != page - 1
            or block.text.endswith(SENTENCE_END)
        ):
            return None
        if block is not self._last(section) and (
            CAPTION.match(block.text) or len(self.ends[id(block)].text) < _FULL_LINE_CHARS
        ):
            return None  # past a float, only a paragraph broken off at its page's full foot
        return block

    def _last(self, section: Section, floats_on: int | None = None) -> Block | None:
        """The section's last block but footnotes and margin notes, and but the floats at the
        head of page `floats_on`: when all that page holds so far are tables, captions and
        listings, a table or a caption among them."""
        blocks = (b for b in reversed(section.blocks) if id(b) not in self.notes)
        last = next(blocks, None)
        if floats_on is None or last is None or last.page != floats_on:
            return last
        before, captioned = last, False
        while before is not None and before.page == floats_on:
            caption = bool(CAPTION.match(before.text))
            if before.kind not in ("table", "code") and not caption:
                return last  # the page's own text came first: no float at its head
            captioned = captioned or caption or before.kind == "table"
            before = next(blocks, None)
        return before if captioned else last


def _text_edges(lines: list[Line], skip: set[int], notes: dict[int, bool]) -> tuple[float, float]:
    """Where the text of a full page starts and ends: the medians of the pages' highest and
    lowest text lines (not a heading's, a table's, a note's or a margin note's, whose indices
    are in `skip`), over pages of ten lines or more."""
    highest: dict[int, float] = {}
    lowest: dict[int, float] = {}
    count: dict[int, int] = {}
    for i, line in enumerate(lines):
        if i in skip or id(line) in notes:
            continue
        highest[line.page] = min(highest.get(line.page, line.y0), line.y0)
        lowest[line.page] = max(lowest.get(line.page, 0.0), line.y1)
        count[line.page] = count.get(line.page, 0) + 1
    full = [page for page, n in count.items() if n >= 10]
    if not full:
        return 0.0, float("inf")
    return statistics.median(highest[p] for p in full), statistics.median(lowest[p] for p in full)


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
