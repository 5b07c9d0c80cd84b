"""Elements of XML books (EPUB packages and XHTML, FB2) read the same way everywhere: names
without their namespace, children by name, an element's words, and one lenient lxml parser for
files that break the rules (no entities resolved, no network)."""

from __future__ import annotations

import re
from html.entities import html5
from typing import Any

from lxml import etree

# Shared by every reader: recovers from broken markup, never expands entities or fetches DTDs.
RECOVERING_PARSER = etree.XMLParser(recover=True, resolve_entities=False, no_network=True)


def local_name(el: Any) -> str:
    """The tag without its namespace, lower-cased ("navPoint" → "navpoint"); "" for comments."""
    tag = el.tag
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def children(el: Any, name: str) -> list[Any]:
    """Direct children named `name` (lower-case, any namespace)."""
    return [c for c in el if local_name(c) == name]


def child(el: Any, name: str) -> Any | None:
    """The first direct child named `name`, or None."""
    return next((c for c in el if local_name(c) == name), None)


def element_text(el: Any | None) -> str:
    """All text inside `el`, whitespace collapsed; "" for None."""
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def parse_recovering(data: bytes) -> etree._Element | None:
    """The document's root read in recovery mode; None when nothing could be read."""
    try:
        return etree.fromstring(data, RECOVERING_PARSER)
    except etree.XMLSyntaxError:  # empty, or no element at all
        return None


# HTML's named entities but XML's own five ("&amp;" stays), as their characters' references
_ENTITY = re.compile(rb"&([A-Za-z][A-Za-z0-9]{1,31});")
_REFERENCES = {
    name[:-1].encode(): "".join(f"&#{ord(c)};" for c in text).encode()
    for name, text in html5.items()
    if name.endswith(";") and name[:-1] not in ("amp", "lt", "gt", "quot", "apos")
}


def _entity(found: re.Match[bytes]) -> bytes:
    return _REFERENCES.get(found[1], found[0])


def numeric_entities(content: bytes) -> bytes:
    """ "&nbsp;", "&mdash;", "&laquo;" as "&#160;", "&#8212;", "&#171;": under an XHTML 1.x
    DOCTYPE the XML parser accepts them undefined and drops them from the text — Sigil's and
    InDesign's EPUB 2 books read "— Здравствуйте, — сказал он. «Война и мир»" as
    "Здравствуйте, сказал он.Войнаимир"; without one they sent the page to the HTML parser
    (and an FB2 book to recovery, which left "&nbsp;" in its text)."""
    return _ENTITY.sub(_entity, content) if b"&" in content else content
