"""PDF (PyMuPDF): the outline gives the tree — or, when there is none, headings from font
statistics checked against the printed table of contents — and the body text is rebuilt into
paragraphs (`pdf_tree`) placed under the right section, with running headers, footers and page
numbers removed, footnotes set apart and line-end hyphenation undone."""

from __future__ import annotations

import re

import pymupdf

from mirage_pipeline.language import normalise_language
from mirage_pipeline.parsing import cyrillic_8bit, lost_letters, pdf_encodings, pdf_fonts
from mirage_pipeline.parsing.model import ParsedDocument, ParseError
from mirage_pipeline.parsing.pdf_contents import (
    apply_contents,
    drop_contents_section,
    read_contents,
)
from mirage_pipeline.parsing.pdf_contents_pages import CONTENTS_TITLE, drop_printed_contents
from mirage_pipeline.parsing.pdf_headings import detect_headings
from mirage_pipeline.parsing.pdf_lines import Line, PageLines, body_font_size, extract_lines
from mirage_pipeline.parsing.pdf_notes import find_footnotes
from mirage_pipeline.parsing.pdf_outline import (
    SLIDE_NAME,
    drop_outline_entries,
    front_headings,
    locate_outline,
    numbered_below,
    ordered_outline,
)
from mirage_pipeline.parsing.pdf_running import drop_running_lines, printed_labels
from mirage_pipeline.parsing.pdf_tables import find_tables
from mirage_pipeline.parsing.pdf_text import Vocabulary
from mirage_pipeline.parsing.pdf_tree import NOTE_MARKS, build_tree
from mirage_pipeline.parsing.text_repair import groff_hyphens

# A PDF where (nearly) no page has text, or with only a few characters per page on average,
# is a scan, or a broken build with an outline and no body (page numbers and stray URLs only).
# Pages with short prose (a line of words each) make a document all the same.
_PAGE_TEXT_MIN = 20
_TEXT_PAGES_MIN_SHARE = 0.1
_AVERAGE_CHARS_MIN = 50
_PROSE_PAGES_MIN_SHARE = 0.5
_PROSE = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}")

pymupdf.TOOLS.mupdf_display_errors(False)


def open_pdf(data: bytes) -> pymupdf.Document:
    """The document, or a `ParseError` naming why it cannot be read."""
    if not data:
        raise ParseError("empty file")
    if b"%PDF-" not in data[:1024]:
        raise ParseError("not a PDF: the file has no PDF header (another format named .pdf?)")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except pymupdf.EmptyFileError:
        raise ParseError("empty file") from None
    except Exception as exc:
        raise ParseError(f"corrupt PDF: {_reason(exc)}") from None
    if doc.needs_pass:
        raise ParseError("encrypted PDF: a password is required to open it")
    if doc.page_count == 0:
        raise ParseError("corrupt PDF: no page can be read (the file is damaged or truncated)")
    return doc


def _reason(exc: Exception) -> str:
    detail = str(exc).split(": '", 1)[0].strip() or type(exc).__name__
    return f"the file is damaged or truncated ({detail})"


def parse_pdf(data: bytes, name: str) -> ParsedDocument:
    doc = open_pdf(data)
    try:
        return _parse(doc, name)
    except (RuntimeError, ValueError) as exc:
        if isinstance(exc, ParseError):
            raise
        raise ParseError(f"corrupt PDF: {exc}") from None
    finally:
        doc.close()


