"""An EPUB's section tree from its spine documents and its table of contents.

TOC entries start sections where their targets are (a file, or an anchor inside one), h1–h6
refine them. A document no TOC entry points into is never filed under the last TOC entry when
it has headings of its own or stands apart (another folder, another language, outside the
linear reading order): it starts its own top-level sections from its headings, or from its
<title> when it has none. Only a heading-less document that reads on from the one before it
(same folder and language, a chapter split over two files) stays in the section it follows.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from mirage_pipeline.parsing.html_blocks import Event, XhtmlDocument
from mirage_pipeline.parsing.model import Section

_NOT_WORD = re.compile(r"[\W_]+")
# a chapter's number, with its word or alone: "Глава 1", "Chapter IV.", "III", "5" (numerals
# in one case: "Civil", "Mix" and "Did" are words)
_NUMBERING = re.compile(
    r"^\s*(?i:chapter|глава|розділ|part|часть|частина)?\s*(?:\d+|[IVXLCDM]+|[ivxlcdm]+)\b"
    r"[.:)]?\s*"
)


@dataclass
class SpineDocument:
    path: str  # in the archive, relative to the package document
    doc: XhtmlDocument
    lang: str | None = None
    linear: bool = True


def build_tree(documents: list[SpineDocument], toc: list[tuple[int, str, str]]) -> Section:
    """Spine documents in order; TOC entries start sections where their targets are."""
    where: dict[str, tuple[int, int]] = {}  # "path", "path#anchor" → (document, event index)
    for n, d in enumerate(documents):
        where.setdefault(d.path, (n, 0))
        position = 0
        content_end = _content_end(d.doc.events)
        for event in d.doc.events:
            if event.kind != "anchor":
                position += 1
            elif position >= content_end and n + 1 < len(documents):
                # nothing after it in its file: calibre split a file where a section began,
                # and each part repeats the section's <section id=…>; the entry points to the
                # empty copy closing the part before, its text begins the next file
                where.setdefault(f"{d.path}#{event.anchor}", (n + 1, 0))
            else:
                where.setdefault(f"{d.path}#{event.anchor}", (n, position))
    # Each TOC entry at the place its href points to; entries without one (group headings)
    # start where the next located entry starts.
    placed: dict[int, list[tuple[int, int, str]]] = {}  # document → [(event, level, title)]
    pending: list[tuple[int, str]] = []
    paths = [d.path for d in documents]
    for level, title, href in toc:
        found = _resolve(href, where, paths)
        if found is None:
            pending.append((level, title))
            continue
        n, index = found
        for lvl, ttl in pending:
            placed.setdefault(n, []).append((index, lvl, ttl))
        pending.clear()
        placed.setdefault(n, []).append((index, level, title))
    builder = _TreeBuilder()
    before: SpineDocument | None = None  # the last document with text
    for n, d in enumerate(documents):
        entries = sorted(placed.get(n, []), key=lambda p: p[0])  # stable: TOC order kept
        builder.document(d, before, entries)
        if d.doc.has_text:
            before = d
    return builder.finish()


def _content_end(events: list[Event]) -> int:
    """The position (anchors not counted) after a document's last heading or block."""
    position = end = 0
    for event in events:
        if event.kind != "anchor":
            position += 1
            if event.kind in ("heading", "block"):
                end = position
    return end


def _resolve(
    href: str, where: dict[str, tuple[int, int]], paths: list[str]
) -> tuple[int, int] | None:
    if not href:
        return None
    if href in where:
        return where[href]
    path, _, anchor = href.partition("#")
    for candidate in (path, posixpath.normpath(path)):
        # A broken relative href ("chapter.xhtml" for "text/chapter.xhtml"): the matching file
        # nearest the top of the package, the first in spine order among equals.
        matches = [p for p in paths if p == candidate or p.endswith("/" + candidate)]
        if matches:
            best = min(matches, key=lambda p: p.count("/"))
            return where.get(f"{best}#{anchor}", where.get(best))
    return None


def _norm(text: str) -> str:
    # numbering read in the title's own case: Roman numerals in one ("Civil" is no "CIV")
    return _NOT_WORD.sub("", _NUMBERING.sub("", text, count=1).casefold())


_SECTION_NUMBER = re.compile(r"^\s*(?:\d{1,3}|[A-Z])(?:\.\d{1,3})*\.?\s+(?=\S)")


def _same_title(a: str, b: str) -> bool:
    """Whether two titles name one section: their words but numbering, one in the other; or,
    a title that is only a number ("Глава 2" for the contents' "Глава 2. День"), the number."""
    a_words, b_words = _norm(a), _norm(b)
    if not a_words or not b_words:  # "* * *" and "—" are no one number
        return (number := _numbering(a)) is not None and number == _numbering(b)
    return a_words in b_words or b_words in a_words


def _numbering(title: str) -> str | None:
    found = _NUMBERING.match(title)
    return _NOT_WORD.sub("", found[0].casefold()) if found else None


