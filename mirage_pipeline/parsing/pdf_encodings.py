"""Legacy 8-bit text layers: fonts whose codes every extractor reads as Latin-1 ("Ïðàâèëà"
for "Правила"), re-decoded from the encoding they really use.

Old pdfTeX books set Cyrillic in Type 1/Type 3 fonts in TeX's T2A (or LCY, X2, OT2) encoding
with no ToUnicode map; old Word exports do the same with Windows-1251 TrueType fonts (and
Ghostscript gives such a font a map from WinAnsi's glyph names: Latin-1 again). For each font
without a correct Unicode map whose text is mostly the Latin-1 upper half, the encoding is chosen
by evidence — the font's kind (TeX Type 1/Type 3 or Windows TrueType), its name (`wncy*` is
OT2, whose Cyrillic sits at ASCII codes) and how plausible the decoded words are — and the
font gets a ToUnicode map, so PyMuPDF extracts the real text code by code. Nothing is guessed
back from what PyMuPDF printed: it gives U+FFFD for codes 0–9 of pdfTeX's Type 3 fonts (their
glyphs are named /a0…/a255 and it reads /a10 and up as numbers), Latin-1 for the rest, and
WinAnsi's “ ” — … for 0x80–0x9F of TrueType fonts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pymupdf

from mirage_pipeline.language import cyrillic_share
from mirage_pipeline.parsing import pdf_encoding_tables as tex
from mirage_pipeline.parsing.cyrillic_8bit import (
    COMMON_CYRILLIC,
    TABLES,
    TWIN_LETTERS,
    WINANSI,
    WORD,
    best_reading,
    decode,
    plausible,
)
from mirage_pipeline.parsing.pdf_fonts import (
    HIGH,
    JUNK,
    OT1_LIGATURE,
    OT2_NAME,
    T1_LIGATURE,
    Font,
)
from mirage_pipeline.parsing.pdf_lines import PageLines

# in order of prior: T2A is the usual one; KOI8 (Unix fonts of the 1990s) the rarest
_TEX_FAMILY = ("T2A", "X2", "LCY", "cp1251", "KOI8")
_WINDOWS_FAMILY = ("cp1251", "T2A", "LCY", "KOI8")
# Type 1 fonts of TeX: Computer Modern and its Cyrillic families (LH la*/lc*…, cm-super), AMS.
_TEX_NAME = re.compile(r"^(?:cm|lh|la|lb|lc|ll|lx|wn|sfrm|ec|eu|ms)|^F\d+$", re.IGNORECASE)
# "і" as a word of its own (the Ukrainian "and"): after a Cyrillic word, before another or at
# the line's end ("близький i" / "близь-кий"); a lowercase one before a Cyrillic word after
# anything ("LaTeX2ε i повинен", "Mac, i закінчуючи"): English has no lowercase "i" word
_LONE_TWIN = re.compile(
    r"(?:(?<=[\u0400-\u04ff] )|(?<=[\u0400-\u04ff], ))[iI](?= [\u0400-\u04ff]|$)"
    r"|(?:(?<=\S )|^)i(?= [\u0400-\u04ff])"
)
_CYRILLIC_LANGS = ("ru", "uk", "be", "bg", "sr", "mk", "kk", "ky", "tg", "mn", "ba", "tt")
# A Latin TeX font with this many ligatures read as control characters (pdf_fonts) is given its
# TeX encoding: PyMuPDF drops the characters, and the words lose letters.
_LIGATURES_SEEN = 3
_SIMPLE_FONTS = ("Type1", "Type3", "TrueType", "MMType1", "Type1C")
# A font whose own Unicode map (or glyph names) reads its codes as Latin-1 is re-decoded too,
# on stronger evidence: most of its letters in the Latin-1 upper half (Ghostscript writes such a
# map from WinAnsi's glyph names for an old Windows-1251 font: "Ïðàâèëà", map or not).
_MAPPED_HIGH_SHARE = 0.6


def _dropped(encoding: str) -> dict[int, None]:
    """Accents (as text, stress marks set before their letter) and zero-width word marks."""
    table = TABLES[encoding]
    accents = {ord(table[slot]) for slot in tex.ACCENT_SLOTS.get(encoding, ())}
    return dict.fromkeys({*accents, 0x200C, 0xFEFF, 0xFFFD} - {ord(tex.UNUSED)})


_DROPPED = {encoding: _dropped(encoding) for encoding in TABLES}


@dataclass
class Redecoding:
    """The encoding chosen for each font name, and how to finish their spans' text."""

    encodings: dict[str, str]
    mapped: frozenset[str] = frozenset()  # fonts whose own Unicode map read them as Latin-1

    @property
    def fonts(self) -> frozenset[str]:
        return frozenset(self.encodings)

    def reason(self, encoding: str) -> str:
        """Why text in `encoding` was re-decoded, as the warning says it (for its pages at
        once: one font with a wrong map among others without one is enough to say so)."""
        fonts = [name for name, chosen in self.encodings.items() if chosen == encoding]
        if any(name in self.mapped for name in fonts):
            return "fonts without a correct Unicode map"
        return "fonts without a Unicode map"

    def fix(self, font: str, text: str) -> str:
        """Accents and word marks dropped; the Latin letters T2A shares with Cyrillic
        (I, i, J, j, ı) made Cyrillic inside Cyrillic words."""
        encoding = self.encodings[font]
        text = text.translate(_DROPPED[encoding])
        if encoding in ("T2A", "LCY") and any(c in text for c in TWIN_LETTERS):
            text = WORD.sub(_cyrillic_twins, text)
        return text

    def fix_line(self, text: str) -> str:
        """A lone i between Cyrillic words (spans of their own) is the Ukrainian "і"."""
        if ("i" in text or "I" in text) and not {"T2A", "LCY"}.isdisjoint(self.encodings.values()):
            return _LONE_TWIN.sub(lambda m: TWIN_LETTERS[m.group()], text)
        return text


