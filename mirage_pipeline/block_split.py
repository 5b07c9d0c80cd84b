"""A block too long for one chunk, cut into consecutive parts that each fit: at lines, then
sentences, then between words — never inside a word (a single over-long "word" by characters)."""

from __future__ import annotations

import re

from mirage_pipeline.parsing.model import Block
from mirage_pipeline.token_estimate import TokenCounter

SENTENCE_END = re.compile(r"(?<=[.!?…;:])\s+")
# Per-piece slack for the tokens a join adds (separators, merges across the boundary).
JOIN_SLACK = 1


def split_block(text: str, count: TokenCounter, target: int) -> list[str]:
    """Consecutive parts of a long block, each within `target`: lines, sentences, then words."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    units = lines if len(lines) > 1 else [text]
    parts: list[str] = []
    for unit in units:
        parts.extend(_split_sentences(unit, count, target))
    merged: list[str] = []
    size = 0
    joiner = "\n" if len(lines) > 1 else " "
    for part in parts:
        n = count(part) + JOIN_SLACK
        if merged and size + n <= target:
            merged[-1] = merged[-1] + joiner + part
            size += n
        else:
            merged.append(part)
            size = n
    return merged


def _split_sentences(text: str, count: TokenCounter, target: int) -> list[str]:
    if count(text) <= target:
        return [text]
    sentences = [s for s in SENTENCE_END.split(text) if s]
    if len(sentences) == 1:
        sentences = text.split(" ")  # one endless "sentence": cut between words
    out: list[str] = []
    current, size = "", 0
    for sentence in sentences:
        n = count(sentence) + JOIN_SLACK
        if current and size + n <= target:
            current, size = f"{current} {sentence}", size + n
            continue
        if current:
            out.append(current)
        if n <= target:
            current, size = sentence, n
        elif " " in sentence.strip():
            out.extend(_split_sentences_by_words(sentence, count, target))
            current, size = "", 0
        else:  # a single "word" longer than the window (a URL, base64): cut by characters
            step = max(1, len(sentence) * target // (n + 1))
            out.extend(sentence[i : i + step] for i in range(0, len(sentence), step))
            current, size = "", 0
    if current:
        out.append(current)
    return out


def _split_sentences_by_words(text: str, count: TokenCounter, target: int) -> list[str]:
    words = text.split(" ")
    return _split_sentences(" ".join(words[: len(words) // 2]), count, target) + _split_sentences(
        " ".join(words[len(words) // 2 :]), count, target
    )


_FRAGMENT = 60  # characters of a part's first and last line looked for in its block


def line_spans(text: str, parts: list[str], header: str | None = None) -> list[tuple[int, int]]:
    """Where each of `text`'s consecutive `parts` (split_block's, `header` before each, as a
    table's parts repeat it) stands in it: its first and last line, 0-based; [] when a part is
    not found. A part is `text`'s own characters, blank lines and runs of spaces aside, so it
    ends no sooner than its length after its start."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for part in parts:
        if header is not None and part.startswith(header + "\n"):
            part = part[len(header) + 1 :]
        first = part.split("\n", 1)[0][:_FRAGMENT]
        start = text.find(first, pos) if first else -1
        last = part.rsplit("\n", 1)[-1][-_FRAGMENT:]
        end = text.find(last, max(start, start + len(part) - len(last))) if start >= 0 else -1
        if end < 0:
            return []
        pos = end + len(last)
        spans.append((text.count("\n", 0, start), text.count("\n", 0, pos)))
    if spans:  # the block's first and last lines (a table's header, blank lines) are its parts'
        spans[0] = (0, spans[0][1])
        spans[-1] = (spans[-1][0], text.count("\n"))
    return spans


def block_lines(block: Block, parts: list[str], header: str | None) -> list[tuple[int, int]]:
    """The source lines of each part of a block split for its size, when the block's text has
    its source's lines (a listing, a table, a text file's paragraph): each chunk of a 300-line
    listing cited the whole listing's lines. [] when it has not."""
    start, end = block.line_start, block.line_end
    if start is None or end is None or end - start != block.text.count("\n"):
        return []
    return [(start + first, start + last) for first, last in line_spans(block.text, parts, header)]


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def table_header(text: str) -> str | None:
    """A Markdown table's header: its first line and the `|---|` rule under it, or None (each
    part of a table split between rows starts with it)."""
    lines = text.split("\n", 2)
    if len(lines) == 3 and _TABLE_RULE.match(lines[1]) and "|" in lines[0]:
        return f"{lines[0]}\n{lines[1]}"
    return None
