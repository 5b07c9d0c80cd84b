"""What one document may cost: file size, unpacked archive size and members, pages,
characters and chunks. Over a budget, indexing stops with `OverBudget`, naming the budget and
its setting, before the expensive work where it can (an archive is measured from its
directory, never unpacked to find out)."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from mirage_pipeline.parsing.model import ParsedDocument, ParseError

MB = 1024 * 1024
_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}  # all EPUB allows; streamed in bounds


class OverBudget(ParseError):
    """A document exceeds one of its budgets; the message names the budget and its setting."""


@dataclass(frozen=True)
class Budgets:
    """Per-document limits (the MIRAGE_MAX_* settings)."""

    file_bytes: int = 512 * MB  # MIRAGE_MAX_FILE_MB
    unzipped_bytes: int = 512 * MB  # MIRAGE_MAX_UNZIPPED_MB
    zip_members: int = 10_000  # MIRAGE_MAX_ZIP_MEMBERS
    pages: int = 10_000  # MIRAGE_MAX_PAGES
    characters: int = 20_000_000  # MIRAGE_MAX_CHARACTERS
    chunks: int = 10_000  # MIRAGE_MAX_CHUNKS


def _over(what: str, limit: str, setting: str, found: str) -> OverBudget:
    return OverBudget(f"over the budget of {limit} {what} ({setting}): {found}")


def check_file_size(size: int, budgets: Budgets) -> None:
    if size > budgets.file_bytes:
        raise _over(
            "per file",
            f"{budgets.file_bytes // MB} MB",
            "MIRAGE_MAX_FILE_MB",
            f"the file has {size / MB:.0f} MB",
        )


def check_archive(data: bytes, budgets: Budgets) -> None:
    """Refuse a ZIP whose directory declares too many members or too many unpacked bytes.

    Python's zipfile never returns more bytes than a member declares (and then fails its CRC),
    so the declared sizes bound what parsing can unpack.
    """
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return  # the parser says what is wrong with it
    if len(members) > budgets.zip_members:
        raise _over(
            "members per archive",
            f"{budgets.zip_members:,}",
            "MIRAGE_MAX_ZIP_MEMBERS",
            f"the archive holds {len(members):,}",
        )
    odd = sorted({m.compress_type for m in members} - _ZIP_METHODS)
    if odd:
        raise ParseError(
            f"corrupt EPUB: members compressed with method {odd[0]} (only stored and deflate "
            "are allowed in an EPUB)"
        )
    unpacked = sum(m.file_size for m in members)
    if unpacked > budgets.unzipped_bytes:
        raise _over(
            "unpacked per archive",
            f"{budgets.unzipped_bytes // MB} MB",
            "MIRAGE_MAX_UNZIPPED_MB",
            f"its members unpack to {unpacked / MB:,.0f} MB",
        )


def check_pdf_pages(data: bytes, budgets: Budgets) -> None:
    import pymupdf

    try:
        with pymupdf.open(stream=data, filetype="pdf") as pdf:
            pages = pdf.page_count
    except Exception:
        return  # the parser says what is wrong with it
    _check_pages(pages, budgets)


def _check_pages(pages: int, budgets: Budgets) -> None:
    if pages > budgets.pages:
        raise _over(
            "pages per document",
            f"{budgets.pages:,}",
            "MIRAGE_MAX_PAGES",
            f"the document has {pages:,}",
        )


def _check_characters(count: int, budgets: Budgets) -> None:
    if count > budgets.characters:
        raise _over(
            "characters per document",
            f"{budgets.characters:,}",
            "MIRAGE_MAX_CHARACTERS",
            f"the document has {count:,}",
        )


def check_text_size(data: bytes, budgets: Budgets) -> None:
    """Plain text and Markdown: refuse before parsing when the characters are over budget."""
    if len(data) > budgets.characters:  # a character takes at least one byte
        _check_characters(len(data.decode("utf-8", errors="replace")), budgets)


def check_parsed(doc: ParsedDocument, budgets: Budgets) -> None:
    """Pages and characters of a parsed document."""
    if doc.pages:
        _check_pages(doc.pages, budgets)
    _check_characters(doc.root.text_length(), budgets)


def check_chunks(count: int, budgets: Budgets) -> None:
    if count > budgets.chunks:
        raise _over(
            "chunks per document",
            f"{budgets.chunks:,}",
            "MIRAGE_MAX_CHUNKS",
            f"the document makes {count:,}",
        )