def _cyrillic_twins(match: re.Match[str]) -> str:
    word = match.group()
    if not any(c in COMMON_CYRILLIC for c in word) or any(
        c.isascii() and c not in TWIN_LETTERS for c in word
    ):
        return word
    return "".join(TWIN_LETTERS.get(c, c) for c in word)


def choose(fonts: dict[str, Font], lang: str) -> Redecoding | None:
    """The encoding of each font whose text is a legacy 8-bit encoding read as Latin-1, and
    of each Latin TeX font whose ligatures came out as control characters."""
    chosen: dict[str, str] = {}
    # not when the document says it is written in a non-Cyrillic language
    if not lang or lang.split("-")[0].lower() in _CYRILLIC_LANGS:
        chosen = _cyrillic(fonts)
    for font in fonts.values():
        if font.name not in chosen and _eligible(font) and _tex_font(font) and _latin(font.text):
            ot1 = len(OT1_LIGATURE.findall(font.text))
            t1 = len(T1_LIGATURE.findall(font.text))
            if max(ot1, t1) >= _LIGATURES_SEEN:
                chosen[font.name] = "OT1" if ot1 > t1 else "T1"
    if not chosen:
        return None
    mapped = frozenset(name for name in chosen if _mapped(fonts[name]))
    return Redecoding(chosen, mapped)


def _cyrillic(fonts: dict[str, Font]) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for font in fonts.values():
        mapped = _mapped(font)
        if not _eligible(font, maps_allowed=True):
            continue
        text = font.text
        if OT2_NAME.search(font.name):
            if (
                not mapped
                and (cyrillic_share(text) or 0.0) < 0.5
                and plausible(decode(text, "OT2"), 0.6, 8)
            ):
                chosen[font.name] = "OT2"
            continue
        high = len(HIGH.findall(text))
        letters = sum(1 for c in text if c.isalpha() or "\x80" <= c <= "\xff")
        if high < 10 or high < (_MAPPED_HIGH_SHARE if mapped else 0.4) * letters:
            continue
        encoding = _best_encoding(font, text)
        if encoding:
            chosen[font.name] = encoding
    if not chosen:
        return chosen
    # fonts of the same kind with a little Cyrillic (a code font's comments, a lone heading
    # letter) follow the document's encoding when it reads them as Cyrillic too
    kinds = _encoding_by_kind(fonts, chosen)
    for font in fonts.values():
        encoding = kinds.get(font.kind)
        mapped = _mapped(font)
        if font.name in chosen or encoding is None or not _eligible(font, maps_allowed=True):
            continue
        high = "".join(HIGH.findall(font.text))
        # a mapped font's few upper-half letters may be its own ("Müller"): words only
        if high and (
            plausible(decode(font.text, encoding), 0.8, 3)
            or (not mapped and all(c in COMMON_CYRILLIC for c in decode(high, encoding)))
        ):
            chosen[font.name] = encoding
    return chosen


