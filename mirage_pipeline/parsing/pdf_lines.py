"""PDF text as lines: extraction with font facts.

PyMuPDF gives blocks of lines of spans. We keep each line with its page, position, dominant
font size and weight; `pdf_running` then drops what repeats across pages at the same place.
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pymupdf

from mirage_pipeline.parsing.model import RAISED
from mirage_pipeline.parsing.pdf_orientation import turn_lines
from mirage_pipeline.parsing.pdf_spans import mixed_text
from mirage_pipeline.parsing.text_repair import CONTROL

# Expand ligatures (ﬁ → fi), keep whitespace readable; no images.
_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_DIGITS = re.compile(r"\d+")
# monospaced fonts by name, where the font does not say so: URW's Nimbus Mono (NimbusMonL-Regu,
# a Courier: yodl's and groff's books), TeX's typewriter faces (CMTT, ec/tc/sf/lm/tx-tt), Menlo,
# Monaco, TeX Gyre Cursor; "code" but not Arial Unicode MS, Encode Sans or Code2000, "mono" but
# not Monotype Corsiva
# the invisible font of an OCR text layer (Tesseract's and ocrmypdf's "GlyphLessFont"): fixed
# pitch by its flags, but set over a scan's words, which are prose — every block of an OCR'd
# book was code (no headings, no hyphen joined, no tables)
OCR_FONT = re.compile(r"glyphless|invisible", re.IGNORECASE)
_ITALIC_NAME = re.compile(r"italic|oblique", re.IGNORECASE)
# words, or a section's number ("5.10.3.3. `wanna-build`"), not a listing's line number
_PROSE = re.compile(r"[^\W\d_]|\d\.\d")
MONO_NAME = re.compile(
    r"mono(?!type)|courier|consol|typewriter|(?<!uni)(?<!en)code(?!\d)|\btt"
    r"|(?:cm|cmsl|cmit|ec|tc|sf|lm|tx)tt"
    r"|nimbusmon|pcrr|menlo|monaco|cursor",
    re.IGNORECASE,
)


@dataclass(eq=False)
class Line:
    page: int  # 1-based
    block: int  # a page-independent block number: lines of one PyMuPDF block share it
    x0: float
    y0: float
    y1: float
    text: str
    size: float  # the font size most of its characters have
    bold: bool
    mono: bool  # most of its characters are monospaced
    x1: float = 0.0
    code: bool = False  # every character is monospaced (a line of a code listing)
    mono_ends: tuple[bool, bool] = (False, False)  # its first and its last word monospaced
    note_mark: bool = False  # it opens with a superscript number (a footnote's first line)
    italic: bool = False  # most of its characters are italic or oblique

    @functools.cached_property
    def norm(self) -> str:
        """Its text compared across pages (running heads): spaces collapsed, case folded,
        numbers as "#". Computed once: a line's text is fixed once it is made."""
        return _DIGITS.sub("#", " ".join(self.text.split()).casefold())


@dataclass
class PageLines:
    number: int
    height: float
    lines: list[Line]
    fonts: dict[str, int] = field(default_factory=dict)  # characters set in each font


# Rewrites the text of one span set in the given font (re-decoded legacy encodings).
SpanFix = Callable[[str, str], str]
LineFix = Callable[[str], str]
# Spans of each font's text kept in `samples`: the first ones, then only those a legacy
# encoding would show in: non-ASCII ones and ones holding a control character (a TeX font's
# ligature without a Unicode map: "identi\x1cers" — a font setting a word a span showed none
# in its first 100).
_SAMPLE_SPANS = 100
_SAMPLE_NON_ASCII_SPANS = 400
_TEXT = operator.itemgetter("text")
_STYLE = operator.itemgetter("font", "size", "flags")
# A list's mark in a symbol font, as Word and LibreOffice write it: the Symbol font's (and
# OpenSymbol's) bullet, Wingdings' squares, arrowhead, diamond and tick, at their private-use
# code points (U+F000 + the font's own code). Read as such they were no mark: a bulleted list
# became a table of two columns ("\uf0b7 | the item's text").
_SYMBOL_BULLETS = {
    "\uf0b7": "•",  # Symbol, OpenSymbol
    "\uf0a7": "▪",  # Wingdings
    "\uf06e": "■",
    "\uf071": "❑",
    "\uf076": "❖",
    "\uf0d8": "➢",
    "\uf0fc": "✔",
}


