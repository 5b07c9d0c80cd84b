"""Parsers by file type. Each turns bytes into a `ParsedDocument` or raises `ParseError`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from mirage_pipeline.parsing.model import Block, ParsedDocument, ParseError, Section

Parser = Callable[[bytes, str], ParsedDocument]


def _markdown(data: bytes, name: str) -> ParsedDocument:
    from mirage_pipeline.parsing.markdown import parse_markdown

    return parse_markdown(data, name)


# suffix → (file type, parser); the parsing issue adds pdf, epub, fb2 and txt here.
PARSERS: dict[str, tuple[str, Parser]] = {
    ".md": ("markdown", _markdown),
    ".markdown": ("markdown", _markdown),
}


def file_type_of(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in PARSERS:
        return PARSERS[suffix][0]
    return suffix.lstrip(".") or "unknown"


def parse_document(data: bytes, path: str) -> ParsedDocument:
    """Parse a file by its suffix; unsupported types and empty files raise `ParseError`."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix not in PARSERS:
        supported = ", ".join(sorted(PARSERS))
        raise ParseError(
            f"unsupported file type {suffix or '(no extension)'!r}; miRAGe indexes {supported}"
        )
    if not data:
        raise ParseError("empty file")
    return PARSERS[suffix][1](data, PurePosixPath(path).name)


__all__ = ["PARSERS", "Block", "ParseError", "ParsedDocument", "Section", "parse_document"]
