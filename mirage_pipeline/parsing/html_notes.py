"""Footnotes in (X)HTML: the links that cite them, read as raised marks ("conversant.¹"), and
the notes themselves, each moved after the paragraph that first cites it."""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Protocol, TypeVar

from lxml import etree

from mirage_pipeline.parsing.html_chrome import element_kinds
from mirage_pipeline.parsing.xml_elements import local_name


class _Event(Protocol):
    kind: str
    anchor: str
    refs: tuple[str, ...]


E = TypeVar("E", bound=_Event)

_NOTE_CLASSES = ("footnote-reference", "footnote-ref", "noteref", "footnoteref")
_NOTEREF = {"noteref", "doc-noteref"}  # EPUB 3's epub:type, DPUB-ARIA's role


def note_reference(el: etree._Element) -> str:
    """A link to a footnote: "marked" (Sphinx's and docutils' `footnote-reference`, pandoc's
    `footnote-ref`, EPUB 3's `epub:type="noteref"`), "raised" (unmarked, as most converters
    write them: a raised link to a place in the book), else "". Its number stood in the text
    as a word ("must be conversant. 1 If one person"); a raised link that is no number
    ("<a href="#fig2">Figure <sup>2</sup></a>") is text."""
    name = local_name(el)
    if name not in ("a", "sup"):
        return ""
    classes = (el.get("class") or "").split()
    if any(c in _NOTE_CLASSES for c in classes) or _NOTEREF.intersection(element_kinds(el)):
        return "marked"
    # "Слово<a href="#n5"><sup>5</sup></a>", "<sup><a href="notes.xhtml#n2">2</a></sup>"
    inner = "sup" if name == "a" else "a"
    link = el if name == "a" else next((n for n in el.iter() if local_name(n) == "a"), None)
    raised = (
        link is not None
        and "#" in (link.get("href") or "")
        and any(local_name(n) == inner for n in el.iter())
    )
    return "raised" if raised else ""


# What an element says it is when it is a footnote (EPUB 3, ARIA). Endnotes ("rearnote",
# "endnote": The Waste Land's "Notes on the Waste Land") are a section the author set apart,
# and stay there.
_NOTE_KINDS = {"footnote", "doc-footnote"}


def is_note(el: etree._Element) -> bool:
    """Whether `el` is a footnote by what it says it is."""
    return bool(_NOTE_KINDS.intersection(element_kinds(el)))


def note_targets(el: etree._Element) -> tuple[str, ...]:
    """The links in `el` to places ("#fn1", "ch01.xhtml#fn1")."""
    return tuple(
        href
        for node in el.iter()
        if isinstance(node.tag, str)
        and local_name(node) == "a"
        and "#" in (href := node.get("href") or "")
    )


def _in_page(href: str, path: str) -> str | None:
    """The place in the page at `path` a link points to ("fn1" of "#fn1", or of "ch01.xhtml#fn1"
    in ch01.xhtml); None for a place in another page."""
    page, _, place = href.partition("#")
    if page and posixpath.basename(page) != posixpath.basename(path):
        return None
    return place


def place_notes(events: list[E], path: str = "") -> None:
    """Each footnote moved after the first block of the page that links to it, and made a
    block, in place: pandoc's notes stood at the chapter's end as a list, filed under its last
    section. A note nothing on its page links to stays where it is; a link to another page's
    "#fn1" is no reference to this page's (`path`'s) fn1."""
    notes = {e.anchor: i for i, e in enumerate(events) if e.kind == "note" and e.anchor}
    after: dict[int, list[int]] = {}
    moved: set[int] = set()
    for i, event in enumerate(events):
        for ref in event.refs if event.kind == "block" else ():
            j = notes.get(_in_page(ref, path) or "")
            if j is not None and j not in moved:
                moved.add(j)
                after.setdefault(i, []).append(j)
    placed: list[E] = []
    for i, event in enumerate(events):
        if i not in moved:
            placed += [event, *(events[j] for j in after.get(i, ()))]
    events[:] = [replace(e, kind="block") if e.kind == "note" else e for e in placed]