def extract_lines(
    doc: pymupdf.Document,
    fix: SpanFix | None = None,
    fixed_fonts: frozenset[str] = frozenset(),
    samples: dict[str, list[str]] | None = None,
    line_fix: LineFix | None = None,
) -> list[PageLines]:
    """Every page's lines and how many characters each font sets on it. Spans in
    `fixed_fonts` pass through `fix`, lines with such spans through `line_fix`; the first
    spans of each font go to `samples`."""
    reader = _LineReader(fix, fixed_fonts, samples, line_fix)
    pages: list[PageLines] = []
    for page in doc:
        found: list[Line] = []
        fonts: dict[str, int] = {}
        info = page.get_text("dict", flags=_FLAGS)
        for block in info["blocks"]:
            if block.get("type", 0) != 0:
                continue
            reader.block_id += 1
            for line in block["lines"]:
                made = reader.line(line, page.number + 1, fonts)
                if made is not None:
                    found.append(made)
        # text set up or down the page: read as the page turned
        height = turn_lines(found, info, page) if found else page.rect.height
        if len(found) >= _PLOT_MARKS:
            found = _without_plot_marks(found)
        found = _marks_joined(found)
        pages.append(PageLines(page.number + 1, height, found, fonts))
    return pages


class _LineReader:
    """Lines made of PyMuPDF's lines of spans, their fonts counted and sampled."""

    def __init__(
        self,
        fix: SpanFix | None,
        fixed_fonts: frozenset[str],
        samples: dict[str, list[str]] | None,
        line_fix: LineFix | None,
    ) -> None:
        self.fix = fix
        self.fixed_fonts = fixed_fonts
        self.samples = samples
        self.line_fix = line_fix
        self.block_id = 0  # a page-independent number of the block being read
        self.sampled: set[str] = set()  # fonts whose sample is full
        self.styles: dict[tuple[str, int], tuple[bool, bool, bool]] = {}  # (font, flags) → …

    def style(self, span: dict) -> tuple[bool, bool, bool]:
        """Whether a span's font is bold, whether it is monospaced, whether it is italic."""
        key = (span["font"], span["flags"])
        found = self.styles.get(key)
        if found is None:
            font, flags = key
            found = self.styles[key] = (
                bool(flags & 16) or "bold" in font.lower(),
                (bool(flags & 8) and not OCR_FONT.search(font)) or bool(MONO_NAME.search(font)),
                bool(flags & 2) or bool(_ITALIC_NAME.search(font)),
            )
        return found

    def prose_size(self, spans: list[dict]) -> float | None:
        """The size most of a line's words not in a monospaced font are set in: inline code
        set smaller than its words ("5.1. Файл `README.Debian`" in a 16-pt heading, code at
        11 pt) may hold most of its characters, not its size (taken when larger: a command's
        placeholder in a small italic is the code's, "\\avrloadihex{filename}")."""
        sizes: Counter[float] = Counter()
        for s in spans:
            if not self.style(s)[1] and _PROSE.search(s["text"]):
                sizes[round(s["size"], 1)] += len(s["text"].strip())
        return sizes.most_common(1)[0][0] if sizes else None

    def line(self, line: dict, page: int, fonts: dict[str, int]) -> Line | None:
        """The Line a PyMuPDF line makes (None when it holds no text); its characters are
        counted in `fonts`, the font of each."""
        spans = list(filter(_TEXT, line["spans"]))
        if not spans:
            return None
        fixed = False
        if self.fix is not None:
            for s in spans:
                if s["font"] in self.fixed_fonts:
                    s["text"] = self.fix(s["font"], s["text"])
                    fixed = True
        first = spans[0]
        samples = self.samples
        note_mark = False
        # most lines: one font throughout (MuPDF ends a span at each space it adds)
        if len(spans) == 1 or len(set(map(_STYLE, spans))) == 1:
            joined = "".join(map(_TEXT, spans)) if spans[1:] else first["text"]
            font = first["font"]
            fonts[font] = fonts.get(font, 0) + len(joined)
            if samples is not None and font not in self.sampled:
                sample = samples.setdefault(font, [])
                if len(sample) < _SAMPLE_SPANS or not joined.isascii() or CONTROL.search(joined):
                    _sample(spans, samples, self.sampled)
            text = joined.strip()
            size = round(first["size"], 1)
            bold, mono, italic = self.style(first)
            code, mono_ends = mono, (mono, mono)
        else:
            for s in spans:
                fonts[s["font"]] = fonts.get(s["font"], 0) + len(s["text"])
            if samples is not None:
                _sample(spans, samples, self.sampled)
            words = [s for s in spans if not s["text"].isspace()] or spans
            text, note_mark = mixed_text(spans, words)
            weights: Counter[tuple[float, bool, bool]] = Counter()
            slanted = 0
            for s in spans:
                bold, mono, italic = self.style(s)
                n = len(s["text"].strip()) or 1
                weights[(round(s["size"], 1), bold, mono)] += n
                slanted += n if italic else -n
            (size, bold, mono), _ = weights.most_common(1)[0]
            italic = slanted > 0
            if mono:
                size = max(size, self.prose_size(spans) or size)
            code = all(self.style(s)[1] for s in words)
            mono_ends = (self.style(words[0])[1], self.style(words[-1])[1])
        if fixed and self.line_fix is not None:
            text = self.line_fix(text)
        if not text:
            return None
        if text[0] in _SYMBOL_BULLETS and (len(text) == 1 or text[1].isspace()):
            text = _SYMBOL_BULLETS[text[0]] + text[1:]
        if not note_mark and RAISED_OPENING.match(text):
            # a font's own superscript digits (XeTeX's and dblatex's notes: "¹⁰То есть: …");
            # a footnote only at a page's foot in smaller type (pdf_notes.py)
            note_mark = True
        x0, y0, x1, y1 = line["bbox"]
        return Line(
            page,
            self.block_id,
            x0,
            y0,
            y1,
            text,
            size,
            bold,
            mono,
            x1,
            code,
            mono_ends,
            note_mark,
            italic,
        )


