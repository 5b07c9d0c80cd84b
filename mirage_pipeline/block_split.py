"""A block too long for one chunk, cut into consecutive parts that each fit: at lines, then
sentences, then between words — never inside a word (a single over-long "word" by characters)."""

from __future__ import annotations

import re

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
