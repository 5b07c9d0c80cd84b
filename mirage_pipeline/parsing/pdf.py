"""PDF (PyMuPDF): the outline gives the tree — or, when there is none, headings from font
statistics checked against the printed table of contents — and the body text is rebuilt into
paragraphs placed under the right section, with running headers, footers and page numbers
removed and line-end hyphenation undone."""

from __future__ import annotations

import re

import pymupdf

from mirage_pipeline.language import identify_language, normalise_language
from mirage_pipeline.parsing import pdf_encodings, pdf_fonts
from mirage_pipeline.parsing.model import Block, ParsedDocument, ParseError, Section
from mirage_pipeline.parsing.pdf_contents import apply_contents, read_contents
from mirage_pipeline.parsing.pdf_headings import Heading, detect_headings, locate_outline
from mirage_pipeline.parsing.pdf_lines import (
    LEADER,
    Line,
    PageLines,
    body_font_size,
    drop_printed_contents,
    drop_running_lines,
    extract_lines,
)
from mirage_pipeline.parsing.pdf_tables import Table, find_tables

# A PDF where (nearly) no page has text, or with only a few characters per page on average,
# is a scan, or a broken build with an outline and no body (page numbers and stray URLs only).
# Pages with short prose (a line of words each) make a document all the same.
_PAGE_TEXT_MIN = 20
_TEXT_PAGES_MIN_SHARE = 0.1
_AVERAGE_CHARS_MIN = 50
_PROSE_PAGES_MIN_SHARE = 0.5
_PROSE = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}")
_LANGUAGE_SAMPLE = 80  # lines, about the 4 000 characters identify_language reads
_WORD_CHAR = re.compile(r"\w")
# Prefixes whose hyphen is part of the word (non-privileged, self-contained, кое-что).
_REAL_HYPHEN = re.compile(
    r"(?:^|\W)(?:non|self|well|co|cross|half|semi|multi|re|pre|post|anti|кое|какой|что|во)-$",
    re.IGNORECASE,
)
_LEADER_RUN = re.compile(rf"\s*(?:{LEADER.pattern})\s*")
_SENTENCE_END = (".", "!", "?", "…", ":", ";", '"', "»", ")")

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
    dropped = drop_running_lines(pages)
    contents = drop_printed_contents(pages)
    lines = [line for page in pages for line in page.lines]
    page_starts = _page_starts(pages)
    toc = [
        (level, " ".join(title.split()), page)
        for level, title, page in doc.get_toc(simple=True)
        if title.strip()
    ]
    body = body_font_size(pages)
    tables = find_tables(pages, body)
    cells = frozenset(id(line) for table in tables for line in table.lines)
    if toc:
        headings = locate_outline(toc, lines, page_starts)
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
    root = _build_tree(lines, headings, tables)
    metadata = {
        "pages": doc.page_count,
        "structure_source": source,
        "running_lines_removed": dropped,
    }
    language = normalise_language(lang_tag) or _text_language(lines)
    if language:
        metadata["language"] = language
    if encodings:
        metadata["legacy_encodings"] = encodings
    if contents:
        metadata["printed_contents_pages"] = [page.number for page in contents]
    if tables:
        metadata["tables"] = len(tables)
    if metadata_in.get("author"):
        metadata["authors"] = [
            a.strip() for a in re.split(r"[;,]| and ", metadata_in["author"]) if a.strip()
        ]
    return ParsedDocument(
        format="pdf",
        title=title,
        root=root,
        metadata=metadata,
        warnings=warnings,
        pages=doc.page_count,
    )


def _readable_lines(
    doc: pymupdf.Document, lang_tag: str, warnings: list[str]
) -> tuple[list[PageLines], list[str]]:
    """The pages' lines, fonts in a legacy 8-bit encoding re-decoded and pages whose text
    layer cannot be read left out (each with a warning); and the encodings re-decoded."""
    samples: dict[str, list[str]] = {}
    pages = extract_lines(doc, samples=samples)
    if not pdf_fonts.needs_survey(pages):
        _require_text(doc, pages)
        return pages, []
    fonts = pdf_fonts.survey(doc, samples)
    plan = pdf_encodings.choose(fonts, lang_tag)
    encodings: list[str] = []
    if plan is not None:
        pdf_encodings.install_unicode_maps(doc, fonts, plan)
        pages = extract_lines(doc, plan.fix, plan.fonts, line_fix=plan.fix_line)
        for encoding, numbers in pdf_encodings.redecoded_pages(pages, plan).items():
            label = pdf_encodings.LABELS.get(encoding, encoding)
            warnings.append(
                f"{pdf_fonts.page_ranges(numbers)}: text re-decoded from {label}"
                " (fonts without a Unicode map)"
            )
            encodings.append(label)
    unreadable = pdf_fonts.unreadable_pages(pages, fonts)
    if unreadable:
        left = set(unreadable)
        if not any(page.lines for page in pages if page.number not in left):
            raise ParseError(
                "the PDF's text layer cannot be read (fonts without a Unicode mapping); "
                "OCR is not supported"
            )
        for page in pages:
            if page.number in left:
                page.lines = []
        warnings.append(
            f"{pdf_fonts.page_ranges(unreadable)}: text layer unreadable (fonts without"
            " a Unicode mapping), left out"
        )
    _require_text(doc, [page for page in pages if page.number not in set(unreadable)])
    return pages, encodings


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


