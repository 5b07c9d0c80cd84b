"""The document model every parser produces and the chunker reads.

A document holds a tree of sections (level 0 is the document itself); a section's own text is
a list of blocks (paragraph, list, code, table, quote) that remember where they came from:
lines for text sources, pages for paginated ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A footnote's mark as every format writes it in a block's text: raised digits ("scripts.¹",
# "¹ Obviously…"), whatever the source set (a PDF's smaller raised number, an EPUB's link).
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
RAISED = "0123456789".translate(SUPERSCRIPT)


@dataclass
class Block:
    """A leaf of the tree: one paragraph, list, code fence, table or quote, as its source text."""

    kind: str
    text: str
    line_start: int | None = None  # 1-based, inclusive (text sources)
    line_end: int | None = None
    page: int | None = None  # 1-based physical page where the block starts (paginated sources)
    page_end: int | None = None  # where it ends, when it runs over a page break
    lang: str | None = None  # ISO 639-1 code when the source says or implies it (EPUB items)

    @property
    def last_page(self) -> int | None:
        return self.page_end or self.page


@dataclass
class Section:
    """A heading and what stands under it; level 0 is the document itself."""

    title: str
    level: int
    blocks: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    line_start: int | None = None
    page: int | None = None
    # How the chunker treats it beside its neighbours: None (merge while small), "apart"
    # (always its own chunks) or "with_next" (share a chunk with the next section).
    chunking: str | None = None

    def walk(self, path: tuple[Section, ...] = ()) -> list[tuple[tuple[Section, ...], Section]]:
        """Every section under this one, depth first, with the sections above it."""
        found = [(path, self)]
        for child in self.children:
            found.extend(child.walk((*path, self)))
        return found

    def text_length(self) -> int:
        return sum(len(b.text) for _, s in self.walk() for b in s.blocks)


@dataclass
class ParsedDocument:
    format: str
    title: str
    root: Section
    metadata: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    pages: int | None = None  # physical pages of a paginated source
    # The number printed on each physical page (index 0: page 1) when the source labels its
    # pages otherwise ("i"–"x" for the front matter, "1" on page 11); empty when it does not.
    page_labels: list[str] = field(default_factory=list)
    # Set when an indexing policy excludes the document: why, in words (nothing is chunked).
    skipped: str | None = None

    def toc(self) -> list[dict[str, Any]]:
        """The section tree, flattened: level, title, and the page or line it starts at."""
        entries = []
        for _, s in self.root.walk():
            if s.level == 0:
                continue
            entry: dict[str, Any] = {"level": s.level, "title": s.title}
            if s.page is not None:
                entry["page"] = s.page
            if s.line_start is not None:
                entry["line"] = s.line_start
            entries.append(entry)
        return entries


class ParseError(ValueError):
    """A file cannot be turned into a document; the message is meant for a person."""