def _sample(spans: list[dict], samples: dict[str, list[str]], sampled: set[str]) -> None:
    """Each span's text to its font's sample, while the sample takes it; `sampled` gets the
    fonts whose sample is full."""
    for s in spans:
        font = s["font"]
        if font in sampled:
            continue
        sample = samples.setdefault(font, [])
        text = s["text"]
        if len(sample) < _SAMPLE_SPANS or (
            len(sample) < _SAMPLE_NON_ASCII_SPANS and (not text.isascii() or CONTROL.search(text))
        ):
            sample.append(text)
            if len(sample) >= _SAMPLE_NON_ASCII_SPANS:
                sampled.add(font)


# a list's marks (not a dash: a lone "–" is as often a table's empty cell)
LIST_MARKS = "•◦▪▫‣⁃●○■□❑❖►▸▹➢➤✓✔"


def _marks_joined(lines: list[Line]) -> list[Line]:
    """Each list mark set apart from its item (a tab after "•": Word's, LibreOffice's,
    ReportLab's lists) joined to the item on its row, within four font sizes of it, when the
    mark opens its row and the item a word: alone, the marks made a table's first column
    ("• | What is Python?") or paragraphs of their own."""
    marks = [ln for ln in lines if len(ln.text) == 1 and ln.text in LIST_MARKS]
    if not marks:
        return lines
    items: dict[int, Line] = {}  # item → its mark
    by_top = sorted(lines, key=lambda ln: ln.y0)  # a row's lines looked up, not every line
    tops = [ln.y0 for ln in by_top]
    tallest = max(ln.y1 - ln.y0 for ln in lines)
    for mark in marks:
        near = by_top[
            bisect.bisect_left(tops, mark.y0 - tallest) : bisect.bisect_right(tops, mark.y1)
        ]
        row = [
            ln
            for ln in near
            if ln is not mark
            and min(ln.y1, mark.y1) - max(ln.y0, mark.y0) > 0.3 * (mark.y1 - mark.y0)
        ]
        if any(ln.x0 < mark.x0 for ln in row):
            continue  # a table's sign in a column ("e | ● | ●", "◦ \\circ"), not a list's mark
        beside = [
            ln for ln in row if 0 <= ln.x0 - mark.x1 <= 4 * mark.size and ln.text[:1].isalnum()
        ]
        if beside:
            items.setdefault(id(min(beside, key=lambda ln: ln.x0)), mark)
    if not items:
        return lines
    joined = {id(mark) for mark in items.values()}
    return [
        # an item, not a listing's line, though its words be code ("• DEBIAN_FRONTEND=text")
        replace(
            ln,
            text=f"{mark.text} {ln.text}",
            x0=mark.x0,
            code=False,
            mono_ends=(mark.mono, ln.mono_ends[1]),
        )
        if (mark := items.get(id(ln)))
        else ln
        for ln in lines
        if id(ln) not in joined
    ]


# A page with this many lines of one and the same sign draws a plot with it: miniplot.pdf's
# figures set each data point as a ".", 35 000 of them a page (the densest table of symbols
# among 170 real PDFs has 150 one-sign lines, all different).
_PLOT_MARKS = 500


def _without_plot_marks(lines: list[Line]) -> list[Line]:
    """The page's lines without a sign it repeats _PLOT_MARKS times or more as a line of its
    own (a plot's data points)."""
    signs = Counter(ln.text for ln in lines if len(ln.text) == 1 and not ln.text.isalnum())
    marks = {sign for sign, n in signs.items() if n >= _PLOT_MARKS}
    return [ln for ln in lines if ln.text not in marks] if marks else lines


# a line opening with superscript digits and a word: a footnote's first line
RAISED_OPENING = re.compile(f"([{RAISED}]{{1,3}}) ?(?=[^\\W\\d_])")


def rows_of(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into visual rows (same baseline band), top to bottom."""
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.y0, ln.x0)):
        if rows and abs(rows[-1][0].y0 - line.y0) <= 2:
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def body_font_size(pages: list[PageLines]) -> float:
    """The size most characters of prose-like lines are set in."""
    sizes: Counter[float] = Counter()
    fallback: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            n = len(line.text)
            fallback[round(line.size * 2) / 2] += n
            if not line.mono and n >= 30 and " " in line.text:
                sizes[round(line.size * 2) / 2] += n
    counts = sizes or fallback
    return counts.most_common(1)[0][0] if counts else 10.0
