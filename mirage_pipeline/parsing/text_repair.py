"""Text repairs every format needs, after parsing.

Cyrillic read through the wrong 8-bit encoding before it became Unicode is decoded as written
first (misread_text.py).

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
"G¨urtler", "d´eshabiller", "soup¸con"): the accent and its letter become one letter.

Letters a font maps to Adobe's private-use code points (its Unicode map follows the Adobe
Glyph List): Serbian and Macedonian forms of б г д п т (U+F6C4–F6C8: "дистри<U+F6C5>уције"),
old-style digits and small capitals (U+F721–F7FF: U+F700 plus the letter's Latin-1 code), and
the Symbol font's bracket pieces (U+F8E5–F8FE, dropped: parts of a drawn parenthesis).

Python bytes literals around each character: the Debian installation guide's PDFs (every
language's) set the comments of their example files with each non-ASCII character as "b’’нb’’"
(a build bug of their DocBook toolchain: "# b’’нb’’b’’уb’’b’’жb’’b’’нb’’b’’оb’’" for "# нужно";
the Debian Reference's curly quotes too, "b’’“b’’double quoted textb’’”b’’"), and a listing's
line break can fall inside one ("b ’’т"); the characters are kept, the rest goes.

TeX's \\not lays a slash over the relation after it, which reads as a combining overlay on the
letter before it ("r̸ = 0", "n ̸∈ known"): the slash and its relation are the negated relation
("r ≠ 0", "n ∉ known"). And groff sets an option's or a name's hyphen as the font's minus
("−−version", "[−H]", "active−region−start−color": a command copied from a citation failed in a
shell): in a PDF groff made, a minus before a letter is a hyphen (`groff_hyphens`; elsewhere a
minus before a letter is arithmetic, "(1−x)").

Words mixing Latin and Cyrillic letters that look alike: a font mapping Latin i to Ukrainian і
("Tobіas Oetіker", "\\begіn{pіcture}"), a Latin C typed in a Russian word ("Cоздатель"). No
search finds such a word; its look-alikes take the script of the rest of it — the one script
every letter of the word can be written in (the larger one if both can), into Cyrillic only
when that makes a word the Russian dictionary knows. A Latin word with a Russian case ending
is left ("TEXа", "Unixу").

Control characters (C0 but tab and line breaks) are text in no format: a PDF's glyph that no
encoding maps reads as one — LaTeX's picture fonts (line10, lcircle10) and math extension
pieces, "\\x1a\\x1a\\x1a" for a drawn line — and the embedder and a citation got them as they
were. They go here, after the PDF's fonts were judged by them (its unreadable pages are found
so). Deleted, not spaced: a TeX ligature a font maps nowhere and too rare in it to re-decode
the font by ("di\\x0berent") stays one word."""

from __future__ import annotations

import itertools
import re
import unicodedata

import ftfy

from mirage_pipeline.morphology import known_word
from mirage_pipeline.parsing.misread_text import redecode_misread
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


# b’’Xb’’ around one non-ASCII character (and its combining mark), a space from a broken
# listing line anywhere inside (one at most: _unliteral)
_BYTES_LITERAL = re.compile(r"b ?’ ?’ ?([^\x00-\x7f\s][\u0300-\u036f]?) ?b ?’ ?’")


_CYRILLIC_END = re.compile(r"[\u0400-\u04ff]+$")
_CYRILLIC_START = re.compile(r"^[\u0400-\u04ff]+")


def literal_break(before: str, after: str) -> str:
    """What a listing's line broken between two bytes literals stood for: "" inside a word
    ("b’’нb’’b’’аb’’" + "b’’сb’’…" for "настройки"), " " between two (a break at the space
    after "выполнять"), as the Russian dictionary tells: nothing when it knows the joined
    word or does not know both halves."""
    left = _CYRILLIC_END.search(_BYTES_LITERAL.sub(_unliteral, before[-400:]))
    right = _CYRILLIC_START.match(_BYTES_LITERAL.sub(_unliteral, after[:400]))
    if left is None or right is None:
        return ""
    if known_word(left[0] + right[0]) or not (known_word(left[0]) and known_word(right[0])):
        return ""
    return " "


def _unliteral(match: re.Match[str]) -> str:
    """The character a bytes literal holds; two spaces inside are two words ("verb’’ — b’’")."""
    return match[1] if match[0].count(" ") <= 1 else match[0]


