"""Footnotes of Markdown books (pandoc's, GitHub's, MkDocs' `[^1]` syntax), which CommonMark
does not know: a note's text stood where it was written — at the file's end, under its last
section, so a citation named the wrong chapter — as "[^1]: text", and its references as
"[^1]" in the text. A note now follows the paragraph that first refers to it, numbered notes
read as raised marks ("слово¹", "¹ Текст сноски"), as EPUB and PDF notes do; one whose text
is a single word or address (`[^1]: https://…`), which markdown-it takes for a link's
definition, is kept too."""

from __future__ import annotations

import re
from typing import Any

from mirage_pipeline.parsing.model import SUPERSCRIPT, Block, Section

_DEFINITION = re.compile(r"^\[\^([\w.-]+)\]:[ \t]*")
_REFERENCE = re.compile(r"\[\^([\w.-]+)\](?!:)")
# A code span (its "[^x]" is code: "[^[:punct:]]"): a whole run of backticks, to the next run
# as long. Taken whole (possessive), not shortened to find a closing run: a line of 800
# backticks tried every length from every start (cubic: 22 s).
CODE_SPAN = re.compile(r"(?<!`)(`++)(?:.|\n)*?(?<!`)\1(?!`)")
_PROSE = ("paragraph", "list", "quote", "table")
_INDENTED = re.compile(r"^(?: {4}|\t)")


def place_notes(root: Section, references: dict[str, Any]) -> None:
    """Footnotes under `root` moved after the paragraph first referring to them, their marks
    raised (in place); `references` are markdown-it's link definitions, where a one-word
    note went."""
    sections = [section for _, section in root.walk()]
    for section in sections:
        blocks = [part for block in section.blocks for part in _one_note_each(block)]
        section.blocks = _with_continuations(blocks)
    notes: dict[str, tuple[Section, Block]] = {}
    for section in sections:
        for block in section.blocks:
            found = _DEFINITION.match(block.text) if block.kind == "paragraph" else None
            if found:
                notes.setdefault(found[1], (section, block))
    for label, target in references.items():
        if label.startswith("^") and label[1:] not in notes and isinstance(target, dict):
            text = " ".join(part for part in (target.get("href"), target.get("title")) if part)
            notes[label[1:]] = (root, Block("paragraph", f"[^{label[1:]}]: {text}"))
    if not notes and not any(_REFERENCE.search(b.text) for s in sections for b in s.blocks):
        return
    after: dict[int, list[Block]] = {}  # id of the block first referring to notes → them
    moved: set[int] = set()
    for section in sections:
        for block in section.blocks:
            if block.kind not in _PROSE or _DEFINITION.match(block.text):
                continue
            for label in dict.fromkeys(_REFERENCE.findall(block.text)):
                note = notes.get(label)
                if note is not None and id(note[1]) not in moved:
                    moved.add(id(note[1]))
                    after.setdefault(id(block), []).append(note[1])
                    # cited at its paragraph: a chunk of both spanned the file to its notes
                    note[1].line_start, note[1].line_end = block.line_start, block.line_end
    for section in sections:
        kept: list[Block] = []
        for block in section.blocks:
            if id(block) not in moved:
                kept += [block, *after.get(id(block), ())]
        section.blocks = kept
    for section in sections:
        for block in section.blocks:
            if block.kind in _PROSE:
                block.text = _marks(block.text, notes)


def _one_note_each(block: Block) -> list[Block]:
    """A paragraph of notes written one under the other, no blank line between, as a block
    each (their lines counted on)."""
    if block.kind != "paragraph" or not _DEFINITION.match(block.text) or "\n[^" not in block.text:
        return [block]
    lines = block.text.split("\n")
    starts = [i for i, line in enumerate(lines) if _DEFINITION.match(line)]
    first = block.line_start
    return [
        Block(
            "paragraph",
            "\n".join(lines[start:end]),
            line_start=None if first is None else first + start,
            line_end=None if first is None else first + end - 1,
        )
        for start, end in zip(starts, [*starts[1:], len(lines)], strict=True)
    ]


def _with_continuations(blocks: list[Block]) -> list[Block]:
    """A note's further paragraphs, indented under it as pandoc writes them, joined to it:
    CommonMark read them as an indented code block."""
    kept: list[Block] = []
    for block in blocks:
        before = kept[-1] if kept else None
        if (
            before is not None
            and before.kind == "paragraph"
            and _DEFINITION.match(before.text)
            and block.kind == "code"
            and all(_INDENTED.match(line) for line in block.text.split("\n") if line.strip())
        ):
            lines = [_INDENTED.sub("", line, count=1) for line in block.text.split("\n")]
            before.text = "\n".join([before.text, *(line for line in lines if line.strip())])
            before.line_end = block.line_end or before.line_end
            continue
        kept.append(block)
    return kept


def _marks(text: str, notes: dict[str, Any]) -> str:
    """ "[^1]" as "¹" after its word, "[^1]: " opening a note as "¹ "; a named one ("[^tolstoy]")
    goes from the text and stays a note's label. A reference to no note is text ("[^abc]"
    of a regular expression)."""
    text = _DEFINITION.sub(lambda found: f"{_mark(found[1]) or found[1] + ':'} ", text)
    if "[^" not in text:
        return text

    def raised(found: re.Match[str]) -> str:
        return _mark(found[1]) if found[1] in notes else found[0]

    out, at = [], 0
    for span in CODE_SPAN.finditer(text) if "`" in text else ():
        out += [_REFERENCE.sub(raised, text[at : span.start()]), span[0]]
        at = span.end()
    return "".join([*out, _REFERENCE.sub(raised, text[at:])])


def _mark(label: str) -> str:
    return label.translate(SUPERSCRIPT) if label.isdigit() else ""
