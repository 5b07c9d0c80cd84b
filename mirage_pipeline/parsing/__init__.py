"""Parsers by file type. Each turns bytes into a `ParsedDocument` or raises `ParseError`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import PurePosixPath

from mirage_pipeline.language import normalise_language, prevailing_language, same_alphabet
from mirage_pipeline.parsing import budgets as _budgets
from mirage_pipeline.parsing.back_index import drop_back_index
from mirage_pipeline.parsing.budgets import Budgets, OverBudget
from mirage_pipeline.parsing.lost_letters import check_document as check_lost_letters
from mirage_pipeline.parsing.model import ParsedDocument, ParseError
from mirage_pipeline.parsing.policy import MarkdownPolicy, apply_policy, load_policy
from mirage_pipeline.parsing.text_hyphens import rejoin_hyphenated
from mirage_pipeline.parsing.text_repair import repair_text

# PyMuPDF 2 requires pymupdf_layout and imports it with itself, which builds its ONNX layout
# model at once: ~1 s and ~50 MB in every process that opens a PDF, for the layout analysis and
# table detection of `Page.get_layout` and `find_tables`, which miRAGe never calls (it reads
# lines with `get_text` and finds its own tables). None in `sys.modules` makes that optional
# import fail as if the package were absent, and PyMuPDF works as it does without it. It must
# come before PyMuPDF's first import in the process (none of the imports above imports it;
# the parsers import it lazily); once PyMuPDF is imported, this changes nothing.
sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]

Parser = Callable[[bytes, str], ParsedDocument]
_LANGUAGE_SAMPLES = 64  # blocks spread over the document, not only its front matter


def _markdown(data: bytes, name: str) -> ParsedDocument:
    from mirage_pipeline.parsing.markdown import parse_markdown

    return parse_markdown(data, name)


def _pdf(data: bytes, name: str) -> ParsedDocument:
    from mirage_pipeline.parsing.pdf import parse_pdf

    return parse_pdf(data, name)


def _epub(data: bytes, name: str) -> ParsedDocument:
    from mirage_pipeline.parsing.epub import parse_epub

    return parse_epub(data, name)


def _fb2(data: bytes, name: str) -> ParsedDocument:
    from mirage_pipeline.parsing.fb2 import parse_fb2

    return parse_fb2(data, name)


def _text(data: bytes, name: str) -> ParsedDocument:
    """Plain text, or Markdown saved as text (a spec.txt, a README.txt: text.is_markdown)."""
    from mirage_pipeline.parsing.text import decode_text, is_markdown, parse_text
    from mirage_pipeline.parsing.text_runs import split_lines

    warnings: list[str] = []
    text = decode_text(data, warnings)  # once: charset-normalizer reads a legacy file slowly
    lines = split_lines(text)
    if is_markdown(lines):
        from mirage_pipeline.parsing.markdown import parse_markdown

        return parse_markdown(data, name)
    return parse_text(text, lines, warnings, name)


# suffix → (file type, parser)
PARSERS: dict[str, tuple[str, Parser]] = {
    ".md": ("markdown", _markdown),
    ".markdown": ("markdown", _markdown),
    ".pdf": ("pdf", _pdf),
    ".epub": ("epub", _epub),
    ".fb2": ("fb2", _fb2),
    ".txt": ("text", _text),
}


def file_type_of(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in PARSERS:
        return PARSERS[suffix][0]
    return suffix.lstrip(".") or "unknown"


def parse_document(
    data: bytes,
    path: str,
    policy: MarkdownPolicy | None = None,
    budgets: Budgets | None = None,
) -> ParsedDocument:
    """Parse a file by its suffix; unsupported types and empty files raise `ParseError`, a
    document over one of its `budgets` (default: the default budgets) `OverBudget`.

    `policy` is the project's Markdown indexing policy (see `parsing.policy`), if it has one.
    """
    suffix = PurePosixPath(path).suffix.lower()
    if suffix not in PARSERS:
        supported = ", ".join(sorted(PARSERS))
        raise ParseError(
            f"unsupported file type {suffix or '(no extension)'!r}; miRAGe indexes {supported}"
        )
    if not data:
        raise ParseError("empty file")
    budgets = budgets or Budgets()
    _budgets.check_file_size(len(data), budgets)
    if suffix == ".epub":
        _budgets.check_archive(data, budgets)
    elif suffix == ".pdf":
        _budgets.check_pdf_pages(data, budgets)
    elif suffix in (".md", ".markdown", ".txt"):
        _budgets.check_text_size(data, budgets)
    doc = PARSERS[suffix][1](data, PurePosixPath(path).name)
    _budgets.check_parsed(doc, budgets)
    doc = drop_back_index(repair_text(doc))
    check_lost_letters(doc)
    if doc.format in ("text", "markdown"):
        doc = rejoin_hyphenated(doc)
    return apply_policy(with_language(doc), policy)


def with_language(doc: ParsedDocument) -> ParsedDocument:
    """Every document's metadata names its language (shown in Dagster): the one its source
    declares, else the one most of its text is in (Markdown, text, undeclared EPUB and FB2).
    A declared language of the other alphabet than the text's is not the text's: a word
    processor declares its user's locale ("en-US" on every Russian PDF LibreOffice printed on
    an English system), a converter may declare its default."""
    declared = doc.metadata.get("language")
    blocks = [b for _, s in doc.root.walk() for b in s.blocks if b.text.strip()]
    blocks = [b for b in blocks if b.kind != "code"] or blocks  # prose tells, not listings
    sample = blocks[:: max(1, len(blocks) // _LANGUAGE_SAMPLES)]
    if declared:
        told = prevailing_language((b.text, None) for b in sample)
        if told is None or same_alphabet(normalise_language(declared), told):
            return doc
        language: str | None = told
    else:
        language = prevailing_language((b.text, b.lang) for b in sample)
    if language:
        doc.metadata["language"] = language
    return doc


__all__ = [
    "PARSERS",
    "Budgets",
    "MarkdownPolicy",
    "OverBudget",
    "ParseError",
    "ParsedDocument",
    "file_type_of",
    "load_policy",
    "parse_document",
]