class _TreeBuilder:
    def __init__(self) -> None:
        self.root = Section(title="", level=0)
        self.stack = [self.root]
        self.toc_level = 0  # level of the innermost TOC section (HTML headings nest under it)
        self.toc_title = ""  # a heading repeating it is the section's own title, not a child
        self.saved: tuple[list[Section], int, str] | None = None  # TOC place, while away
        self.front: Section | None = None
        self.from_headings: set[int] = set()  # ids of sections made from h1–h6
        self.chrome: set[int] = set()  # ids of sections where navigation was left out

    def document(
        self, d: SpineDocument, before: SpineDocument | None, entries: list[tuple[int, int, str]]
    ) -> None:
        events = [e for e in d.doc.events if e.kind != "anchor"]
        # a bare number over the real heading ("190" / "The Crossing") is no heading; one
        # over text is the chapter's only title (a novel's "Глава 1", "III")
        events = [
            e
            for e, after in zip(events, [*events[1:], None], strict=False)
            if not (e.kind == "heading" and not _norm(e.text) and after and after.kind == "heading")
        ]
        headings = [e.level for e in events if e.kind == "heading"]
        if entries and self.saved is not None:  # back in the TOC after documents outside it
            self.stack, self.toc_level, self.toc_title = self.saved
            self.saved = None
        elif entries and self.toc_level == 0:
            self.stack = [self.root]  # what precedes the first entry is front matter
        elif not entries and (headings or any(e.kind == "block" for e in events)):
            self._outside_toc(d, before, events, headings)
        by_index: dict[int, list[tuple[int, str]]] = {}
        for index, level, title in entries:
            by_index.setdefault(index, []).append((level, title))
        for i, event in enumerate(events):
            for level, title in by_index.get(i, []):
                self._toc_section(level, title)
            self._event(event)
        for i in sorted(i for i in by_index if i >= len(events)):  # an empty file, a last anchor
            for level, title in by_index[i]:
                self._toc_section(level, title)

    def _outside_toc(
        self,
        d: SpineDocument,
        before: SpineDocument | None,
        events: list[Event],
        headings: list[int],
    ) -> None:
        """Where a document no TOC entry points into goes: on in the current section, or its
        own top-level sections."""
        akin = (
            before is not None
            and d.linear
            and before.linear
            and posixpath.dirname(d.path) == posixpath.dirname(before.path)
            and d.lang == before.lang
        )
        in_toc = self.toc_level > 0
        if akin and (not headings or not in_toc):
            return  # reads on from the document before it
        if in_toc:
            self.saved = (self.stack, self.toc_level, self.toc_title)
        self.stack, self.toc_level, self.toc_title = [self.root], 0, ""
        first = next((e.kind for e in events if e.kind in ("heading", "block")), None)
        if first == "block" or not headings:
            title = d.doc.title or posixpath.splitext(posixpath.basename(d.path))[0]
            section = Section(title=title, level=min(headings, default=1))
            self.root.children.append(section)
            self.stack.append(section)
            self.toc_title = title

    def _toc_section(self, level: int, title: str) -> None:
        while self.stack[-1].level >= level:
            self.stack.pop()
        section = Section(title=title, level=level)
        self.stack[-1].children.append(section)
        self.stack.append(section)
        self.toc_level, self.toc_title = level, title

    def _event(self, event: Event) -> None:
        if event.kind == "chrome":
            self.chrome.add(id(self.stack[-1]))
        elif event.kind == "heading":
            self._heading(event)
        elif event.block is not None:
            target = self.stack[-1]
            if target is self.root:
                if self.front is None:
                    self.front = Section(title="Front matter", level=1)
                    self.root.children.insert(0, self.front)
                target = self.front
            target.blocks.append(event.block)

    def _heading(self, event: Event) -> None:
        if self.toc_title and _same_title(event.text, self.toc_title):
            # the heading of the TOC entry itself; its section number too, when the contents
            # leave it out (Sphinx: "<span class="section-number">2.2. </span>Archive areas")
            numbered = _SECTION_NUMBER.match(event.text)
            if numbered and event.text[numbered.end() :].strip() == self.toc_title.strip():
                self.stack[-1].title = " ".join(event.text.split())
            if _norm(event.text):  # not yet for its bare number: the title may follow
                self.toc_title = ""
            return
        level = self.toc_level + event.level
        while self.stack[-1].level >= level and self.stack[-1].level > self.toc_level:
            self.stack.pop()
        section = Section(title=event.text.replace("\n", " "), level=level)
        self.stack[-1].children.append(section)
        self.stack.append(section)
        self.from_headings.add(id(section))

    def finish(self) -> Section:
        """Headings whose whole content was navigation go; levels run 1, 2, 3… from the top."""

        def prune(section: Section) -> None:
            for child in section.children:
                prune(child)
            section.children = [
                c
                for c in section.children
                if c.blocks
                or c.children
                or id(c) not in self.from_headings
                or id(c) not in self.chrome
            ]

        def renumber(section: Section, level: int) -> None:
            for child in section.children:
                child.level = level
                renumber(child, level + 1)

        prune(self.root)
        renumber(self.root, 1)
        return self.root