def _encoding_by_kind(fonts: dict[str, Font], chosen: dict[str, str]) -> dict[str, str]:
    """For each font kind, the encoding chosen for most of its text."""
    sizes: dict[tuple[str, str], int] = {}
    for name, encoding in chosen.items():
        key = (fonts[name].kind, encoding)
        sizes[key] = sizes.get(key, 0) + len(fonts[name].text)
    kinds: dict[str, str] = {}
    for (kind, encoding), _ in sorted(sizes.items(), key=lambda item: item[1]):
        kinds[kind] = encoding  # the largest last
    return kinds


def _mapped(font: Font) -> bool:
    """Whether the font's text came through its own Unicode map or glyph names."""
    return font.unicode_map or font.named_glyphs


def _eligible(font: Font, maps_allowed: bool = False) -> bool:
    """A simple font with neither a Unicode map nor glyph names that give real Unicode (with
    `maps_allowed`: either may be there, and wrong)."""
    if not font.xrefs or font.kind not in _SIMPLE_FONTS or (_mapped(font) and not maps_allowed):
        return False
    text = font.text
    beyond = sum(1 for c in text if c > "\xff" and c not in WINANSI and not JUNK.match(c))
    return beyond <= 0.1 * (len(text) - text.count(" "))  # math symbols: the names did map


def _best_encoding(font: Font, text: str) -> str:
    """The most plausible encoding for the font's kind, or "" when none reads as words."""
    return best_reading(text, _TEX_FAMILY if _tex_font(font) else _WINDOWS_FAMILY)


def _latin(text: str) -> bool:
    """Text in ASCII letters, almost nothing above: not symbols or another script's bitmaps."""
    visible = len(text) - text.count(" ")
    letters = sum(1 for c in text if c.isascii() and c.isalpha())
    return letters >= 0.6 * visible and len(HIGH.findall(text)) <= 0.02 * visible


def _tex_font(font: Font) -> bool:
    """A Type 3 font (pdfTeX's bitmap fonts) or a Type 1 font of TeX's families."""
    return font.kind == "Type3" or (font.kind != "TrueType" and bool(_TEX_NAME.search(font.name)))


def install_unicode_maps(doc: pymupdf.Document, fonts: dict[str, Font], plan: Redecoding) -> None:
    """Give each re-decoded font a ToUnicode CMap of its encoding (in the document in memory)."""
    streams: dict[str, int] = {}
    for name, encoding in plan.encodings.items():
        if encoding not in streams:
            streams[encoding] = doc.get_new_xref()
            doc.update_object(streams[encoding], "<<>>")
            doc.update_stream(streams[encoding], _cmap(TABLES[encoding]))
        for xref in fonts[name].xrefs:
            doc.xref_set_key(xref, "ToUnicode", f"{streams[encoding]} 0 R")


def _cmap(table: str) -> bytes:
    pairs = [(code, char) for code, char in enumerate(table) if char != tex.UNUSED]
    out = [
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Mirage-Legacy-UCS def /CMapType 2 def",
        "1 begincodespacerange <00> <FF> endcodespacerange",
    ]
    for start in range(0, len(pairs), 100):
        chunk = pairs[start : start + 100]
        out.append(f"{len(chunk)} beginbfchar")
        out.extend(
            f"<{code:02X}> <{char.encode('utf-16-be').hex().upper()}>" for code, char in chunk
        )
        out.append("endbfchar")
    out.append("endcmap CMapName currentdict /CMap defineresource pop end end")
    return "\n".join(out).encode()


def redecoded_pages(pages: list[PageLines], plan: Redecoding) -> dict[str, list[int]]:
    """Encoding → the pages with text in its fonts."""
    found: dict[str, list[int]] = {}
    for page in pages:
        for encoding in sorted({plan.encodings[f] for f in page.fonts if f in plan.encodings}):
            found.setdefault(encoding, []).append(page.number)
    return found
