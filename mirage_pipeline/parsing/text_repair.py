"""Text repairs every format needs, after parsing.

UTF-8 read as Windows-1252 or Latin-1 and written out again ("â€”" for "—", "Ð¿Ñ€Ð¸" for
"при"): a source file saved through a tool that got its encoding wrong. Any format can carry
it (a Sphinx source, a web page turned into Markdown, a PDF made from either); ftfy repairs
it, in the passages where a UTF-8 lead byte read as a Latin letter is followed by a
continuation byte read as one — the rest is never touched.

Stress marks in Cyrillic words (dictionaries, textbooks, poetry, Church Slavonic): a combining
acute or grave after a letter ("за́мок"), or, from a PDF whose accent is a glyph of its own, a
spacing acute before the stressed letter ("з ´ошит"). Either cuts the word in two for full-text
search; they go, as the legacy PDF path drops them already.

Latin letters whose accent a PDF sets as a glyph of its own (TeX's OT1 fonts have no "ü":
"G¨urtler", "d´eshabiller", "soup¸con"): the accent and its letter become one letter."""

from __future__ import annotations

import re
import unicodedata

import ftfy

from mirage_pipeline.parsing.model import ParsedDocument

# A lead byte read as Latin-1/Windows-1252, then a continuation byte (0x80–0xBF) read as either:
# cheap to look for, rare in real text. The lead bytes are those of accented Latin letters
# (0xC2–0xC5: "Ã©" for "é"), Cyrillic (0xD0–0xD1) and the three-byte sequences of punctuation,
# symbols and box drawing (0xE2–0xEF) — not 0xC6–0xCF or 0xD2–0xDF: German "ßŒ" in a LaTeX
# guide would become NKo "ߌ". Read as Mac Roman, 0xC3 is "√" and 0xE2 0x80 is "‚Ä"
# ("Localiza√ß√£o", "‚îú‚îÄ‚îÄ"); ftfy then judges whether the bytes were UTF-8.
_SUSPECT = re.compile(
    r"[\u00c2-\u00c5\u00d0\u00d1\u00e2-\u00ef][\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]"
    r"|√[^\s\d]|‚[ÄÖî]"
)


# a combining acute or grave after a Cyrillic letter; a spacing acute (after a space, as a PDF's
# accent glyph comes out) between two Cyrillic letters
_STRESS = re.compile(
    r"(?<=[\u0400-\u052f\ua640-\ua69f])[\u0300\u0301]"
    r"|(?<=[\u0400-\u04ff'’-]) ?[\u00b4\u02ca](?=[\u0400-\u04ff])"
)


# a spacing accent, then the Latin letter it sits on (TeX sets the accent first; "ı" is the dotless
# i of "\\'\\i"); not the backtick, which Markdown and code use as a quote
_COMBINING = {
    "\u00a8": "\u0308",
    "\u00b4": "\u0301",
    "\u02c6": "\u0302",
    "\u02dc": "\u0303",
    "\u00b8": "\u0327",
    "\u02c7": "\u030c",
    "\u02d8": "\u0306",
    "\u02d9": "\u0307",
    "\u02da": "\u030a",
    "\u02dd": "\u030b",
    "\u00af": "\u0304",
}
_LATIN_ACCENT = re.compile("([" + "".join(_COMBINING) + "])([A-Za-z\u0131])")


def _accented(match: re.Match[str]) -> str:
    letter = "i" if match[2] == "\u0131" else match[2]
    composed = unicodedata.normalize("NFC", letter + _COMBINING[match[1]])
    return composed if len(composed) == 1 else match[0]


def repair_text(doc: ParsedDocument) -> ParsedDocument:
    """Both repairs in `doc`'s titles and blocks, in place; a warning counts the passages whose
    double-encoded UTF-8 was repaired."""
    repaired = 0
    for _, section in doc.root.walk():
        section.title, _ = _repaired(section.title)
        for block in section.blocks:
            block.text, fixed = _repaired(block.text)
            repaired += fixed
    doc.title, _ = _repaired(doc.title)
    if repaired:
        doc.warnings.append(
            f"{repaired} passage{'s' if repaired > 1 else ''} held UTF-8 read in an 8-bit encoding"
            ' ("â€”" for "—"): repaired'
        )
    return doc


def _repaired(text: str) -> tuple[str, bool]:
    """`text` repaired, and whether its encoding was."""
    fixed = ftfy.fix_encoding(text) if _SUSPECT.search(text) else text
    encoding_fixed = fixed != text
    if "\u0301" in fixed or "\u0300" in fixed or "\u00b4" in fixed or "\u02ca" in fixed:
        fixed = _STRESS.sub("", fixed)
    return _LATIN_ACCENT.sub(_accented, fixed), encoding_fixed