def _parse(doc: pymupdf.Document, name: str) -> ParsedDocument:
    warnings: list[str] = []
    lang_tag = _lang_tag(doc)
    pages, encodings = _readable_lines(doc, lang_tag, warnings)
    metadata_in = doc.metadata or {}
    if metadata_in.get("encryption"):
        warnings.append(f"encrypted ({metadata_in['encryption']}) but readable without a password")
    folios: dict[int, int] = {}
    listings: set[int] = set()  # pages whose first listing goes on from the page before
    dropped = drop_running_lines(pages, folios, listings)
    contents = drop_printed_contents(pages)
    toc, repeated = ordered_outline(
        [
            (level, " ".join(title.split()), page)
            for level, title, page in doc.get_toc(simple=True)
            if title.strip() and not SLIDE_NAME.fullmatch(title.strip())
        ]
    )
    drop_outline_entries(pages, toc)
    lines = [line for page in pages for line in page.lines]
    page_starts = _page_starts(pages)
    if repeated:
        warnings.append(
            f"the PDF's outline repeats {repeated} entries out of page order: they were left out"
        )
    body = body_font_size(pages)
    words = Vocabulary(line.text for line in lines)  # the document's own: built once
    tables = find_tables(pages, body, doc, words)
    notes = find_footnotes(pages, body)
    # neither a table's bold header row nor a footnote is a heading
    cells = frozenset(id(line) for table in tables for line in table.lines) | notes.keys()
    if toc:
        headings = locate_outline(toc, lines, page_starts)
        headings = front_headings(lines, headings, body, cells) + headings
        headings = numbered_below(headings, lines, cells)
        source = "outline"
    else:
        headings = detect_headings(lines, body, cells)
        source = "font sizes"
        entries = read_contents(contents)
        placed = apply_contents(entries, headings, lines, page_starts) if entries else None
        if placed is not None:
            headings, source = placed, "printed contents and font sizes"
        if not headings:
            warnings.append("no outline and no headings found: the document is one section")
    title = _title(metadata_in.get("title") or "", pages, name)
    heading_lines = {id(lines[i]) for h in headings for i in h.lines}  # an outline's title
    tables = [t for t in tables if not any(id(ln) in heading_lines for ln in t.lines)]
    root = build_tree(lines, headings, tables, notes, words, listings)
    drop_contents_section(root)
    metadata = {
        "pages": doc.page_count,
        "structure_source": source,
        "running_lines_removed": dropped,
    }
    language = normalise_language(lang_tag)  # else the text's: parsing.with_language
    if language:
        metadata["language"] = language
    if encodings:
        metadata["legacy_encodings"] = encodings
    if contents:
        metadata["printed_contents_pages"] = [page.number for page in contents]
    if tables:
        metadata["tables"] = len(tables)
    if notes:
        metadata["footnotes"] = sum(notes.values())
    if metadata_in.get("author"):
        metadata["authors"] = [
            a.strip() for a in re.split(r"[;,]| and ", metadata_in["author"]) if a.strip()
        ]
    parsed = ParsedDocument(
        format="pdf",
        title=title,
        root=root,
        metadata=metadata,
        warnings=warnings,
        pages=doc.page_count,
        page_labels=_page_labels(doc) or printed_labels(folios, doc.page_count),
    )
    if "groff" in (metadata_in.get("creator") or "").lower():
        groff_hyphens(parsed)  # its options' hyphens are set as minus signs
    return parsed


def _page_labels(doc: pymupdf.Document) -> list[str]:
    """The PDF's page labels, page by page, when it has them and they are not the physical
    numbers: a citation then gives both ("p. 11, printed 1")."""
    try:
        if not doc.get_page_labels():
            return []
        labels = [_decoded_label(page.get_label()) for page in doc]
    except (RuntimeError, ValueError, KeyError, IndexError):
        return []  # a damaged label tree costs the printed numbers, not the document
    return labels if any(label != str(n) for n, label in enumerate(labels, 1)) else []


_HEX_PREFIX = re.compile(r"<([0-9A-Fa-f\s]*)>")


def _decoded_label(label: str) -> str:
    """A label whose prefix PyMuPDF hands back as the PDF's hex string, undecoded: "<FEFF>7"
    (an empty UTF-16 prefix) is "7", "<FEFF0031>" is "1"."""
    match = _HEX_PREFIX.match(label)
    if not match:
        return label
    digits = "".join(match.group(1).split())
    raw = bytes.fromhex(digits + "0" * (len(digits) % 2))  # an odd last digit is followed by 0
    if raw.startswith(b"\xfe\xff"):
        prefix = raw[2:].decode("utf-16-be", errors="replace")
    else:
        prefix = raw.decode("latin-1")
    return prefix + label[match.end() :]


