"""What a PDF's fonts say about its text layer: which have a Unicode map, which only give
glyph ids, and which pages' text nothing makes readable."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pymupdf

from mirage_pipeline.parsing.cyrillic_8bit import LATIN_1_LETTER, TEXT_ENCODINGS, best_reading
from mirage_pipeline.parsing.pdf_lines import PageLines

# Characters no text is written in: controls, U+FFFD, private use (glyph ids, unmapped glyphs).
JUNK = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd\ue000-\uf8ff]")
# The Latin-1 upper half: where 8-bit Cyrillic encodings read as Latin-1 land.
HIGH = re.compile("[\x80-\xff]")
# A ligature of a Latin TeX font without a Unicode map, read as a control character beside a
# letter: "di\x0berent" in OT1 (ﬀ ﬁ ﬂ ﬃ ﬄ at 0x0B–0x0F), "Cor\x1b" in T1 (at 0x1B–0x1F)
OT1_LIGATURE = re.compile(r"[A-Za-z][\x0b-\x0f]|[\x0b-\x0f][a-z]")
T1_LIGATURE = re.compile(r"[A-Za-z][\x1b-\x1f]|[\x1b-\x1f][a-z]")
TEX_LIGATURE = re.compile(f"{OT1_LIGATURE.pattern}|{T1_LIGATURE.pattern}")
OT2_NAME = re.compile(r"wncy", re.IGNORECASE)  # Washington Cyrillic: wncyr10, wncyb10 …
# Half a page's letters in Latin-1's upper half is no language's text (Icelandic's þ ð á ö: a
# fifth): an encoding none of pdf_encodings' tables reads ("ÁèÞíá" of an old Greek font).
_GARBLED_SHARE = 0.5
# counted in words of three such letters or more: a table of Latin-1's letters set apart ("À Á
# Â …", a font's or an encoding's chart) is no text read wrong
_HIGH_WORD = re.compile(f"{LATIN_1_LETTER.pattern}{{3,}}")
_GARBLED_MIN = 40  # such letters on the page: a line or two of them tells nothing
_LIGATURES_ON_A_PAGE = 3
_SUBSET = re.compile(r"^[A-Z]{6}\+")
_NUMBERED_GLYPH = re.compile(r"^/(?:a|g|c|cid|index|glyph|G)\d+$")  # pdfTeX's Type 3: /a65


@dataclass
class Font:
    """A font as the text extractor names it, with what its dictionaries say."""

    name: str
    xrefs: list[int] = field(default_factory=list)
    kind: str = ""  # Type1, Type3, TrueType, Type0 …
    unicode_map: bool = False  # has /ToUnicode
    named_glyphs: bool = False  # /Differences name real glyphs in the upper half
    unmapped_cids: bool = False  # Type0, Identity-H/V, no ToUnicode: glyph ids only
    text: str = ""  # the start of the text set in it


def needs_survey(pages: list[PageLines]) -> bool:
    """Whether any page looks like a legacy or unreadable text layer (cheap: text only)."""
    for page in pages:
        if any(OT2_NAME.search(name) for name in page.fonts):
            return True
        text = "".join(line.text for line in page.lines)
        if len(text) < 20:
            continue
        high = len(HIGH.findall(text))
        if high >= 20 and high >= 0.2 * len(text):
            return True
        if len(JUNK.findall(text)) >= max(5, 0.05 * len(text)):
            return True
        if len(TEX_LIGATURE.findall(text)) >= _LIGATURES_ON_A_PAGE:
            return True
    return False


def survey(doc: pymupdf.Document, samples: dict[str, list[str]]) -> dict[str, Font]:
    """The fonts the text is set in, by name: what their dictionaries say, and their text."""
    fonts = {name: Font(name, text=" ".join(spans)) for name, spans in samples.items()}
    seen: set[int] = set()
    for page in doc:
        for xref, _, kind, basefont, refname, encoding, *_ in page.get_fonts(full=True):
            if xref in seen:
                continue
            seen.add(xref)
            name = _SUBSET.sub("", basefont) if basefont and basefont != "n/a" else refname
            font = fonts.get(name)
            if font is None:
                continue
            font.xrefs.append(xref)
            font.kind = kind
            _read_font_dict(doc, xref, encoding, font)
    return fonts


def _read_font_dict(doc: pymupdf.Document, xref: int, encoding: str, font: Font) -> None:
    if doc.xref_get_key(xref, "ToUnicode")[0] != "null":
        font.unicode_map = True
        return
    if font.kind == "Type0":
        ordering = ""
        found = re.search(r"(\d+) 0 R", doc.xref_get_key(xref, "DescendantFonts")[1])
        if found:
            ordering = doc.xref_get_key(int(found.group(1)), "CIDSystemInfo/Ordering")[1]
        font.unmapped_cids = encoding.startswith("Identity") and ordering in ("", "Identity")
        return
    kind, value = doc.xref_get_key(xref, "Encoding")
    if kind == "xref":
        value = doc.xref_get_key(int(value.split()[0]), "Differences")[1]
    elif kind == "dict":
        value = doc.xref_get_key(xref, "Encoding/Differences")[1]
    else:
        return
    font.named_glyphs = _names_upper_half(value)


def _names_upper_half(differences: str) -> bool:
    """Whether a /Differences array names real glyphs (not /a123-style numbers) at 0x80–0xFF."""
    code = 0
    for token in re.findall(r"\d+|/[^\s/\[\]]+", differences):
        if token[0] != "/":
            code = int(token)
            continue
        if code >= 0x80 and token != "/.notdef" and not _NUMBERED_GLYPH.match(token):
            return True
        code += 1
    return False


def unreadable_pages(pages: list[PageLines], fonts: dict[str, Font]) -> list[int]:
    """Pages whose text no mapping makes readable: mostly glyph ids of CID fonts without a
    Unicode map, or U+FFFD, private-use characters and controls."""
    found = []
    for page in pages:
        text = "".join(line.text for line in page.lines)
        visible = len(text) - text.count(" ")
        if visible < 1:
            continue
        unmapped = sum(
            n for name, n in page.fonts.items() if name in fonts and fonts[name].unmapped_cids
        )
        if unmapped >= 0.5 * sum(page.fonts.values()) or len(JUNK.findall(text)) >= 0.3 * visible:
            found.append(page.number)
    return found


def garbled_pages(pages: list[PageLines]) -> list[int]:
    """Pages whose text still reads as an 8-bit encoding taken for Latin-1: half their letters
    or more in words of Latin-1's upper half, after every re-decoding, and no Cyrillic in
    Windows-1251 or KOI8 either (misread_text decodes that, passage by passage: a font whose own
    map read it as Latin-1 with too many Latin words beside for pdf_encodings to take it)."""
    found = []
    for page in pages:
        text = " ".join(line.text for line in page.lines)
        high = sum(map(len, _HIGH_WORD.findall(text)))
        if (
            high >= _GARBLED_MIN
            and high >= _GARBLED_SHARE * sum(c.isalpha() for c in text)
            and not best_reading(text, TEXT_ENCODINGS)
        ):
            found.append(page.number)
    return found


def page_ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 7] → "pages 1–3, 7"."""
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}–{prev}" if prev > start else str(start))
        if n is not None:
            start = prev = n
    return ("page " if len(numbers) == 1 else "pages ") + ", ".join(parts)
