"""EPUB 2 and 3 (ebooklib): spine order, the table of contents (nav or NCX) as the tree, h1–h6
inside each XHTML file refining it, title/authors/language from the package metadata.

Each spine document keeps its own language (declared on it, else its folder's table of contents
when the book has one per language, else read from its text, else the book's), and loses its
navigation chrome: the documents' links, roles and classes, and text repeated at the top or
bottom of many documents (`html_chrome`). Documents outside the table of contents get their own
sections (`epub_tree`).

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

from mirage_pipeline.language import CYRILLIC_LANGUAGES, identify_language, normalise_language
from mirage_pipeline.parsing.epub_archive import EpubBook, read_archive
from mirage_pipeline.parsing.epub_tree import SpineDocument, build_tree
from mirage_pipeline.parsing.html_blocks import Event, read_xhtml
from mirage_pipeline.parsing.html_chrome import edge_key, repeated_edges
from mirage_pipeline.parsing.model import ParsedDocument, ParseError

_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)+$")
_TITLE_MAX = 120
# What converters write where a book names no author (calibre: "Unknown", "Неизвестный").
_NO_AUTHOR = {"unknown", "неизвестный", "неизвестен", "автор неизвестен"}
_EDGE = 3  # blocks at either end of a document where a running header or footer may stand
_SAMPLE = 4000  # characters of a document's text its language is read from


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
    documents = _spine_documents(book)
    root = build_tree(documents, book.toc)
    if not any(s.blocks for _, s in root.walk()):
        raise ParseError("no text to index: the EPUB's documents hold no text")
    metadata: dict[str, object] = {}
    authors = [a for a in book.authors if a.casefold() not in _NO_AUTHOR]
    if authors:
        metadata["authors"] = authors
    if book.language:
        metadata["language"] = book.language
    return ParsedDocument(
        format="epub",
        title=_title(book.title, documents) or name.rsplit(".", 1)[0],
        root=root,
        metadata=metadata,
        warnings=warnings,
    )


def _title(declared: str, documents: list[SpineDocument]) -> str:
    """The book's `dc:title`, unless it is a slug ("developers-reference": Sphinx's project
    name) and the first spine document with text has a <title> that is a title ("Debian
    Developer's Reference"; not calibre's cover page before it, "Cover", an image)."""
    if declared and _SLUG.match(declared):
        pages = (
            d for d in documents if d.linear and d.doc.title and not d.doc.is_nav and d.doc.has_text
        )
        first = next((d.doc.title.strip() for d in pages), "")
        if " " in first and len(first) <= _TITLE_MAX:
            return first
    return declared


def _spine_documents(book: EpubBook) -> list[SpineDocument]:
    """The spine read into blocks, chrome repeated across documents dropped, each block's
    language set."""
    documents = [
        SpineDocument(path=path, doc=read_xhtml(content, path), linear=linear)
        for path, content, linear in book.spine
    ]
    nav_langs = {
        posixpath.dirname(d.path): d.doc.lang for d in documents if d.doc.is_nav and d.doc.lang
    }
    for path, content in book.navs:
        lang = read_xhtml(content).lang
        if lang:
            nav_langs.setdefault(posixpath.dirname(path), lang)
    if len(set(nav_langs.values())) < 2:
        nav_langs = {}  # one table of contents says nothing the book's language does not
    book_lang = normalise_language(book.language)
    repeated = repeated_edges([_block_texts(d.doc.events) for d in documents])
    for d in documents:
        if repeated:
            _drop_repeated(d.doc.events, repeated)
        d.lang = _document_language(d, nav_langs, book_lang)
        for event in d.doc.events:
            if event.block is not None:
                own = event.lang if event.lang != d.doc.lang else None
                event.block.lang = own or d.lang
    return documents


def _block_texts(events: list[Event]) -> list[str]:
    return [e.block.text for e in events if e.block is not None and e.block.kind != "code"]


def _drop_repeated(events: list[Event], repeated: set[str]) -> None:
    """Blocks near either end of a document whose text recurs there in many documents."""
    blocks = [i for i, e in enumerate(events) if e.block is not None and e.block.kind != "code"]
    for i in {*blocks[:_EDGE], *blocks[-_EDGE:]}:
        if edge_key(events[i].block.text) in repeated:
            events[i] = Event("chrome")


def _document_language(
    d: SpineDocument, nav_langs: dict[str, str], book_lang: str | None
) -> str | None:
    """Declared on the document, else its folder's table of contents, else read from its text,
    else the book's; a Latin-script language said of Cyrillic text gives way to the text's."""
    said = d.doc.lang
    folder = posixpath.dirname(d.path)
    while said is None and nav_langs:
        said = nav_langs.get(folder)
        if not folder:
            break
        folder = posixpath.dirname(folder)
    texts: list[str] = []
    size = 0
    for event in d.doc.events:
        if event.block is not None and size < _SAMPLE:
            texts.append(event.block.text)
            size += len(event.block.text)
    seen = identify_language("\n".join(texts)) if texts else None
    if said and not (seen in CYRILLIC_LANGUAGES and said not in CYRILLIC_LANGUAGES):
        return said
    return seen or book_lang


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
    on_spine: set[str] = set()
    for idref, linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        # The file as stored: get_content() rebuilds it and stamps the book's language on it.
        found.spine.append((item.get_name(), item.content, linear not in ("no", False)))
        on_spine.add(item.get_name())
    found.navs = [
        (item.get_name(), item.content)
        for item in book.get_items()
        if isinstance(item, epub.EpubHtml)
        and item.get_name() not in on_spine
        and b"<nav" in (item.content or b"")
    ]
    found.toc = list(_flatten_toc(book.toc, 1))
    return found


def _first_meta(book: object, key: str) -> str:
    values = book.get_metadata("DC", key)  # type: ignore[attr-defined]
    return " ".join(str(values[0][0]).split()) if values and values[0][0] else ""


def _flatten_toc(entries: object, level: int, parent: tuple[str, str] | None = None):
    """(level, title, href) of each entry, depth first. An entry repeating its parent's title
    and target (Sphinx's translated EPUBs: "Архив Debian" under "Архив Debian", both at
    `#the-debian-archive`) is left out and its children take its place."""
    from ebooklib import epub

    for entry in entries or []:  # type: ignore[attr-defined]
        if isinstance(entry, tuple | list) and len(entry) == 2:
            section, children = entry
            here = (_clean(getattr(section, "title", "")), getattr(section, "href", "") or "")
            if here == parent:
                yield from _flatten_toc(children, level, parent)
                continue
            yield level, *here
            yield from _flatten_toc(children, level + 1, here)
        elif isinstance(entry, epub.Link | epub.Section):
            here = (_clean(entry.title), entry.href or "")
            if here != parent:
                yield level, *here


def _clean(title: str | None) -> str:
    return " ".join((title or "").split())
