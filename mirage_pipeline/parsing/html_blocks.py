"""XHTML (an EPUB chapter) as a flat stream of anchors, headings and blocks, in reading order."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree, html

from mirage_pipeline.parsing.model import Block

_SKIP = {"script", "style", "nav", "head", "title", "noscript", "svg", "math", "template", "img"}
_BLOCKS = {
    "p": "paragraph",
    "pre": "code",
    "blockquote": "quote",
    "table": "table",
    "ul": "list",
    "ol": "list",
    "dl": "list",
    "figcaption": "paragraph",
}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CONTAINERS = {
    "div",
    "section",
    "article",
    "body",
    "main",
    "header",
    "footer",
    "aside",
    "figure",
    "span",
    "center",
    "hgroup",
    "html",
}
_BACKLINK = re.compile(r"^\s*(?:↩|↑|\^|\[?back\]?|\[?назад\]?)\s*$", re.IGNORECASE)
_EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"


@dataclass
class Event:
    kind: str  # "anchor", "heading" or "block"
    anchor: str = ""
    level: int = 0
    text: str = ""
    block: Block | None = None


def xhtml_events(content: bytes) -> list[Event]:
    """Anchors (element ids), headings h1–h6 and text blocks of one XHTML document."""
    try:
        root = etree.fromstring(
            content,
            etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False),
        )
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        root = html.fromstring(content)
    events: list[Event] = []
    body = _first(root, "body")
    _walk(body if body is not None else root, events)
    return events


def _local(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def _first(root: etree._Element, name: str) -> etree._Element | None:
    for el in root.iter():
        if _local(el) == name:
            return el
    return None


def _walk(el: etree._Element, events: list[Event]) -> None:
    name = _local(el)
    if not name or name in _SKIP or _is_chrome(el):
        return
    ident = el.get("id") or (el.get("name") if name == "a" else None)
    if ident:
        events.append(Event("anchor", anchor=ident))
    if name in _HEADINGS:
        text = _text(el)
        if text:
            events.append(Event("heading", level=_HEADINGS[name], text=text))
        return
    if name in _BLOCKS:
        for inner in el.iter():
            if inner is not el and isinstance(inner.tag, str) and inner.get("id"):
                events.append(Event("anchor", anchor=inner.get("id")))
        text = _table_text(el) if name == "table" else _text(el, keep_lines=name == "pre")
        if name in ("ul", "ol"):
            text = "\n".join(f"- {_text(li)}" for li in el if _local(li) == "li" and _text(li))
        if text:
            events.append(Event("block", block=Block(kind=_BLOCKS[name], text=text)))
        return
    if name in _CONTAINERS or name not in _BLOCKS:
        # Text directly inside a container (no <p>) is a paragraph of its own.
        lead = " ".join((el.text or "").split())
        if lead and name in _CONTAINERS and name != "span":
            events.append(Event("block", block=Block(kind="paragraph", text=lead)))
        for child in el:
            _walk(child, events)
            tail = " ".join((child.tail or "").split())
            if tail and name in _CONTAINERS and name != "span":
                events.append(Event("block", block=Block(kind="paragraph", text=tail)))


def _is_chrome(el: etree._Element) -> bool:
    """Navigation chrome and footnote back-links: nothing a reader searches for."""
    kind = (el.get(_EPUB_TYPE) or el.get("epub:type") or "") + " " + (el.get("role") or "")
    if any(t in kind for t in ("backlink", "doc-backlink", "pagebreak", "doc-pagebreak", "toc")):
        return True
    if _local(el) != "a" or not el.get("href"):
        return False
    return bool(_BACKLINK.match("".join(el.itertext())))


def _text(el: etree._Element, keep_lines: bool = False) -> str:
    parts: list[str] = []
    _collect(el, parts)
    text = "".join(parts)
    if keep_lines:
        return text.strip("\n")
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _collect(node: etree._Element, parts: list[str]) -> None:
    if _local(node) == "br":
        parts.append("\n")
    if node.text:
        parts.append(node.text)
    for child in node:
        if isinstance(child.tag, str) and _local(child) not in _SKIP and not _is_chrome(child):
            _collect(child, parts)
        if child.tail:
            parts.append(child.tail)


def _table_text(el: etree._Element) -> str:
    rows = []
    for tr in el.iter():
        if _local(tr) == "tr":
            cells = [_text(td).replace("\n", " ") for td in tr if _local(td) in ("td", "th")]
            if any(cells):
                rows.append(" | ".join(cells))
    return "\n".join(rows)
