"""A book's back-of-book index ("Index", "Предметный указатель") is not text to search: its
entries ("\\pageref, 35, 74 \\pagestyle, 13", "Bibliography, creating, Environments") name
every command and term of the book, so they match almost any query and crowd the passages
that explain them out of the results. Under a section titled as an index in the back half of
the book, the blocks that read as entries — page-number lists, lists and tables of terms — are
left out; prose there (a note on how to read the index, a bibliography or a change log the
outline filed under it) stays, and so does the index's own heading — not the letter groups under
it ("Symbols", "A" … "Z") left with nothing in them."""

from __future__ import annotations

import re
import statistics

from mirage_pipeline.parsing.model import ParsedDocument

# its number, if any: "12", "A.", a part's Roman "VI" (gnuplot's "VI Index")
_NUMBER = r"(?:(?:[\d.]+|(?-i:[IVXLC]+|[A-Z])\.?)\s+)?"
_INDEX_TITLE = re.compile(
    rf"^{_NUMBER}(?:(?:general|alphabetical|subject|command|concept)\s+)?index"
    r"(?:\s+of\s+[\w\s]+)?(?:\s+\d+)?$"
    rf"|^{_NUMBER}(?:(?:предметный|алфавитный)\s+)?указатель(?:\s+[\w\s]+)?(?:\s+\d+)?$",
    re.IGNORECASE,
)
_PAGE_NUMBER = re.compile(r"^(?:\d+|[ivxlc]+)(?:[–-]\d+)?[,;.]?$")
_PUNCTUATION = re.compile(r"^[\W_]+$")  # dot leaders, "…", "|" between cells
_ENTRY_SHARE = 0.25  # of the words that are page numbers: an index entry, not prose
_BACK_HALF = 0.5
_TERM_CHARS = 25  # an index's cells are terms
_SENTENCE_SHARE = 0.2  # … and few of them end as a sentence does


def drop_back_index(doc: ParsedDocument) -> ParsedDocument:
    """Leave out the entries of `doc`'s back-of-book index, in place; `metadata` counts them."""
    sections = doc.root.walk()
    total = sum(len(b.text) for _, s in sections for b in s.blocks)
    seen = 0
    dropped = 0
    for _, section in sections:
        if total and seen >= _BACK_HALF * total and _INDEX_TITLE.match(section.title.strip()):
            for _, inner in section.walk():
                kept = [b for b in inner.blocks if not _is_entry(b.kind, b.text)]
                dropped += len(inner.blocks) - len(kept)
                inner.blocks = kept
            section.children = [c for c in section.children if c.text_length()]
        seen += sum(len(b.text) for b in section.blocks)
    if dropped:
        doc.metadata["index_blocks_dropped"] = dropped
    return doc


def _is_entry(kind: str, text: str) -> bool:
    """Lists and tables of terms (an e-book's index links its entries, no page numbers:
    Sphinx's "reboot | reboot-required"), page-number lists, the letters' bar ("A | B | C")."""
    if kind == "list":
        return True
    if kind == "table" and _of_terms(text):
        return True
    words = [w for w in text.split() if not _PUNCTUATION.match(w)]
    numbers = sum(1 for w in words if _PAGE_NUMBER.match(w))
    if words and all(len(w) == 1 for w in words):
        return True
    return bool(words) and numbers >= _ENTRY_SHARE * len(words)


def _of_terms(table: str) -> bool:
    """A table of terms, as an e-book's linked index is ("reboot | reboot-required"), not of
    sentences (babel's table of shorthands, which an outline filed under "Index")."""
    cells = [c.strip() for row in table.split("\n") for c in row.split(" | ") if c.strip()]
    sentences = sum(1 for c in cells if c.endswith((".", "!", "?")))
    return (
        bool(cells)
        and statistics.median(map(len, cells)) <= _TERM_CHARS
        and sentences < _SENTENCE_SHARE * len(cells)
    )
