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


def _enforce(
    found: float, limit: int, what: str, setting: str, said: str, mb: bool = False
) -> None:
    """OverBudget naming the budget, its setting and what was found, when `found` > `limit`."""
    if found > limit:
        shown = f"{limit // MB} MB" if mb else f"{limit:,}"
        raise OverBudget(f"over the budget of {shown} {what} ({setting}): {said}")


def check_file_size(size: int, budgets: Budgets) -> None:
    said = f"the file has {size / MB:.0f} MB"
    _enforce(size, budgets.file_bytes, "per file", "MIRAGE_MAX_FILE_MB", said, mb=True)


def check_archive(data: bytes, budgets: Budgets) -> None:
    """Refuse a ZIP whose directory declares too many members or too many unpacked bytes.

    Python's zipfile never returns more bytes than a member declares (and then fails its CRC),
    so the declared sizes bound what parsing can unpack.
    """
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return  # the parser says what is wrong with it
    said = f"the archive holds {len(members):,}"
    _enforce(
        len(members), budgets.zip_members, "members per archive", "MIRAGE_MAX_ZIP_MEMBERS", said
    )
    odd = sorted({m.compress_type for m in members} - _ZIP_METHODS)
    if odd:
        raise ParseError(
            f"corrupt EPUB: members compressed with method {odd[0]} (only stored and deflate "
            "are allowed in an EPUB)"
        )
    unpacked = sum(m.file_size for m in members)
    said = f"its members unpack to {unpacked / MB:,.0f} MB"
    limit = budgets.unzipped_bytes
    _enforce(unpacked, limit, "unpacked per archive", "MIRAGE_MAX_UNZIPPED_MB", said, mb=True)


def check_pdf_pages(data: bytes, budgets: Budgets) -> None:
    import pymupdf

    try:
        with pymupdf.open(stream=data, filetype="pdf") as pdf:
            pages = pdf.page_count
    except Exception:
        return  # the parser says what is wrong with it
    _check_pages(pages, budgets)


def _check_pages(pages: int, budgets: Budgets) -> None:
    said = f"the document has {pages:,}"
    _enforce(pages, budgets.pages, "pages per document", "MIRAGE_MAX_PAGES", said)


def _check_characters(count: int, budgets: Budgets) -> None:
    said = f"the document has {count:,}"
    _enforce(count, budgets.characters, "characters per document", "MIRAGE_MAX_CHARACTERS", said)


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
    said = f"the document makes {count:,}"
    _enforce(count, budgets.chunks, "chunks per document", "MIRAGE_MAX_CHUNKS", said)