def _readable_lines(
    doc: pymupdf.Document, lang_tag: str, warnings: list[str]
) -> tuple[list[PageLines], list[str]]:
    """The pages' lines, fonts in a legacy 8-bit encoding re-decoded and pages whose text
    layer cannot be read left out (each with a warning); and the encodings re-decoded."""
    samples: dict[str, list[str]] = {}
    pages = extract_lines(doc, samples=samples)
    if not pdf_fonts.needs_survey(pages):
        lost = _leave_out_lost(pages, warnings)
        _require_text(doc, [page for page in pages if page.number not in lost])
        return pages, []
    fonts = pdf_fonts.survey(doc, samples)
    plan = pdf_encodings.choose(fonts, lang_tag)
    encodings: list[str] = []
    if plan is not None:
        pdf_encodings.install_unicode_maps(doc, fonts, plan)
        pages = extract_lines(doc, plan.fix, plan.fonts, line_fix=plan.fix_line)
        for encoding, numbers in pdf_encodings.redecoded_pages(pages, plan).items():
            label = cyrillic_8bit.LABELS.get(encoding, encoding)
            warnings.append(
                f"{pdf_fonts.page_ranges(numbers)}: text re-decoded from {label}"
                f" ({plan.reason(encoding)})"
            )
            encodings.append(label)
    unreadable = pdf_fonts.unreadable_pages(pages, fonts)
    _leave_out(
        pages,
        unreadable,
        "the PDF's text layer cannot be read (fonts without a Unicode mapping); "
        "OCR is not supported",
        "text layer unreadable (fonts without a Unicode mapping), left out",
        warnings,
    )
    garbled = pdf_fonts.garbled_pages(pages)
    _leave_out(
        pages,
        garbled,
        f"the PDF's text is in an 8-bit encoding miRAGe cannot re-decode ({_GARBLED})",
        f"text in an 8-bit encoding that could not be re-decoded ({_GARBLED}), left out",
        warnings,
    )
    gone = {*unreadable, *garbled, *_leave_out_lost(pages, warnings)}
    _require_text(doc, [page for page in pages if page.number not in gone])
    return pages, encodings


_GARBLED = "another alphabet's letters read as Latin-1"


def _leave_out_lost(pages: list[PageLines], warnings: list[str]) -> list[int]:
    """Pages whose text layer lost its alphabet (lost_letters.py), left out; their numbers."""
    lost = [
        page.number
        for page in pages
        if lost_letters.page_lost(" ".join(line.text for line in page.lines))
    ]
    _leave_out(
        pages,
        lost,
        "the PDF's text layer lost its letters: each is one placeholder character"
        f" ({lost_letters.EXAMPLE}), as an OCR tool writes an alphabet it cannot; OCR is not"
        " supported",
        f"text layer without its letters ({lost_letters.EXAMPLE}), left out",
        warnings,
    )
    return lost


def _leave_out(
    pages: list[PageLines], numbers: list[int], error: str, warning: str, warnings: list[str]
) -> None:
    """Pages `numbers` emptied, with a warning naming them; `error` when no other page has
    text."""
    if not numbers:
        return
    left = set(numbers)
    if not any(page.lines for page in pages if page.number not in left):
        raise ParseError(error)
    for page in pages:
        if page.number in left:
            page.lines = []
    warnings.append(f"{pdf_fonts.page_ranges(numbers)}: {warning}")


