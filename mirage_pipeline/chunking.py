"""Chunks from a document tree, sized in the embedder's own tokens.

Rules, in order of precedence:
- a chunk never crosses a chapter (a level-1 section, or the document when it has none);
- each block is counted once; a block over the target is split at lines, then sentences, then
  between words — never inside a word;
- consecutive sections of one chapter share a chunk only while the chunk is still smaller than
  `min_tokens` (small sections merge with their neighbour), unless a policy keeps them apart;
  the small end of a section split into chunks goes back into the chunk before it when both
  fit, rather than being joined by the next section (cited for it);
- inside one section, a chunk that follows another starts with the tail of the previous one
  (`overlap_tokens`), so a sentence cut at a boundary is still found whole;
- the embedder reads `heading path + content`, and that stays under `max_tokens`.

A chunk's `chapter` (its citation) is its level-1 section, unless that section holds the book
rather than a chapter of it — a table of contents whose one top entry is the book's title, a
Markdown file under one `#` heading —: then it is the heading below (chunk_outline.py).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field
from typing import Any

from mirage_pipeline.block_split import (
    JOIN_SLACK,
    SENTENCE_END,
    block_lines,
    split_block,
    table_header,
)
from mirage_pipeline.chunk_language import chunk_language
from mirage_pipeline.chunk_lead_ins import captions_above, carried_lead_in, room_for_lead_in
from mirage_pipeline.chunk_outline import (
    book_wrapper,
    chapters,
    chunk_metadata,
    cited_chapters,
    new_headings,
)
from mirage_pipeline.chunk_parts import chunk_parts
from mirage_pipeline.morphology import lemma_text
from mirage_pipeline.parsing.html_chrome import edge_key
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section
from mirage_pipeline.token_estimate import TokenCounter, TokenEstimator, stable_bucket


@dataclass(frozen=True)
class ChunkingPolicy:
    """Sizes in the embedder's tokens; `max_tokens` covers the text as embedded."""

    max_tokens: int
    target_tokens: int
    overlap_tokens: int = 64
    min_tokens: int = 120

    @classmethod
    def for_window(cls, window: int) -> ChunkingPolicy:
        """Derived from the embedder's window: room is left for special tokens."""
        max_tokens = window - 16
        target = min(400, max_tokens * 4 // 5)
        return cls(
            max_tokens=max_tokens,
            target_tokens=target,
            overlap_tokens=min(64, target // 6),
            min_tokens=min(120, target // 3),
        )


@dataclass(frozen=True)
class Chunk:
    position: int
    content: str  # what search returns: the document's own text
    embed_text: str  # what the embedder reads: heading path + content
    structure: dict[str, Any]
    lang: str
    tokens: int  # of embed_text (an upper bound: parts are counted one by one)
    content_hash: str = field(default="")
    metadata: dict[str, Any] = field(default_factory=dict)  # tags, type: stored on the chunk
    lemmas: str = ""  # dictionary forms of its Cyrillic words, for full-text search
    parts: tuple[str, ...] = ()  # its sentence windows, embedded beside it (chunk_parts.py)

    @property
    def embed_prefix(self) -> str:
        """What the embedder reads before the content: the heading path and a blank line."""
        return self.embed_text[: len(self.embed_text) - len(self.content)]

    def part_texts(self) -> list[str]:
        """The windows as the embedder reads them, behind the chunk's heading path."""
        return [self.embed_prefix + part for part in self.parts]


@dataclass
class _Piece:
    text: str
    tokens: int
    section: Section
    block: Block
    overlap: bool = False
    heading: bool = False  # the title of a section joining the chunk: a line of its own
    lines: tuple[int, int] | None = None  # a part of a block: its own source lines

    def line_range(self) -> tuple[int | None, int | None]:
        return self.lines or (self.block.line_start, self.block.line_end)


def chunk_document(
    doc: ParsedDocument, count_tokens: TokenCounter, policy: ChunkingPolicy
) -> list[Chunk]:
    """Walk the tree chapter by chapter and pack its sections' blocks into chunks."""
    if doc.skipped:
        return []
    builder = _Builder(doc, count_tokens, policy)
    for chapter, sections in chapters(doc):
        builder.chapter(chapter, sections)
    return builder.chunks


_EXACT_KINDS = frozenset({"code", "table"})  # blocks whose tokens are counted, not estimated


class _Builder:
    def __init__(self, doc: ParsedDocument, count: TokenCounter, policy: ChunkingPolicy) -> None:
        self.doc = doc
        self.exact = count
        blocks = [b for _, section in doc.root.walk() for b in section.blocks]
        self.count = TokenEstimator(count, [b.text for b in blocks])
        self.captions_above = captions_above(blocks)
        self.policy = policy
        self.chunks: list[Chunk] = []
        self.metadata = chunk_metadata(doc.metadata)
        self.paths: dict[int, list[str]] = {}  # id of a section → its heading path
        self.cited = cited_chapters(book_wrapper(doc))
        self._last_cited: tuple[int, str | None] | None = None  # the last chunk's chapter
        self._in_chapter = 0  # chunks emitted in it

    def chapter(self, chapter: Section | None, sections: list[tuple[list[str], Section]]) -> None:
        groups: list[list[_Piece]] = []
        current: list[_Piece] = []
        size = 0
        previous: Section | None = None
        previous_target = self.policy.target_tokens
        for headings, section in sections:
            self.paths[id(section)] = headings
            prefix_tokens = self.count(self._prefix(headings)) + 2
            target = min(self.policy.target_tokens, self.policy.max_tokens - prefix_tokens)
            before = previous.chunking if previous is not None else None
            if current and before is None and self._split_tail(current, groups, previous):
                # the small end of a section split into chunks goes back into the chunk
                # before when both fit, not on with the next section
                tail = [p for p in current if not p.overlap]
                if sum(p.tokens for p in groups[-1] + tail) <= previous_target:
                    groups[-1].extend(tail)
                    current, size = [], 0
            if current and (
                section.chunking == "apart"
                or before == "apart"
                or (size >= self.policy.min_tokens and before != "with_next")
            ):
                groups.append(current)
                current, size = [], 0
            if current:  # a small section joins: its headings stay lines
                shown = self.paths[id(previous)] if previous is not None else []
                for title in new_headings(shown, headings):
                    piece = _Piece(
                        title,
                        self.count(title) + JOIN_SLACK,
                        section,
                        section.blocks[0],
                        heading=True,
                    )
                    current.append(piece)
                    size += piece.tokens
            for piece in self._pieces(section, target):
                full = size + piece.tokens > target
                if current and (full or (size >= target * 7 // 10 and _is_anchor(piece))):
                    # a lead-in ("Example:", a table's caption) goes with what it introduces
                    carried = carried_lead_in(current, piece, target, self.captions_above)
                    del current[len(current) - len(carried) :]
                    # headings left at the end (a joined section's, the carried lead-in's):
                    # the next chunk's heading path has them
                    while len(current) > 1 and current[-1].heading:
                        current.pop()
                    groups.append(current)
                    current = self._overlap(current, section)
                    if carried:  # without the overlap if both would not fit with `piece`
                        if sum(p.tokens for p in current + carried) + piece.tokens > target:
                            current = []
                        current += carried
                    size = sum(p.tokens for p in current)
                current.append(piece)
                size += piece.tokens
            previous, previous_target = section, target
        if current:
            groups.append(current)
        # A last small chunk joins the one before it when both fit together.
        if len(groups) >= 2:
            last_size = sum(p.tokens for p in groups[-1] if not p.overlap)
            before = sum(p.tokens for p in groups[-2])
            policy_says = groups[-1][0].section.chunking or groups[-2][-1].section.chunking
            if (
                not policy_says
                and last_size < self.policy.min_tokens
                and before + last_size <= self.policy.target_tokens
            ):
                tail = [p for p in groups.pop() if not p.overlap]
                if groups[-1][-1].section is not tail[0].section:
                    head = tail[0].section
                    shown = self.paths[id(groups[-1][-1].section)]
                    titles = new_headings(shown, self.paths[id(head)])
                    tail[:0] = [_Piece(t, 1, head, head.blocks[0], heading=True) for t in titles]
                groups[-1].extend(tail)
        for pieces in groups:
            self._emit(chapter, pieces)

    def _split_tail(
        self, current: list[_Piece], groups: list[list[_Piece]], section: Section | None
    ) -> bool:
        """`current` holds only the end of `section`, whose text began in the chunk before, and
        less than `min_tokens` of it: the next section would join it and, being most of the
        chunk's text, be cited for the end of this one."""
        return (
            section is not None
            and bool(groups)
            and any(p.section is section and not p.heading for p in groups[-1])
            and all(p.section is section for p in current)
            and sum(p.tokens for p in current if not p.overlap) < self.policy.min_tokens
        )

    def _prefix(self, headings: list[str]) -> str:
        """The book's title and the chunk's headings; a top heading that is the title (a
        Markdown file's `# run`, an EPUB's title page) once, not twice."""
        if headings and self.doc.title and edge_key(headings[0]) == edge_key(self.doc.title):
            headings = headings[1:]
        return " › ".join([self.doc.title, *headings]) if self.doc.title else " › ".join(headings)

    def _pieces(self, section: Section, target: int) -> list[_Piece]:
        pieces = []
        for block in section.blocks:
            # code and tables are counted exactly: their tokens a word are not the prose's
            count = self.count.exactly if block.kind in _EXACT_KINDS else self.count
            n = count(block.text) + JOIN_SLACK
            if n <= target:
                pieces.append(_Piece(block.text, n, section, block))
                continue
            before = pieces[-1] if pieces else None
            room = target - room_for_lead_in(before, block, target, self.captions_above)
            parts = self._split(block, room, count)
            header = table_header(block.text) if block.kind == "table" else None
            spans = block_lines(block, parts, header)
            for n, part in enumerate(parts):
                lines = spans[n] if spans else None
                pieces.append(_Piece(part, count(part) + JOIN_SLACK, section, block, lines=lines))
        return pieces

    def _split(self, block: Block, target: int, count: TokenCounter) -> list[str]:
        """A block too long for one chunk in parts; each part of a table with a header row
        (a Markdown table: a `|---|` line under it) starts with that header, so the rows of a
        later part still say what their columns are."""
        header = table_header(block.text) if block.kind == "table" else None
        if header is None:
            return split_block(block.text, count, target)
        body = block.text[len(header) :].lstrip("\n")
        room = target - count(header) - JOIN_SLACK
        if room < target // 2:  # a header that long leaves no room for rows
            return split_block(block.text, count, target)
        return [f"{header}\n{part}" for part in split_block(body, count, room)]

    def _overlap(self, emitted: list[_Piece], section: Section) -> list[_Piece]:
        """The end of the previous chunk, when it is the same section, as the next one's start."""
        last = emitted[-1]
        if last.section is not section or last.block.kind in ("code", "table"):
            return []
        budget = self.policy.overlap_tokens
        taken: list[str] = []
        used = 0
        for sentence in reversed(SENTENCE_END.split(last.text)):
            n = self.count(sentence) + JOIN_SLACK
            if used + n > budget:
                break
            taken.insert(0, sentence)
            used += n
        if not taken or len(taken) == len(SENTENCE_END.split(last.text)):
            return []  # nothing fits, or the whole piece would repeat
        return [_Piece(" ".join(taken), used, section, last.block, overlap=True, lines=last.lines)]

    def _main_section(self, pieces: list[_Piece]) -> int:
        """The id of the section most of the chunk's text belongs to (on a tie, the first): a
        chunk that ends a section and starts the next is cited where it mostly is."""
        share: dict[int, int] = {}
        for piece in [p for p in pieces if not p.heading] or pieces:
            share[id(piece.section)] = share.get(id(piece.section), 0) + len(piece.text)
        return max(share, key=share.__getitem__)

    def _emit(self, chapter: Section | None, pieces: list[_Piece]) -> None:
        """Append the chunk of `pieces` (split again if it is over the window)."""
        main = self._main_section(pieces)
        headings = self.paths[main]
        content = _join(pieces)
        prefix = self._prefix(headings)
        embed_text = f"{prefix}\n\n{content}" if prefix else content
        tokens = self.count(prefix) + 2 + sum(p.tokens for p in pieces) + self.count.overhead
        if tokens > self.policy.max_tokens * 4 // 5:
            tokens = self.exact(embed_text)
            if tokens > self.policy.max_tokens:
                if len(pieces) == 1:
                    parts = split_block(pieces[0].text, self.exact, self.policy.target_tokens // 2)
                    one = pieces[0]
                    pieces = [
                        _Piece(t, self.exact(t), one.section, one.block, lines=one.lines)
                        for t in parts
                    ]
                half = max(1, len(pieces) // 2)
                self._emit(chapter, pieces[:half])
                self._emit(chapter, pieces[half:])
                return
        sections = list(dict.fromkeys(p.section.title for p in pieces if p.section.title))
        cited = self.cited.get(main, chapter.title if chapter else None)
        if self._last_cited != (id(chapter), cited):
            self._last_cited, self._in_chapter = (id(chapter), cited), 0
        self._in_chapter += 1
        structure: dict[str, Any] = {
            "book": self.doc.title,
            "chapter": cited,
            "section": headings[-1] if headings else None,
            "heading_path": headings,
            "position_in_chapter": self._in_chapter - 1,
        }
        if len(sections) > 1:
            structure["sections"] = sections
        pages = [p for piece in pieces for p in (piece.block.page, piece.block.last_page) if p]
        if pages:
            first, last = min(pages), max(pages)
            if first == last:
                structure["page"] = first
            else:
                structure["page_start"], structure["page_end"] = first, last
            labels = self.doc.page_labels
            if labels and last <= len(labels) and labels[first - 1]:
                structure["page_label"] = labels[first - 1]
                if last != first and labels[last - 1] != labels[first - 1]:
                    structure["page_label_end"] = labels[last - 1]
        lines = [x for piece in pieces for x in piece.line_range() if x]
        if lines:
            structure["line_start"], structure["line_end"] = min(lines), max(lines)
        self.chunks.append(
            Chunk(
                position=len(self.chunks),
                content=content,
                embed_text=embed_text,
                structure=structure,
                lang=chunk_language(pieces, content),
                tokens=tokens,
                content_hash=hashlib.sha256(embed_text.encode()).hexdigest(),
                metadata=dict(self.metadata),
                lemmas=lemma_text(content),
                parts=tuple(chunk_parts(content)),
            )
        )


def _is_anchor(piece: _Piece) -> bool:
    """A block where a chunk may end early, chosen by its own text (content-defined chunking).

    Greedy packing alone shifts every later boundary of a section when one paragraph changes
    length; ending chunks at content-chosen blocks makes the boundaries after an edit fall back
    in step with the old ones, so an edit re-embeds a chunk or two, not the rest of the section.
    """
    return stable_bucket(piece.text) % 2 == 0


def _join(pieces: list[_Piece]) -> str:
    """Parts of one block rejoin as they were split (space or line); blocks with a blank line;
    a joining section's headings as lines of their own."""
    text = pieces[0].text
    for before, piece in itertools.pairwise(pieces):
        if piece.heading:
            text += "\n" if before.heading else "\n\n"
        elif piece.block is not before.block:
            text += "\n\n"
        elif (
            before.heading
            or piece.block.kind in ("code", "table", "list")
            or "\n" in piece.block.text
        ):
            text += "\n"
        else:
            text += " "
        text += piece.text
    return text
