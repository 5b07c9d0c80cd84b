"""Which chapter and headings a chunk is cited under: a document's chapters in reading order,
the level-1 section that holds the whole book rather than a chapter of it, and the headings a
section brings into a chunk that has not shown them yet; and what every chunk of a document
carries from it for filtering (its tags and type)."""

from __future__ import annotations

from typing import Any

from mirage_pipeline.parsing.html_chrome import edge_key
from mirage_pipeline.parsing.model import ParsedDocument, Section


def chapters(doc: ParsedDocument) -> list[tuple[Section | None, list[tuple[list[str], Section]]]]:
    """(chapter, [(heading path, section)...]) in reading order; the root's own text first."""
    found: list[tuple[Section | None, list[tuple[list[str], Section]]]] = []
    if doc.root.blocks:
        found.append((None, [([], doc.root)]))
    for chapter in doc.root.children:
        sections = [
            ([s.title for s in (*path[1:], section) if s.title], section)
            for path, section in chapter.walk((doc.root,))
            if section.blocks
        ]
        if sections:
            found.append((chapter, sections))
    return found


# A level-1 section holds the book when at least this share of the document's text is in it.
BOOK_SHARE = 0.8


def book_wrapper(doc: ParsedDocument) -> Section | None:
    """The level-1 section that holds the book rather than a chapter of it: one with sections
    under it and nearly all of the document's text (BOOK_SHARE), titled as the document or its
    only level-1 section. A Markdown file of several `#` chapters — whose first one gave the
    document its title — has none."""
    tops = [s for s in doc.root.children if s.blocks or s.children]
    total = doc.root.text_length()
    for top in tops:
        if not top.children or top.text_length() < BOOK_SHARE * total:
            continue
        if len(tops) == 1 or (doc.title and edge_key(top.title) == edge_key(doc.title)):
            return top
    return None


def cited_chapters(wrapper: Section | None) -> dict[int, str]:
    """id of each section under `wrapper` → the titled section right below it that holds it."""
    if wrapper is None:
        return {}
    return {
        id(section): child.title
        for child in wrapper.children
        if child.title
        for _, section in child.walk()
    }


def new_headings(shown: list[str], headings: list[str]) -> list[str]:
    """The headings of a section joining a chunk that the chunk has not shown yet: its own
    title and every heading above it where its path leaves the previous section's. "5.16.1.
    Purpose" joining "5.15.1. Purpose" brings "5.16. /var/yp : NIS database files" too — the
    heading that says what the text below it is about."""
    common = 0
    for a, b in zip(shown, headings, strict=False):
        if a != b:
            break
        common += 1
    return headings[common:]


def chunk_metadata(doc_metadata: dict[str, Any]) -> dict[str, Any]:
    """What every chunk of a document carries for filtering: its tags and type."""
    found: dict[str, Any] = {}
    tags = doc_metadata.get("tags")
    if isinstance(tags, str):
        tags = [tags]
    if isinstance(tags, list):
        clean = [str(t).strip() for t in tags if str(t).strip()]
        if clean:
            found["tags"] = clean
    if isinstance(doc_metadata.get("type"), str):
        found["type"] = doc_metadata["type"]
    return found