def _require_text(doc: pymupdf.Document, pages: list[PageLines]) -> None:
    chars = [sum(len(line.text) for line in page.lines) for page in pages]
    with_text = sum(1 for c in chars if c >= _PAGE_TEXT_MIN)
    if (
        with_text >= max(1, _TEXT_PAGES_MIN_SHARE * len(pages))
        and sum(chars) / len(pages) >= _AVERAGE_CHARS_MIN
    ):
        return
    prose = sum(
        1
        for page, c in zip(pages, chars, strict=True)
        if c >= _PAGE_TEXT_MIN and any(_PROSE.search(line.text) for line in page.lines)
    )
    if prose and prose >= _PROSE_PAGES_MIN_SHARE * len(pages):
        return  # short pages of real text (a line each): a document, not a broken export
    found = f"{sum(chars)} characters of text on {len(pages)} pages"
    with_images = sum(1 for page in doc if page.get_images(full=False))
    if with_images >= len(pages) / 2:
        raise ParseError(f"scanned PDF without a text layer; OCR is not supported ({found})")
    why = "its outline has entries but their pages are empty; " if doc.get_toc() else ""
    raise ParseError(
        f"PDF without body text: {found}, and no scanned images either ({why}a broken export?);"
        " nothing to index"
    )


def _lang_tag(doc: pymupdf.Document) -> str:
    """The document's /Lang entry ("ru-RU"), if it has one."""
    kind, value = doc.xref_get_key(doc.pdf_catalog(), "Lang")
    return value if kind == "string" else ""


def _page_starts(pages: list[PageLines]) -> dict[int, int]:
    """Page number → index of its first line in the flat list (the next line for empty pages)."""
    starts: dict[int, int] = {}
    index = 0
    for page in pages:
        starts[page.number] = index
        index += len(page.lines)
    return starts


def _title(meta_title: str, pages: list[PageLines], name: str) -> str:
    """The metadata's title, unless it is a file name or a placeholder, or in Latin letters
    where the first page's title is Cyrillic (lshort-ukr's metadata names the English
    original); else the first page's biggest lines; else the file name. A contents page's
    heading names no document (xfig's manual, printed from HTML: "Contents" in its metadata
    and atop its first page) and counts as a placeholder."""
    meta_title = " ".join(meta_title.split())
    shown = _page_title(pages)
    if _contents_heading(shown):
        shown = ""
    if meta_title and not _placeholder(meta_title):
        if _CYRILLIC.search(meta_title):
            return meta_title
        return shown if shown and _CYRILLIC.search(shown) else meta_title
    return shown or name.rsplit(".", 1)[0]


def _placeholder(title: str) -> bool:
    """A metadata title that names no document: a file name, a template's, a contents page's."""
    return bool(
        re.search(r"\.(pdf|dvi|tex|docx?)$|^untitled|^microsoft word", title, re.I)
    ) or _contents_heading(title)


def _contents_heading(title: str) -> bool:
    return CONTENTS_TITLE.match(title.strip(" :.")) is not None


_CYRILLIC = re.compile("[\u0400-\u04ff]")
# a section's number and title ("2.5. Поиск файлов"), not a year's ("2019 Annual Report")
_SECTION_START = re.compile(r"\d{1,3}(?:\.\d{1,3})*\.?\s+[^\W\d_]")


def _page_title(pages: list[PageLines]) -> str:
    first = pages[0].lines if pages else []
    if first:
        # the first page's biggest lines, as long as they follow one another: "Пакет
        # russ.sty", not its "Оглавление" set as big further down
        top = max(line.size for line in first)
        start = next(i for i, line in enumerate(first) if line.size >= top - 0.1)
        big = [first[start]]
        for line in first[start + 1 : start + 3]:
            above = big[-1]
            if line.size < top - 0.1 or line.y0 - above.y1 > above.y1 - above.y0:
                break
            big.append(line)
        text = " ".join(NOTE_MARKS.sub("", " ".join(line.text for line in big)).split())
        if 3 <= len(text) <= 150 and not _first_of_sections(text, top, pages, big[-1]):
            return text
    return ""


def _first_of_sections(text: str, size: float, pages: list[PageLines], end: Line) -> bool:
    """Whether the first page's biggest text is a numbered section's heading that others
    share the size of ("2.5. Поиск файлов", then "2.6. Групповое переименование": help pages
    printed into one PDF), not the document's title: the file's name tells more, and a title
    is read in front of every passage."""
    if not _SECTION_START.match(text):
        return False
    past = False
    for page in pages:
        for line in page.lines:
            if past and abs(line.size - size) <= 0.1 and _SECTION_START.match(line.text):
                return True
            past = past or line is end
    return False
