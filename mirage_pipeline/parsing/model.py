"""The document model every parser produces and the chunker reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Block:
    """A leaf of the tree: one paragraph, list, code fence, table or quote, as its source text."""

    kind: str
    text: str
    line_start: int | None = None  # 1-based, inclusive (text sources)
    line_end: int | None = None
    page: int | None = None  # 1-based physical page (paginated sources)


@dataclass
class Section:
    """A heading and what stands under it; level 0 is the document itself."""

    title: str
    level: int
    blocks: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    line_start: int | None = None
    page: int | None = None

    def walk(self, path: tuple[Section, ...] = ()) -> list[tuple[tuple[Section, ...], Section]]:
        """Every section under this one, depth first, with the sections above it."""
        found = [(path, self)]
        for child in self.children:
            found.extend(child.walk((*path, self)))
        return found


@dataclass
class ParsedDocument:
    format: str
    title: str
    root: Section
    metadata: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def toc(self) -> list[dict[str, Any]]:
        return [
            {"level": s.level, "title": s.title, "line": s.line_start, "page": s.page}
            for _, s in self.root.walk()
            if s.level > 0
        ]


class ParseError(ValueError):
    """A file cannot be turned into a document; the message is meant for a person."""
