"""EPUB 2 and 3 (ebooklib): spine order, the table of contents (nav or NCX) as the tree, h1–h6
inside each XHTML file refining it, title/authors/language from the package metadata.

Real EPUBs often break the package rules (manifest entries missing from the archive, hrefs with
fragments, no NCX although the spine names one). ebooklib refuses those; we then read the
archive ourselves (`epub_archive`) and say so in the warnings, rather than lose the book.
"""

from __future__ import annotations

import io
import posixpath
import re
import warnings as py_warnings
import zipfile
from dataclasses import dataclass, field

from mirage_pipeline.parsing.epub_archive import read_archive
from mirage_pipeline.parsing.html_blocks import Event, xhtml_events
from mirage_pipeline.parsing.model import ParsedDocument, ParseError, Section

_NOT_WORD = re.compile(r"[\W_]+")
_NUMBERING = re.compile(r"^\s*(?:chapter|глава|part|часть)?\s*(?:\d+|[ivxlcdm]+)\b[.:)]?\s*", re.I)


@dataclass
class EpubBook:
    title: str = ""
    authors: list[str] = field(default_factory=list)
    language: str = ""
    spine: list[tuple[str, bytes]] = field(default_factory=list)  # (path in archive, XHTML)
    toc: list[tuple[int, str, str]] = field(default_factory=list)  # (level, title, href)


def parse_epub(data: bytes, name: str) -> ParsedDocument:
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ParseError("corrupt EPUB: the file is not a ZIP archive")
    warnings: list[str] = []
    try:
        book = _read_with_ebooklib(data)
    except Exception as exc:  # ebooklib raises KeyError, AttributeError… on real-world books
        warnings.append(
            f"the EPUB package is damaged ({type(exc).__name__}: {exc}); read leniently"
        )
        book = read_archive(data)
    if not book.spine:
        raise ParseError("corrupt EPUB: its spine lists no readable documents")
    root = _build_tree(book)
    if not any(s.blocks for _, s in root.walk()):
        raise ParseError("no text to index: the EPUB's documents hold no text")
    metadata: dict[str, object] = {}
    if book.authors:
        metadata["authors"] = book.authors
    if book.language:
        metadata["language"] = book.language
    return ParsedDocument(
        format="epub",
        title=book.title or name.rsplit(".", 1)[0],
        root=root,
        metadata=metadata,
        warnings=warnings,
    )


def _read_with_ebooklib(data: bytes) -> EpubBook:
    import ebooklib
    from ebooklib import epub

    with py_warnings.catch_warnings():
        py_warnings.simplefilter("ignore")
        book = epub.read_epub(io.BytesIO(data), {"ignore_ncx": False})
    found = EpubBook()
    found.title = _first_meta(book, "title")
    found.language = _first_meta(book, "language")
    found.authors = [" ".join(v.split()) for v, _ in book.get_metadata("DC", "creator") if v]
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        found.spine.append((item.get_name(), item.get_content()))
    found.toc = list(_flatten_toc(book.toc, 1))
    return found


def _first_meta(book: object, key: str) -> str:
    values = book.get_metadata("DC", key)  # type: ignore[attr-defined]
    return " ".join(str(values[0][0]).split()) if values and values[0][0] else ""


def _flatten_toc(entries: object, level: int):
    from ebooklib import epub

    for entry in entries or []:  # type: ignore[attr-defined]
        if isinstance(entry, tuple | list) and len(entry) == 2:
            section, children = entry
            yield level, _clean(getattr(section, "title", "")), getattr(section, "href", "") or ""
            yield from _flatten_toc(children, level + 1)
        elif isinstance(entry, epub.Link | epub.Section):
            yield level, _clean(entry.title), entry.href or ""


def _clean(title: str | None) -> str:
    return " ".join((title or "").split())


def _norm(text: str) -> str:
    return _NOT_WORD.sub("", _NUMBERING.sub("", text.casefold(), count=1))


def _build_tree(book: EpubBook) -> Section:
    """Spine documents in order; TOC entries start sections where their targets are."""
    events: list[Event] = []
    where: dict[str, int] = {}  # "path" and "path#anchor" → index in events
    for path, content in book.spine:
        where.setdefault(path, len(events))
        for event in xhtml_events(content):
            if event.kind == "anchor":
                where.setdefault(f"{path}#{event.anchor}", len(events))
            else:
                events.append(event)
    # Each TOC entry at the event index its href points to; entries without one (group
    # headings) start where the next located entry starts.
    placed: list[tuple[int, int, str]] = []
    pending: list[tuple[int, str]] = []
    for level, title, href in book.toc:
        index = _resolve(href, where, book.spine)
        if index is None:
            pending.append((level, title))
            continue
        for lvl, ttl in pending:
            placed.append((index, lvl, ttl))
        pending.clear()
        placed.append((index, level, title))
    placed.sort(key=lambda p: p[0])  # stable: TOC order kept for entries at one place
    return _assemble(events, placed)


def _resolve(href: str, where: dict[str, int], spine: list[tuple[str, bytes]]) -> int | None:
    if not href:
        return None
    if href in where:
        return where[href]
    path = href.split("#", 1)[0]
    for candidate in (path, posixpath.normpath(path)):
        for spine_path, _ in spine:
            if spine_path == candidate or spine_path.endswith("/" + candidate):
                anchor = href.split("#", 1)[1] if "#" in href else ""
                return where.get(f"{spine_path}#{anchor}", where.get(spine_path))
    return None


def _assemble(events: list[Event], placed: list[tuple[int, int, str]]) -> Section:
    root = Section(title="", level=0)
    stack = [root]
    toc_level = 0  # level of the innermost TOC section (HTML headings nest under it)
    toc_title = ""
    by_index: dict[int, list[tuple[int, str]]] = {}
    for index, level, title in placed:
        by_index.setdefault(index, []).append((level, title))
    use_headings_only = not placed
    front: Section | None = None
    for i, event in enumerate(events):
        for level, title in by_index.get(i, []):
            while stack[-1].level >= level:
                stack.pop()
            section = Section(title=title, level=level)
            stack[-1].children.append(section)
            stack.append(section)
            toc_level, toc_title = level, title
        if event.kind == "heading":
            if not _norm(event.text):
                continue  # a bare number ("190") above the real heading
            if (
                toc_title
                and _norm(event.text)
                and (_norm(event.text) in _norm(toc_title) or _norm(toc_title) in _norm(event.text))
            ):
                toc_title = ""  # the heading of the TOC entry itself
                continue
            level = event.level if use_headings_only else toc_level + event.level
            while stack[-1].level >= level and stack[-1].level > toc_level:
                stack.pop()
            section = Section(title=event.text.replace("\n", " "), level=level)
            stack[-1].children.append(section)
            stack.append(section)
            continue
        if event.block is None:
            continue
        target = stack[-1]
        if target is root:
            if front is None:
                front = Section(title="Front matter", level=1)
                root.children.insert(0, front)
            target = front
        target.blocks.append(event.block)
    return _normalise_levels(root)


def _normalise_levels(root: Section) -> Section:
    """Levels 1, 2, 3… from the root down, whatever h-levels or TOC depths produced them."""

    def fix(section: Section, level: int) -> None:
        for child in section.children:
            child.level = level
            fix(child, level + 1)

    fix(root, 1)
    return root