def _text_language(lines: list[Line]) -> str | None:
    """The language of lines spread over the whole document (not only its front matter)."""
    step = max(1, len(lines) // _LANGUAGE_SAMPLE)
    return identify_language(" ".join(line.text for line in lines[::step]))


def _page_starts(pages: list[PageLines]) -> dict[int, int]:
    """Page number → index of its first line in the flat list (the next line for empty pages)."""
    starts: dict[int, int] = {}
    index = 0
    for page in pages:
        starts[page.number] = index
        index += len(page.lines)
    return starts


def _title(meta_title: str, pages: list[PageLines], name: str) -> str:
    meta_title = " ".join(meta_title.split())
    if meta_title and not re.search(
        r"\.(pdf|dvi|tex|docx?)$|^untitled|^microsoft word", meta_title, re.I
    ):
        return meta_title
    first = pages[0].lines if pages else []
    if first:
        top = max(line.size for line in first)
        big = [line.text for line in first if line.size >= top - 0.1][:3]
        text = " ".join(" ".join(big).split())
        if 3 <= len(text) <= 150:
            return text
    return name.rsplit(".", 1)[0]


def _build_tree(lines: list[Line], headings: list[Heading], tables: list[Table]) -> Section:
    root = Section(title="", level=0, page=1)
    stack = [root]
    starts = {}
    for heading in headings:
        starts.setdefault(heading.start, []).append(heading)
    skip = {i for h in headings for i in h.lines}
    where = {id(line): i for i, line in enumerate(lines)}
    table_at: dict[int, Table] = {}
    for table in tables:
        at = [where[id(line)] for line in table.lines]
        table_at[min(at)] = table
        skip.update(at)
    front: Section | None = None
    paragraph: list[Line] = []

    def target(page: int) -> Section:
        """The open section; text before the first heading goes to a "Front matter" one."""
        nonlocal front
        if stack[-1] is not root:
            return stack[-1]
        if front is None:
            front = Section(title="Front matter", level=1, page=page)
            root.children.insert(0, front)
        return front

    def flush() -> None:
        if paragraph:
            _add_paragraph(target(paragraph[0].page), paragraph)
            paragraph.clear()

    for i, line in enumerate([*lines, None]):
        if i in starts:
            flush()
            for heading in starts[i]:
                while stack[-1].level >= heading.level:
                    stack.pop()
                section = Section(title=heading.title, level=heading.level, page=heading.page)
                stack[-1].children.append(section)
                stack.append(section)
        if i in table_at:
            flush()
            table = table_at[i]
            target(table.page).blocks.append(Block("table", table.text, page=table.page))
        if line is None:
            break
        if i in skip:
            continue
        if paragraph and (line.block != paragraph[-1].block):
            flush()
        paragraph.append(line)
    flush()
    return root


def _add_paragraph(section: Section, lines: list[Line]) -> None:
    mono = all(line.mono for line in lines)
    if mono:
        text = "\n".join(line.text for line in lines)
    else:
        text = _join_lines([line.text for line in lines])
    page, last = lines[0].page, lines[-1].page
    previous = section.blocks[-1] if section.blocks else None
    # A paragraph broken by a page break continues on the next page: join the halves.
    if (
        previous is not None
        and not mono
        and previous.kind == "paragraph"
        and previous.last_page == page - 1
        and not previous.text.endswith(_SENTENCE_END)
        and text[:1].islower()
    ):
        previous.text = _join_lines([previous.text, text])
        previous.page_end = last
        return
    block = Block(kind="code" if mono else "paragraph", text=text, page=page)
    if last != page:
        block.page_end = last
    section.blocks.append(block)


def _join_lines(parts: list[str]) -> str:
    """Lines of one paragraph as one string: words hyphenated across line ends rejoined."""
    text = ""
    for part in parts:
        part = part.strip()
        if not text:
            text = part
        elif (
            text[-1] in "-\u00ad"
            and len(text) > 1
            and _WORD_CHAR.match(text[-2])
            and part[:1].isalnum()
        ):
            # only the end of the paragraph so far matters: look at its last few characters
            if part[:1].islower() and not _REAL_HYPHEN.search(text, max(0, len(text) - 16)):
                text = text[:-1] + part  # a word broken at the line end
            else:
                text = text.rstrip("\u00ad") + part  # a real hyphen: non-privileged
        else:
            text = f"{text} {part}"
    if LEADER.search(text):  # cheap; _LEADER_RUN also eats the spaces around the run
        text = _LEADER_RUN.sub(" … ", text).strip()
    return text
