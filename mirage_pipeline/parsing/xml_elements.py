"""Elements of XML books (EPUB packages and XHTML, FB2) read the same way everywhere: names
without their namespace, children by name, an element's words, and one lenient lxml parser for
files that break the rules (no entities resolved, no network)."""

from __future__ import annotations

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
