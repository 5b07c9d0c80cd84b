"""Chunks from a document tree: one section's text at a time, sized in the embedder's tokens."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mirage_pipeline.parsing.model import Block, ParsedDocument

TokenCounter = Callable[[str], int]
_SENTENCE_END = re.compile(r"(?<=[.!?…;:])\s+")
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class ChunkingPolicy:
    """Sizes in the embedder's tokens; `max_tokens` covers the text as embedded."""

    max_tokens: int
    target_tokens: int

    @classmethod
    def for_window(cls, window: int) -> ChunkingPolicy:
        # Leave room for the heading-path prefix and the model's special tokens.
        max_tokens = window - 12
        return cls(max_tokens=max_tokens, target_tokens=min(400, max_tokens * 3 // 4))


@dataclass(frozen=True)
class Chunk:
    position: int
    content: str  # what search returns: the document's own text
    embed_text: str  # what the embedder reads: heading path + content
    structure: dict[str, Any]
    lang: str
    tokens: int
    content_hash: str = field(default="")


def detect_language(text: str) -> str:
    """'ru', 'en' or 'other', by which alphabet dominates the letters."""
    cyr = len(_CYRILLIC.findall(text))
    lat = len(_LATIN.findall(text))
    if cyr == 0 and lat == 0:
        return "other"
    return "ru" if cyr >= lat else "en"


def chunk_document(
    doc: ParsedDocument, count_tokens: TokenCounter, policy: ChunkingPolicy
) -> list[Chunk]:
    """Walk the tree; pack each section's blocks into chunks that never cross a section."""
    chunks: list[Chunk] = []
    per_chapter: dict[str, int] = {}
    for path, section in doc.root.walk():
        if not section.blocks:
            continue
        headings = [s.title for s in (*path, section) if s.level > 0 and s.title]
        prefix = " › ".join([doc.title, *headings[1:]] if headings else [doc.title])
        budget = policy.max_tokens - count_tokens(prefix)
        chapter = headings[0] if headings else None
        for pieces in _pack(section.blocks, count_tokens, budget, policy.target_tokens):
            content = "\n\n".join(p.text for p in pieces)
            embed_text = f"{prefix}\n\n{content}"
            position_in_chapter = per_chapter.get(chapter or "", 0)
            per_chapter[chapter or ""] = position_in_chapter + 1
            structure: dict[str, Any] = {
                "book": doc.title,
                "chapter": chapter,
                "section": headings[-1] if headings else None,
                "heading_path": headings,
                "position_in_chapter": position_in_chapter,
            }
            lines = [p.line_start for p in pieces if p.line_start] + [
                p.line_end for p in pieces if p.line_end
            ]
            if lines:
                structure["line_start"], structure["line_end"] = min(lines), max(lines)
            chunks.append(
                Chunk(
                    position=len(chunks),
                    content=content,
                    embed_text=embed_text,
                    structure=structure,
                    lang=detect_language(content),
                    tokens=count_tokens(embed_text),
                    content_hash=hashlib.sha256(embed_text.encode()).hexdigest(),
                )
            )
    return chunks


def _pack(
    blocks: list[Block], count: TokenCounter, budget: int, target: int
) -> Iterator[list[Block]]:
    """Group consecutive blocks up to `target` tokens; split any block over `budget`."""
    group: list[Block] = []
    size = 0
    for block in blocks:
        for piece in _fit(block, count, budget, target):
            n = count(piece.text)
            if group and size + n > target:
                yield group
                group, size = [], 0
            group.append(piece)
            size += n
    if group:
        yield group


def _fit(block: Block, count: TokenCounter, budget: int, target: int) -> list[Block]:
    """The block itself, or consecutive parts of it (lines, then sentences, then words).

    Parts are filled up to `target` by adding up the parts' own counts: each count includes
    the model's special tokens, so the sum never undercounts the joined text.
    """
    if count(block.text) <= budget:
        return [block]
    parts: list[str] = []
    for unit in _split_units(block.text):
        parts.extend(_fit_text(unit, count, budget, target))
    merged: list[str] = []
    size = 0
    for part in parts:
        n = count(part)
        if merged and size + n <= target:
            merged[-1] = merged[-1] + "\n" + part
            size += n
        else:
            merged.append(part)
            size = n
    return [
        Block(kind=block.kind, text=t, line_start=block.line_start, line_end=block.line_end)
        for t in merged
    ]


def _split_units(text: str) -> list[str]:
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return lines if len(lines) > 1 else [text]


def _fit_text(text: str, count: TokenCounter, budget: int, target: int) -> list[str]:
    if count(text) <= target:
        return [text]
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    if len(sentences) == 1:
        sentences = text.split(" ")  # one endless "sentence": cut between words
    out: list[str] = []
    current, size = "", 0
    for sentence in sentences:
        n = count(sentence)
        if current and size + n <= target:
            current, size = f"{current} {sentence}", size + n
            continue
        if current:
            out.append(current)
        if n <= budget:
            current, size = sentence, n
        else:  # a single word longer than the window: cut by characters, as a last resort
            step = max(1, len(sentence) * budget // (n + 1))
            out.extend(sentence[i : i + step] for i in range(0, len(sentence), step))
            current, size = "", 0
    if current:
        out.append(current)
    return out
