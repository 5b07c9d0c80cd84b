"""Plain text: encoding detected (UTF-8, else the legacy encoding its bytes read best in),
paragraphs on blank lines, and the book's structure read from its layout (numbered,
underlined and capital headings), with a printed table of contents, separator lines and page
furniture left out."""

from __future__ import annotations

import re

from charset_normalizer import from_bytes

from mirage_pipeline.parsing.model import Block, ParsedDocument, ParseError, Section
from mirage_pipeline.parsing.text_contents import find_contents
from mirage_pipeline.parsing.text_headings import find_headings
from mirage_pipeline.parsing.text_runs import (
    block_kind,
    body_indent,
    drop_page_furniture,
    split_runs,
    split_titles,
)
from mirage_pipeline.parsing.text_tables import grid_table

# Legacy 8-bit encodings a text may be in when it is not UTF-8, by name: Russian texts from
# before Unicode are Windows-1251, KOI8-R (Unix, e-mail, lib.ru) or CP866 (DOS); western
# European ones Windows-1252. Read as Windows-1251, a KOI8-R text swaps the case of every
# letter ("оПХБЕР" for "Привет") and a CP866 one is punctuation.
_LEGACY = {
    "cp1251": "Windows-1251",
    "koi8_r": "KOI8-R",
    "cp866": "CP866 (DOS)",
    "iso8859_5": "ISO 8859-5",
    "mac_cyrillic": "Mac Cyrillic",
    "cp1252": "Windows-1252",
}


_TITLE_MAX = 100
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+")
_NOT_A_TITLE = re.compile(r"^(?:copyright\b|\(c\)|©|[-=*_~#]{3,}\s*$)", re.IGNORECASE)


def decode_text(data: bytes, warnings: list[str] | None = None) -> str:
    """UTF-8 (with or without BOM) or UTF-16 with its mark; else the legacy encoding
    charset-normalizer finds its bytes most coherent in (`_LEGACY`), said in `warnings`."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ParseError("text has a UTF-16 byte-order mark but is not valid UTF-16") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:4096]:
        raise ParseError("this looks like a binary file, not text")
    best = from_bytes(data, cp_isolation=list(_LEGACY)).best()
    if best is None:
        raise ParseError("text is not UTF-8 and reads as none of " + ", ".join(_LEGACY.values()))
    if warnings is not None:
        warnings.append(f"not UTF-8: read as {_LEGACY.get(best.encoding, best.encoding)}")
    return str(best)


def parse_text(text: str, lines: list[str], warnings: list[str], name: str) -> ParsedDocument:
    """The document of a text file, decoded (`decode_text`, its `warnings`) and split into
    `lines` (`split_lines`) once by the caller, which has asked `is_markdown` of them."""
    if "\x00" in text:
        raise ParseError("this looks like a binary file, not text")
    drop_page_furniture(text, lines)
    runs = split_titles(split_runs(lines))
    if not runs:
        raise ParseError("no text to index: the file holds only blank lines")
    body = body_indent(runs)
    contents = find_contents(runs)
    headings = find_headings(runs, body, contents)
    root = Section(title="", level=0, line_start=1)
    stack = [root]
    for i, run in enumerate(runs):
        if i in contents.runs:
            continue
        heading = headings.get(i)
        if heading is not None:
            while stack[-1].level >= heading.level:
                stack.pop()
            section = Section(title=heading.title, level=heading.level, line_start=run.start + 1)
            stack[-1].children.append(section)
            stack.append(section)
            continue
        table = grid_table(run.lines)
        if table is not None:
            stack[-1].blocks.append(
                Block("table", table, line_start=run.start + 1, line_end=run.end)
            )
            continue
        run = run.without_rules()
        if run is None:
            continue
        stack[-1].blocks.append(
            Block(block_kind(run, body), run.text(), line_start=run.start + 1, line_end=run.end)
        )
    if not any(s.blocks for _, s in root.walk()):
        raise ParseError("no text to index: the file holds only headings and separators")
    title = _first_line_title(lines) or name.rsplit(".", 1)[0]
    return ParsedDocument(format="text", title=title, root=root, warnings=warnings)


# an ATX heading as a title reads, from a capital or a number: no shell prompt's command
# ("# sync", "# cp debian.iso /dev/sdX") or a comment of a listing
_ATX_TITLE = re.compile(r"^#{1,6}[ \t]+(?:[^\W\d_](?<=[^\W\d_a-zа-яё])|\d)[^$/={}|;<>]{0,100}$")
_ATX_LINE = re.compile(r"^#{1,6}[ \t]")
_FENCE = re.compile(r"^(?:```|~~~)")
_MARKDOWN_HEADINGS = 3  # title-like ATX headings, at least
_MARKDOWN_SHARE = 0.8  # … of the lines opening with "# " outside fences


def is_markdown(lines: list[str]) -> bool:
    """Markdown saved as text (a spec.txt, a README.txt): headings opening with "#" between
    blank lines, most such lines of the file, of two levels or beside fenced code; its
    structure was lost. A root prompt's
    "# dpkg-reconfigure exim4-config" and a configuration's comments are no headings."""
    fenced = False
    titles = marked = 0
    levels: set[int] = set()
    fences = 0
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            fences += 1
            continue
        if fenced or not _ATX_LINE.match(line):
            continue
        marked += 1
        before = lines[i - 1].strip() if i else ""
        after = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not before and not after and _ATX_TITLE.match(line.rstrip()):
            titles += 1
            levels.add(len(line) - len(line.lstrip("#")))
    if titles < _MARKDOWN_HEADINGS or titles < _MARKDOWN_SHARE * marked:
        return False
    # headings of two levels, or fenced code: a configuration's "# Network settings"
    # comments between blank lines are all of one level and fence nothing
    return len(levels) >= 2 or fences >= 2


def _first_line_title(lines: list[str]) -> str | None:
    """The text's first line when it reads as a title ("OFL FAQ - Frequently Asked Questions
    about the SIL Open Font License", "Часто задаваемые вопросы о Debian GNU/Linux"): short,
    not a sentence's start or end, not a copyright line, a rule or front matter."""
    found = next(((i, line.strip()) for i, line in enumerate(lines) if line.strip()), None)
    if found is None:
        return None
    i, line = found
    line = _MARKDOWN_HEADING.sub("", line).strip()
    after = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if (
        not 3 <= len(line) <= _TITLE_MAX
        or sum(ch.isalpha() for ch in line) < 3
        or line.endswith((".", ",", ";", ":"))
        or _NOT_A_TITLE.match(line)
        or after[:1].islower()
    ):
        return None
    return " ".join(line.split())