# a combining acute or grave after a Cyrillic letter; a spacing acute (after a space, as a PDF's
# accent glyph comes out) between two Cyrillic letters
_STRESS = re.compile(
    r"(?<=[\u0400-\u052f\ua640-\ua69f])[\u0300\u0301]"
    r"|(?<=[\u0400-\u04ff'’-]) ?[\u00b4\u02ca](?=[\u0400-\u04ff])"
)
_WORD_BEFORE = re.compile(r"[\u0400-\u04ff]+$")
_VOWELS = set("аеёиоуыэюяіїєѣ")
_WORD_AFTER = re.compile(r"[\u0400-\u04ff]+(?:-[\u0400-\u04ff]+)*")


def _unstressed(match: re.Match[str]) -> str:
    """ "" for the accent, and the space a PDF set before it inside a word ("з ´о-шит", "словн
    ´ик", "ходж ´у", "ш ´ия", "бай- ´ок"); a space between words stays: before a one-letter
    word after a word ending in a vowel (Bulgarian "документацията ´и" is "… ѝ"), or between
    two words of two letters or more the dictionary knows that are not one ("слово ´эхо")."""
    if not match[0].startswith(" "):
        return ""
    text = match.string
    before = _WORD_BEFORE.search(text, 0, match.start())
    after = _WORD_AFTER.match(text, match.end())
    if before is None or before.end() != match.start() or after is None:
        return ""  # "бай- ´ок": a hyphen (or an apostrophe) before the space
    left, right = before[0], after[0].replace("-", "")
    if len(right) == 1:  # "ходж ´у" is one word, "документацията ´и" two
        return " " if left[-1].lower() in _VOWELS else ""
    if len(left) < 2 or not known_word(left) or not known_word(right):
        return ""  # "з ´о-шит", "ш ´ия": the PDF's space inside a word
    return "" if known_word(left + right) else " "


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


# Adobe's corporate-use code points: Cyrillic localized forms, then U+F700 + a Latin-1 code
# (old-style "0"–"9" at F730–F739, small capitals "a"–"z" at F761–F77A, "à"–"ÿ" at F7E0–F7FF),
# and the Symbol font's extension pieces and sans-serif marks
_ADOBE_PUA: dict[int, str] = {0xF6BE: "ȷ", 0xF6C4: "г", 0xF6C5: "б", 0xF6C6: "д", 0xF6C7: "п"}
_ADOBE_PUA |= {0xF6C8: "т", 0xF6DC: "1", 0xF8E8: "®", 0xF8E9: "©", 0xF8EA: "™"}
_ADOBE_PUA |= {0xF700 + c: chr(c).lower() for c in range(0x21, 0x100) if chr(c).isalnum()}
_ADOBE_PUA |= {c: "" for c in range(0xF8E5, 0xF8FF) if c not in _ADOBE_PUA}
_PUA = re.compile("[\uf6be-\uf6dc\uf721-\uf7ff\uf8e5-\uf8fe]")

_TO_LATIN = str.maketrans("аеорсхуіјѕАВЕКМНОРСТХУІЈЅ", "aeopcxyijsABEKMHOPCTXYIJS")
_TO_CYRILLIC = str.maketrans("aeopcxyiABEKMHOPCTXYI", "аеорсхуіАВЕКМНОРСТХУІ")
_LATIN_LOOKALIKES = frozenset(map(chr, _TO_CYRILLIC))
_CYRILLIC_LOOKALIKES = frozenset(map(chr, _TO_LATIN))
_JUNK = re.compile(r"\s*|[^\w]*\ufffd[^\w]*")
# C0 control characters but tab and line breaks: text in no format (the PDF modules find an
# unmapped font's glyphs by them too)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BREAKS = re.compile("[\x0b\x0c]")
_NOT_RUSSIAN = frozenset("іјѕІЈЅ")  # "dvі", "ASCІІ": not a Russian ending
_MIXED = re.compile("[a-zA-Z][\u0400-\u04ff]|[\u0400-\u04ff][a-zA-Z]")
_LETTERS = re.compile("[a-zA-Z\u0400-\u04ff]+")


def _one_script(match: re.Match[str]) -> str:
    word = match[0]
    switches = sum(a.isascii() != b.isascii() for a, b in itertools.pairwise(word))
    if not switches:
        return word
    latin = [c for c in word if c.isascii()]
    cyrillic = [c for c in word if not c.isascii()]
    russian_ending = not word[-1].isascii() and not _NOT_RUSSIAN.intersection(cyrillic)
    if switches == 1 and russian_ending and 2 * len(cyrillic) < len(word):
        return word  # a foreign word with a Russian case ending: "TEXа", "Unixу"
    to_latin = _CYRILLIC_LOOKALIKES.issuperset(cyrillic)
    to_cyrillic = _LATIN_LOOKALIKES.issuperset(latin)
    if to_cyrillic and (not to_latin or len(cyrillic) >= len(latin)):
        fixed = word.translate(_TO_CYRILLIC)
        if known_word(fixed):  # "Создатель", not the pattern "~Aархив" (~A and its argument)
            return fixed
    return word.translate(_TO_LATIN) if to_latin else word


