"""Navigation chrome in (X)HTML books: what a reader navigates with, never what they search for.

Told apart by structure first — navigation elements, roles and epub:types, the class names of
Sphinx and DocBook navigation bars, links marked next/previous, blocks made only of links into
the book — and, across a book's documents, by text repeated at the top or bottom of many of
them (running headers, copyright footers). A short list of words ("next", "próximo", "назад")
only widens what may stand beside such links; it never decides alone.
"""

from __future__ import annotations

import re
from collections import Counter

from lxml import etree

from mirage_pipeline.parsing.xml_elements import local_name

_EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
_CHROME_TYPES = {
    "toc", "doc-toc", "landmarks", "page-list", "doc-pagelist", "navigation", "contentinfo",
    "backlink", "doc-backlink", "pagebreak", "doc-pagebreak",
}  # fmt: skip
_CHROME_CLASSES = {
    "related", "navheader", "navfooter", "sphinxsidebar", "sphinxsidebarwrapper", "footer",
    "breadcrumb", "breadcrumbs", "navbar", "navigation", "toc", "rst-footer-buttons",
    "headerlink",
}  # fmt: skip
_NAV_RELS = {"next", "prev", "previous", "up", "home", "start", "contents", "index"}
_BACKLINK = re.compile(r"^\s*(?:↩|↑|\^|\[?back\]?|\[?назад\]?)\s*$", re.IGNORECASE)
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, mailto:, …
# Words that may stand beside navigation links ("Previous: <a>…</a>", "Содержание | <a>…</a>").
_NAV_WORDS = re.compile(
    r"\b(?:next|previous|prev|up|home|top|back|contents|table of contents|index|topic|chapter|"
    r"page|section|próximo|proximo|anterior|siguiente|suivant|précédent|sommaire|índice|indice|"
    r"inicio|início|accueil|weiter|zurück|vor|inhalt|inhaltsverzeichnis|startseite|successivo|"
    r"precedente|sommario|вперёд|вперед|назад|далее|содержание|оглавление|наверх|навигация|"
    r"наступний|попередній|зміст|навігація)\b",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[\s|»«·•/\\\-–—:;,.()\[\]<>←→↑↓^#*]+")
# calibre's conversions name each style after the first element that had it and give that
# name to every later element of the same style (its flattened CSS): a DocBook book's contents
# opened with <div class="toc">, so every chapter's wrapper of the same style became
# class="toc" too, and was left out as navigation (a converted project history kept 22 % of its
# words; tex-refs none). Such a document marks its body "calibre", "calibre1", …; there the
# navigation class names are dropped, and its structure decides (nav, roles, epub:type, blocks
# made only of links; a footer on every page as repeated text). A heading's and those inside
# it are kept (mistaken, they cost a title, not text: the contents' own headings went with
# them; Sphinx's "¶" stays out), and so is a box's class ("caution", "note": a styled box keeps
# a style of its own; mistaken, it costs headings).
_CALIBRE_BODY = re.compile(r"calibre\d*")
_HEADINGS = {f"h{n}" for n in range(1, 7)}
_EDGE = 3  # blocks at each end of a document that may be a running header or footer


def element_kinds(el: etree._Element) -> list[str]:
    """What an element says it is: its `epub:type` words (namespaced, or spelled out by a
    document read without its namespace declared) and its ARIA `role`."""
    return f"{el.get(_EPUB_TYPE) or el.get('epub:type') or ''} {el.get('role') or ''}".split()


def is_chrome(el: etree._Element) -> bool:
    """An element that is navigation by what it is: nav, a navigation role or class, a link
    marked next/previous, a footnote's back-link."""
    name = local_name(el)
    if name == "nav":
        return True
    if _CHROME_TYPES.intersection(element_kinds(el)):
        return True
    if _CHROME_CLASSES.intersection((el.get("class") or "").split()):
        return True
    if name != "a" or not el.get("href"):
        return False
    if _NAV_RELS.intersection((el.get("rel") or "").lower().split()) or el.get("accesskey"):
        return True
    return bool(_BACKLINK.match("".join(el.itertext())))


def is_toc_nav(root: etree._Element) -> bool:
    """Whether a document holds an EPUB table of contents (a nav with epub:type toc)."""
    return any(
        local_name(el) == "nav" and {"toc", "doc-toc"}.intersection(element_kinds(el))
        for el in root.iter()
    )


def is_link_list(el: etree._Element) -> bool:
    """A block made only of links into the book (a contents list, "‹ Prev | Up | Next ›"):
    everything outside its links is separators or navigation words."""
    links = 0
    outside: list[str] = []

    def visit(node: etree._Element) -> bool:
        nonlocal links
        if local_name(node) == "a" and node.get("href") is not None:
            if _EXTERNAL.match(node.get("href") or ""):
                return False  # a reference to the outside world is content
            if "".join(node.itertext()).strip():
                links += 1
        else:
            outside.append(node.text or "")
            for child in node:
                if isinstance(child.tag, str) and not visit(child):
                    return False
        if node is not el:
            outside.append(node.tail or "")
        return True

    if not visit(el) or links == 0:
        return False
    rest = _SEPARATORS.sub(" ", _NAV_WORDS.sub(" ", " ".join(outside)))
    return not rest.strip()


def links_away(heading: etree._Element) -> bool:
    """A heading that is nothing but links to other pages of the book: a contents entry. A
    title linking back within its page (docutils' "toc-backref" to the contents above) is
    a section's own title."""
    hrefs = [n.get("href") or "" for n in heading.iter() if isinstance(n.tag, str)]
    return is_link_list(heading) and all(not href.startswith("#") for href in hrefs if href)


def drop_renamed_classes(body: etree._Element) -> None:
    """In a page calibre converted (`_CALIBRE_BODY`), the class names that would make an
    element navigation removed but in headings, in place: its class names are the
    converter's, not the author's."""
    if not _CALIBRE_BODY.fullmatch(body.get("class") or ""):
        return
    # the elements themselves, not their id(): lxml's proxies of other nodes reuse those
    in_headings = {
        node
        for el in body.iter()
        if isinstance(el.tag, str) and local_name(el) in _HEADINGS
        for node in el.iter()
    }
    for el in body.iter():
        classes = el.get("class") if isinstance(el.tag, str) else None
        if classes and _CHROME_CLASSES.intersection(classes.split()) and el not in in_headings:
            el.set("class", " ".join(c for c in classes.split() if c not in _CHROME_CLASSES))


def repeated_edges(documents: list[list[str]]) -> set[str]:
    """Texts found among the first or last few blocks of many documents: running headers and
    footers (a copyright line on every page of a manual). Each document is a list of block
    texts; a text counts once per document, and must recur in at least three documents and a
    quarter of those with text."""
    seen: Counter[str] = Counter()
    with_text = 0
    for blocks in documents:
        if not blocks:
            continue
        with_text += 1
        seen.update({edge_key(t) for t in (*blocks[:_EDGE], *blocks[-_EDGE:])})
    need = max(3, with_text / 4)
    return {text for text, n in seen.items() if n >= need and text}


def edge_key(text: str) -> str:
    """How a block's text is compared with the other documents' (case and spacing aside)."""
    return " ".join(text.casefold().split())
