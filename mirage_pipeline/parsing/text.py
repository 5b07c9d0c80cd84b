"""Plain text: encoding detected (UTF-8, then Windows-1251), paragraphs on blank lines."""

from __future__ import annotations

import re

from mirage_pipeline.parsing.model import Block, ParsedDocument, ParseError, Section

_BLANK = re.compile(r"^[ \t\f\v]*$")


def decode_text(data: bytes) -> str:
    """UTF-8 (with or without BOM), else Windows-1251, the usual legacy Russian encoding."""
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
    try:
        text = data.decode("cp1251")
    except UnicodeDecodeError:
        raise ParseError("text is neither UTF-8 nor Windows-1251") from None
    return text


def paragraphs(lines: list[str], first_line: int = 1) -> list[Block]:
    """Runs of non-blank lines as paragraphs, with their 1-based line range."""
    blocks: list[Block] = []
    start: int | None = None
    for i, line in enumerate([*lines, ""]):
        if _BLANK.match(line):
            if start is not None:
                text = "\n".join(ln.rstrip() for ln in lines[start:i]).strip()
                if text:
                    blocks.append(
                        Block(
                            "paragraph",
                            text,
                            line_start=first_line + start,
                            line_end=first_line + i - 1,
                        )
                    )
                start = None
        elif start is None:
            start = i
    return blocks


def parse_text(data: bytes, name: str) -> ParsedDocument:
    text = decode_text(data)
    if "\x00" in text:
        raise ParseError("this looks like a binary file, not text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    root = Section(title="", level=0, line_start=1, blocks=paragraphs(lines))
    if not root.blocks:
        raise ParseError("no text to index: the file holds only blank lines")
    return ParsedDocument(format="text", title=name.rsplit(".", 1)[0], root=root)