# a minus (or several) directly before a letter: an option's or a name's hyphen
_MINUS_HYPHEN = re.compile("\u2212+(?=[^\\W\\d_])")
# TeX's \\not: a long solidus overlay, then the relation it strikes
_NOT = re.compile("\u0338(\\s*)(\\S)")


def groff_hyphens(doc: ParsedDocument) -> None:
    """A minus directly before a letter is a hyphen, in `doc`'s titles and blocks (in place):
    for a PDF groff made, which sets every hyphen of an option or a name as a minus."""
    for _, section in doc.root.walk():
        section.title = _MINUS_HYPHEN.sub(_hyphens, section.title)
        for block in section.blocks:
            if "\u2212" in block.text:
                block.text = _MINUS_HYPHEN.sub(_hyphens, block.text)


def _hyphens(match: re.Match[str]) -> str:
    return "-" * len(match[0])


def _negated(match: re.Match[str]) -> str:
    """ "≠" for "̸ =", "∉" for "̸∈": the relation with the overlay, where Unicode has it as one."""
    negated = unicodedata.normalize("NFC", match[2] + "\u0338")
    return match[1] + negated if len(negated) == 1 else match[0]


def repair_text(doc: ParsedDocument) -> ParsedDocument:
    """The repairs in `doc`'s titles and blocks, in place; a warning counts the passages whose
    double-encoded UTF-8 was repaired. Blocks left empty, or holding only glyphs no font
    mapped (U+FFFD: a picture's line and circle pieces) among signs, go."""
    redecode_misread(doc)
    repaired = 0
    breaks = doc.format != "pdf"
    for _, section in doc.root.walk():
        section.title, _ = _repaired(section.title, breaks)
        for block in section.blocks:
            block.text, fixed = _repaired(block.text, breaks)
            repaired += fixed
        section.blocks = [block for block in section.blocks if not _JUNK.fullmatch(block.text)]
    doc.title, _ = _repaired(doc.title, breaks)
    if repaired:
        doc.warnings.append(
            f"{repaired} passage{'s' if repaired > 1 else ''} held UTF-8 read in an 8-bit encoding"
            ' ("â€”" for "—"): repaired'
        )
    return doc


_CIRCLED = re.compile("(?<![^\\W\\d_])([cCrR])\u20dd ?(?=(\\w?))")


def _circled(found: re.Match[str]) -> str:
    sign = "©" if found[1] in "cC" else "®"
    return f"{sign} " if found[2] else sign


def _repaired(text: str, breaks: bool = False) -> tuple[str, bool]:
    """`text` repaired, and whether its encoding was. `breaks`: a vertical tab or a form feed
    is a line break (Word's manual line break, kept by FB2 and EPUB converters: "Текст\vглавы"
    read "Текстглавы"), not a glyph code as in a PDF (TeX's "ff" ligature)."""
    if breaks and ("\x0b" in text or "\x0c" in text):
        text = _BREAKS.sub("\n", text)
    fixed = ftfy.fix_encoding(text) if _SUSPECT.search(text) else text
    encoding_fixed = fixed != text
    if "\u00ad" in fixed:  # soft hyphens: books hyphenated throughout ("при\xadмер")
        fixed = fixed.replace("\u00ad", "")
    if "’’" in fixed or "’ ’" in fixed:
        fixed = _BYTES_LITERAL.sub(_unliteral, fixed)
    if "\u0301" in fixed or "\u0300" in fixed or "\u00b4" in fixed or "\u02ca" in fixed:
        fixed = _STRESS.sub(_unstressed, fixed)
    if _PUA.search(fixed):
        fixed = fixed.translate(_ADOBE_PUA)
    if _MIXED.search(fixed):
        fixed = _LETTERS.sub(_one_script, fixed)
    if "\u0338" in fixed:
        fixed = _NOT.sub(_negated, fixed)
    if "\u20dd" in fixed:  # texinfo draws © and ® as a letter in a circle: "c⃝1990"
        fixed = _CIRCLED.sub(_circled, fixed)
    fixed = CONTROL.sub("", fixed)
    return _LATIN_ACCENT.sub(_accented, fixed), encoding_fixed
