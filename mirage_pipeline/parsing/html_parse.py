"""An (X)HTML page read into a tree: as XML when it is well-formed, else as HTML, in the
encoding it declares — or, undeclared, in the one its bytes read as (UTF-8, Windows-1251,
KOI8)."""

from __future__ import annotations

import codecs
import re

from lxml import etree, html

from mirage_pipeline.parsing.cyrillic_8bit import TEXT_ENCODINGS, best_reading
from mirage_pipeline.parsing.xml_elements import numeric_entities


def parse_markup(content: bytes) -> etree._Element | None:
    """Well-formed XHTML as XML; anything else (unclosed tags, stray ones) as HTML. HTML's
    named entities are character references first (numeric_entities)."""
    content = numeric_entities(content)
    # undeclared Cyrillic bytes: libxml2's XML parser, too, read them as Latin-1
    guessed = _undeclared_cyrillic(content)
    try:
        return etree.fromstring(
            content,
            etree.XMLParser(
                resolve_entities=False, no_network=True, huge_tree=False, encoding=guessed
            ),
        )
    except etree.XMLSyntaxError:
        pass
    try:
        encoding = guessed or _html_encoding(content)
        return html.fromstring(content, parser=html.HTMLParser(encoding=encoding))
    except (etree.ParserError, ValueError):
        return None


# the encoding a document states: its XML declaration's, a <meta> charset
_XML_ENCODING = re.compile(rb"""<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']""", re.IGNORECASE)
_META_CHARSET = re.compile(rb"<meta\b[^>]*\bcharset\s*=", re.IGNORECASE)


def _html_encoding(content: bytes) -> str | None:
    """The encoding to read a page the XML parser refused in: libxml2's HTML parser reads a
    <meta> charset but not an XML declaration's encoding, and takes undeclared bytes as
    Latin-1 ("Ð\x9fÑ\x80Ð¸" for "При": a Markdown <details> block). The declaration's
    encoding; UTF-8 (XML's, and EPUB's, default) for undeclared bytes that read as UTF-8;
    else None, libxml2's own reading."""
    head = content[:4096]
    declared = _XML_ENCODING.match(head.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if declared:
        name = declared[1].decode("ascii")
        try:
            return codecs.lookup(name).name
        except LookupError:
            return None
    if _META_CHARSET.search(head):
        return None
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return None  # Cyrillic in Windows-1251 or KOI8 was told by _undeclared_cyrillic
    return "utf-8"


_CODECS = {"cp1251": "windows-1251", "KOI8": "koi8-u"}
_MARKUP = re.compile(r"<[^<>]*>|&#?\w+;")


def _undeclared_cyrillic(content: bytes) -> str | None:
    """The encoding of a page that declares none and is no UTF-8: an old Russian page in
    Windows-1251 or KOI8, by which reads as the likelier Cyrillic words (cyrillic_8bit.py) —
    read as Latin-1, its heading no longer matched the contents' ("Óñòàíîâêà" for
    "Установка": the chapter twice) —; else None."""
    head = content[:4096]
    if _XML_ENCODING.match(head.lstrip(b"\xef\xbb\xbf \t\r\n")) or _META_CHARSET.search(head):
        return None
    try:
        content.decode("utf-8")
        return None
    except UnicodeDecodeError:
        pass
    text = _MARKUP.sub(" ", content[:20000].decode("latin-1"))  # the text's words, not the tags'
    return _CODECS.get(best_reading(text, TEXT_ENCODINGS))
