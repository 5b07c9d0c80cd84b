"""Legacy 8-bit PDF text layers re-decoded, correct ones left alone, unreadable ones refused:
on PDFs written here byte by byte (fonts without ToUnicode, as old pdfTeX and Word made them)."""

from __future__ import annotations

import pymupdf
import pytest

from mirage_pipeline.parsing import ParseError, parse_document
from mirage_pipeline.parsing.cyrillic_8bit import TABLES
from mirage_pipeline.parsing.pdf_encodings import _cyrillic
from mirage_pipeline.parsing.pdf_fonts import Font, garbled_pages
from mirage_pipeline.parsing.pdf_lines import Line, PageLines

# Latin letters T2A also declares as Cyrillic ones (\\CYRII at `I`): written at the Latin codes
_CYRILLIC_TWINS = {"T2A": {0x49: "І", 0x4A: "Ј", 0x69: "і", 0x6A: "ј"}}
# pdfTeX names the glyphs of its Type 3 (bitmap) fonts by their codes
_TEX_NAMES = " ".join(f"/a{code}" for code in range(256))


def _encode(text: str, encoding: str) -> bytes:
    """Text as the character codes of a font in the given encoding."""
    inverse = {char: code for code, char in enumerate(TABLES[encoding]) if char != "\x00"}
    inverse.update(
        {char: code for code, char in _CYRILLIC_TWINS.get(encoding, {}).items()}
    )  # і at i
    inverse.update({chr(code): code for code in range(0x20, 0x7F) if chr(code) not in inverse})
    return bytes(inverse[char] for char in text)


def _stream(body: str) -> str:
    return f"<< /Length {len(body.encode('latin-1'))} >>\nstream\n{body}\nendstream"


def _pdf(pages: list[list[bytes]], font: str, extra: list[str] | None = None) -> bytes:
    """A minimal PDF whose pages show their lines (character codes) in one font /F1.
    `font` is the font dictionary; object 1 is a glyph procedure (a box) it may use."""
    objects = [
        _stream("500 0 0 0 400 600 d1 0 0 400 600 re f"),
        font,
        *(extra or []),
    ]
    first_page = len(objects) + 1
    kids = []
    for lines in pages:
        content = b"BT /F1 11 Tf 14 TL 60 760 Td "
        for line in lines:  # TeX sets no space characters: words stand apart
            words = [b"(" + b"".join(b"\\%03o" % c for c in word) + b")" for word in line.split()]
            content += b"[" + b" -400 ".join(words) + b"] TJ T* "
        content += b"ET"
        objects.append(_stream(content.decode("latin-1")))
        kids.append(len(objects) + 1)
        objects.append(
            f"<< /Type /Page /Parent {first_page + 2 * len(pages)} 0 R /MediaBox [0 0 612 792]"
            f" /Contents {len(objects)} 0 R /Resources << /Font << /F1 2 0 R >> >> >>"
        )
    refs = " ".join(f"{k} 0 R" for k in kids)
    objects.append(f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>")
    objects.append(f"<< /Type /Catalog /Pages {len(objects)} 0 R >>")
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root {len(objects)} 0 R >>"
    return out + f"{trailer}\nstartxref\n{xref}\n%%EOF\n".encode()


def _type3(differences: str = _TEX_NAMES, extra: str = "") -> str:
    names = {name for name in differences.split() if name.startswith("/")}
    procs = " ".join(f"{name} 1 0 R" for name in sorted(names))
    return (
        "<< /Type /Font /Subtype /Type3 /Name /F16 /FontBBox [0 0 1000 1000]"
        " /FontMatrix [0.001 0 0 0.001 0 0] /FirstChar 0 /LastChar 255"
        f" /Widths [{' '.join(['500'] * 256)}] /CharProcs << {procs} >>"
        f" /Encoding << /Type /Encoding /Differences [0 {differences}] >>"
        f" /Resources << >> {extra}>>"
    )


def _text(doc) -> str:
    return "\n".join(b.text for _, s in doc.root.walk() for b in s.blocks)


UKRAINIAN = [
    "Український правопис: правила переносу",
    "Частини слів з одного рядка в другий слід переносити",
    "за складами: гай-ка, зо-шит, книж-ка, ко-ло-дязь.",
    "Не можна розривати сполучення літер дж і дз, які",
    "позначають один звук; їх переносять «разом» — ще раз.",
]
RUSSIAN = [
    "Не очень краткое введение в систему вёрстки",
    "Многое из включённого в это введение материала",
    "исходит из австрийского введения, написанного на",
    "немецком языке; его перевод сделан в прошлом году.",
]


def test_t2a_type3_fonts_are_re_decoded_with_a_warning() -> None:
    lines = [_encode(line, "T2A") for line in UKRAINIAN]
    assert _encode("слів", "T2A")[2:3] == b"i"  # T2A's і is the Latin i
    lines[2] = lines[2].replace(
        _encode("гай", "T2A"), _encode("г", "T2A") + b"\x01" + _encode("ай", "T2A")
    )
    raw = pymupdf.open(stream=_pdf([lines], _type3()))
    assert "Óêðà¨íñüêèé" in raw[0].get_text()  # what every extractor gives: Latin-1
    doc = parse_document(_pdf([lines], _type3()), "rules.pdf")
    text = _text(doc)
    assert text.startswith("Український правопис: правила переносу")
    assert "Частини слів з одного" in text  # i inside a Cyrillic word is і
    assert "гай-ка" in text  # the stress accent (code 1, U+FFFD in PyMuPDF) is dropped
    assert "дж і дз" in text and "їх переносять «разом» — ще раз." in text
    assert doc.warnings[0] == "page 1: text re-decoded from T2A (fonts without a Unicode map)"
    assert doc.metadata["legacy_encodings"] == ["T2A"]
    assert doc.metadata["language"] == "uk"


def test_t2a_hyphen_at_0x7f_rejoins_words_broken_at_line_ends() -> None:
    lines = [_encode(line, "T2A") for line in RUSSIAN]
    lines[2] = _encode("исходит из австрий", "T2A") + b"\x7f"
    lines.insert(3, _encode("ского введения, написанного на", "T2A"))
    text = _text(parse_document(_pdf([lines], _type3()), "lshort.pdf"))
    assert "из австрийского введения" in text
    assert "вёрстки" in text and "включённого" in text  # ё sits at 0xBC in T2A, not 0xB8


def test_lcy_fonts_are_re_decoded() -> None:
    lines = [_encode(line, "LCY") for line in RUSSIAN]
    assert any(0x80 <= code < 0xA0 for code in lines[0])  # А–Я: C1 codes once read as Latin-1
    doc = parse_document(_pdf([lines], _type3()), "lcy.pdf")
    assert _text(doc).startswith("Не очень краткое введение в систему вёрстки")
    assert doc.metadata["legacy_encodings"] == ["LCY"]


def test_x2_fonts_are_re_decoded_where_x2_differs_from_t2a() -> None:
    # Ossetian: ӕ sits at the code of Latin "a" in X2, which has no Latin letters
    ossetian = [
        "Ирон ӕвзаг ӕмӕ ирон литературӕйы истори",
        "Ӕхсӕв ӕрцыд ӕмӕ хӕхты сӕрмӕ стъалытӕ ссыдысты",
        "Фыдӕлты ӕгъдӕуттӕ ӕмӕ кадджытӕ ӕнусты цардысты",
    ]
    lines = [_encode(line, "X2") for line in ossetian]
    assert b"a" in lines[0]
    doc = parse_document(_pdf([lines], _type3()), "x2.pdf")
    assert _text(doc).startswith("Ирон ӕвзаг ӕмӕ ирон литературӕйы истори")
    assert doc.metadata["legacy_encodings"] == ["X2"]


def test_english_words_with_ligatures_keep_a_t2a_font_t2a() -> None:
    """lshort-ukr rebuilt: a font setting “shelﬀul” among Ukrainian words. Read in T2A the
    ﬀ made an English word count as Cyrillic gone wrong, in Windows-1251 it was a control
    character: Windows-1251 won, and quotes, ligatures and і were lost."""
    ukrainian = [
        "Не “shelﬀul”, а “shelfful” — так пишуть у книжках",
        "Не читайте цього, це неправда; пишуть “oﬃce” та “oﬄine”",
        "Це також неправда, але пам’ятайте: вони брехуни",
    ]
    lines = [_encode(line, "T2A") for line in ukrainian]
    doc = parse_document(_pdf([lines], _type3()), "lshort-ukr.pdf")
    assert doc.metadata["legacy_encodings"] == ["T2A"]
    assert "Не “shelfful”, а “shelfful” — так пишуть" in _text(doc)


def test_serbian_letters_keep_a_t2a_font_t2a() -> None:
    """serbian-def-cyr rebuilt: read in X2, њ is a closing guillemet that cuts the word
    ("Упознава»е"), which had scored better than the Serbian letters T2A gives."""
    serbian = [
        "Упознавање са језиком и његовим писмом",
        "Њихова књига је објављена у Београду прошле године",
        "Ђаци уче ћирилицу, а љубав према њој расте",
    ]
    lines = [_encode(line, "T2A") for line in serbian]
    doc = parse_document(_pdf([lines], _type3()), "proba.pdf")
    assert doc.metadata["legacy_encodings"] == ["T2A"]
    assert _text(doc).startswith("Упознавање са језиком")


def test_ligatures_of_latin_tex_fonts_are_letters_again() -> None:
    """mlsquick (MonTeX): Latin Type 3 fonts without a Unicode map set ﬀ ﬁ ﬂ ﬃ ﬄ at 0x1B–0x1F
    (T1); PyMuPDF read control characters and dropped them: "dierent", "rst", "eect"."""
    ff, fi, ffi = b"\x1b", b"\x1c", b"\x1e"
    lines = [
        b"The " + fi + b"rst result is di" + ff + b"erent from the second one",
        b"and the e" + ff + b"ect of the change is su" + ffi + b"cient for us",
        b"Oliver Cor" + ff + b" wrote the " + fi + b"le and the o" + ffi + b"ce kept it",
    ]
    doc = parse_document(_pdf([lines], _type3()), "paper.pdf")
    text = _text(doc)
    assert "The first result is different from the second one" in text
    assert "effect of the change is sufficient" in text and "Oliver Corff" in text
    assert doc.metadata["legacy_encodings"] == ["T1"]


def test_ligatures_found_after_a_fonts_first_hundred_spans() -> None:
    """tikz-karnaugh's manual (MiKTeX, Type 3 EC fonts) sets each word a span of its own; its
    font's text sample kept its first 100 spans, then non-ASCII ones only, and "identi\\x1cers"
    is ASCII: no ligature was ever seen, 166 stayed control characters. Spans holding one are
    sampled too."""
    fi, ff = b"\x1c", b"\x1b"
    plain = [b"a plain line of words set one span a word by the font" for _ in range(40)]
    lines = [
        b"identi" + fi + b"ers are di" + ff + b"erent from the rest of the text",
        b"the " + fi + b"rst " + fi + b"le is simpli" + fi + b"ed in the second one",
    ]
    doc = parse_document(_pdf([plain, plain, lines], _type3()), "karnaugh.pdf")
    text = _text(doc)
    assert "identifiers are different" in text and "the first file is simplified" in text
    assert doc.metadata["legacy_encodings"] == ["T1"]


def test_ot2_is_found_by_the_font_name() -> None:
    # Washington Cyrillic puts Cyrillic at ASCII codes: "Privet" is "Привет"
    font = "<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+WNCYR10 >>"
    lines = [_encode(line, "OT2") for line in RUSSIAN[2:]]
    assert lines[0].isascii()
    doc = parse_document(_pdf([lines], font), "wncyr.pdf")
    assert _text(doc).startswith("исходит из австрийского введения, написанного на")
    assert doc.metadata["legacy_encodings"] == ["OT2"]


def test_windows_1251_truetype_fonts_are_re_decoded() -> None:
    # an old Word export: a Cyrillic TrueType font declared WinAnsi, without ToUnicode
    font = (
        "<< /Type /Font /Subtype /TrueType /BaseFont /TimesNewRomanCyr"
        " /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255"
        f" /Widths [{' '.join(['500'] * 224)}] >>"
    )
    lines = [line.encode("cp1251") for line in [*RUSSIAN, "Цитата: «ёлка» — №5"]]
    doc = parse_document(_pdf([lines], font), "word.pdf")
    text = _text(doc)
    assert text.startswith("Не очень краткое введение в систему вёрстки")
    assert "«ёлка» — №5" in text  # 0x80–0x9F came out as WinAnsi (— is 0x97)
    assert doc.warnings[0].endswith(
        "text re-decoded from Windows-1251 (fonts without a Unicode map)"
    )


def test_koi8_fonts_are_told_from_windows_1251_by_their_letters() -> None:
    """KOI8-R read as Windows-1251 gives words of Cyrillic letters too ("оЕ ПЮЕОШ ЛТБФЛПЕ"
    for "Не очень краткое"), as plausible by case and script: it was taken for Windows-1251.
    The letters' frequencies in running text tell the two apart, in Russian and Ukrainian."""
    font = (
        "<< /Type /Font /Subtype /TrueType /BaseFont /TimesKOI8"
        " /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255"
        f" /Widths [{' '.join(['500'] * 224)}] >>"
    )
    for lines, start in (
        ([line.encode("koi8-r") for line in RUSSIAN], "Не очень краткое введение в систему"),
        ([line.encode("koi8-u") for line in UKRAINIAN[:4]], "Український правопис: правила"),
    ):
        doc = parse_document(_pdf([lines], font), "koi8.pdf")
        assert _text(doc).startswith(start)
        assert doc.warnings[0].endswith("from KOI8-R/KOI8-U (fonts without a Unicode map)")
        assert doc.metadata["legacy_encodings"] == ["KOI8-R/KOI8-U"]


def _latin_1(text: str, codec: str) -> str:
    """Text as PyMuPDF prints a font in `codec` without a correct map: its codes as Latin-1."""
    return text.encode(codec).decode("latin-1")


def test_each_font_gets_its_encoding_heading_capitals_and_western_words_included() -> None:
    """The choice per font, on what PyMuPDF printed: a KOI8 heading font in capitals reads as
    lowercase words in Windows-1251 (case is no clue there, its letters are); a font with a
    map giving French and German words beside a mapped Windows-1251 body font keeps them."""
    body = " ".join(RUSSIAN * 2)
    heading = "ГЛАВА ПЕРВАЯ. ВВЕДЕНИЕ В СИСТЕМУ ВЁРСТКИ И ЕЁ ОСНОВНЫЕ ПОНЯТИЯ"
    fonts = {
        "Body": Font("Body", [11], "TrueType", text=_latin_1(body, "koi8-r")),
        "Bold": Font("Bold", [12], "TrueType", text=_latin_1(heading, "koi8-r")),
    }
    assert _cyrillic(fonts) == {"Body": "KOI8", "Bold": "KOI8"}
    western = "Le garçon a été très content; Müller und Schäfer saßen am Ufer. Déjà vu."
    fonts = {
        "Body": Font("Body", [11], "TrueType", True, text=_latin_1(body, "cp1251")),
        "Quote": Font("Quote", [12], "TrueType", True, text=western),
    }
    assert _cyrillic(fonts) == {"Body": "cp1251"}


def test_fonts_whose_unicode_map_or_glyph_names_read_them_as_latin_1_are_re_decoded() -> None:
    """A map (or glyph names) stating Latin-1 for a T2A or Windows-1251 font (Ghostscript
    writes one from WinAnsi's glyph names) gave "Óêðà¨íñüêèé" with no warning: the map is
    replaced as a missing one would be, and the warning says it was wrong."""
    lines = [_encode(line, "T2A") for line in UKRAINIAN]
    stated = _stream(
        "1 begincodespacerange <00> <FF> endcodespacerange"
        " 1 beginbfrange <00> <FF> <0000> endbfrange"
    )
    with_map = _pdf([lines], _type3(extra="/ToUnicode 3 0 R "), [stated])
    latin_names = _TEX_NAMES.replace("/a192 /a193", "/Agrave /Aacute")
    for data in (with_map, _pdf([lines], _type3(latin_names))):
        assert "Óêðà¨íñüêèé" in pymupdf.open(stream=data)[0].get_text()
        doc = parse_document(data, "stated.pdf")
        assert _text(doc).startswith("Український правопис: правила переносу")
        assert doc.warnings[0] == (
            "page 1: text re-decoded from T2A (fonts without a correct Unicode map)"
        )
        assert doc.metadata["legacy_encodings"] == ["T2A"]
    word = (
        "<< /Type /Font /Subtype /TrueType /BaseFont /TimesNewRomanCyr"
        " /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255"
        f" /Widths [{' '.join(['500'] * 224)}] /ToUnicode 3 0 R >>"
    )
    lines = [line.encode("cp1251") for line in RUSSIAN]
    doc = parse_document(_pdf([lines], word, [stated]), "word.pdf")
    assert _text(doc).startswith("Не очень краткое введение в систему вёрстки")
    assert doc.warnings[0].endswith("from Windows-1251 (fonts without a correct Unicode map)")


def test_fonts_whose_unicode_map_gives_western_text_are_left_alone() -> None:
    """Latin-1 that is what it says: French and German words with their accents and umlauts,
    the same map as above — a letter or two in ten above ASCII, not most of them."""
    western = [
        "Le garçon a été très content de voir la fenêtre ouverte.",
        "Müller und Schäfer saßen gemütlich am Ufer des Flusses.",
        "Déjà vu: où est la bibliothèque? Über die Brücke gehen.",
    ]
    stated = _stream(
        "1 begincodespacerange <00> <FF> endcodespacerange"
        " 1 beginbfrange <00> <FF> <0000> endbfrange"
    )
    lines = [line.encode("latin-1") for line in western]
    doc = parse_document(_pdf([lines], _type3(extra="/ToUnicode 3 0 R "), [stated]), "fr.pdf")
    assert _text(doc).split("\n")[0].startswith("Le garçon a été très content")
    assert "Müller und Schäfer" in _text(doc)
    assert not any("re-decoded" in w for w in doc.warnings)
    assert "legacy_encodings" not in doc.metadata


def test_plain_latin_1_text_is_not_taken_for_cyrillic() -> None:
    german = ["Größere Übungen für Änderungen", "Straße, Maß und Fußgänger überqueren"]
    lines = [line.encode("latin-1") for line in german * 3]
    doc = parse_document(_pdf([lines], _type3()), "de.pdf")
    assert _text(doc).startswith("Größere Übungen für Änderungen")
    assert "legacy_encodings" not in doc.metadata


def _cid_pdf(pages: list[str | None]) -> bytes:
    """Pages of text in a built-in font (None) or an Identity-H font whose ToUnicode is gone."""
    doc = pymupdf.open()
    font = pymupdf.Font("cjk")
    for text in pages:
        page = doc.new_page()
        if text is None:
            page.insert_font(fontname="F0", fontbuffer=font.buffer)
            for i in range(12):
                page.insert_text((50, 80 + 20 * i), "Unmapped glyph ids only", fontname="F0")
        else:
            for i, line in enumerate(text.split("\n")):
                page.insert_text((50, 80 + 20 * i), line, fontname="helv")
    for xref in range(1, doc.xref_length()):
        if doc.xref_get_key(xref, "ToUnicode")[0] == "xref":
            doc.xref_set_key(xref, "ToUnicode", "null")
    return doc.tobytes()


def test_identity_h_without_tounicode_is_refused_like_a_scan() -> None:
    with pytest.raises(ParseError) as failure:
        parse_document(_cid_pdf([None, None]), "glyphs.pdf")
    assert str(failure.value) == (
        "the PDF's text layer cannot be read (fonts without a Unicode mapping); "
        "OCR is not supported"
    )


def test_unreadable_pages_of_a_mixed_document_are_left_out() -> None:
    prose = "\n".join(["This page has ordinary text in a font with a Unicode map."] * 6)
    doc = parse_document(_cid_pdf([prose, None, None, prose]), "mixed.pdf")
    assert "pages 2–3: text layer unreadable (fonts without a Unicode mapping), left out" in (
        doc.warnings
    )
    pages = {b.page for _, s in doc.root.walk() for b in s.blocks}
    assert pages == {1, 4}
    assert "glyph" not in _text(doc).lower()


def test_thousands_of_short_pages_are_a_document() -> None:
    words = [
        "apple",
        "river",
        "stone",
        "cloud",
        "maple",
        "tiger",
        "lemon",
        "violet",
        "copper",
        "harbor",
    ]
    doc = pymupdf.open()
    for n in range(5000):
        line = " ".join(words[(n // 10**k) % 10] for k in range(4))  # a different line each
        doc.new_page(width=300, height=200).insert_text((20, 100), line)
    parsed = parse_document(doc.tobytes(), "log.pdf")
    assert parsed.pages == 5000
    assert "harbor harbor harbor maple" in _text(parsed)  # page 5000


def test_a_pdf_without_body_text_is_named_plainly() -> None:
    doc = pymupdf.open()
    for n in range(4):
        doc.new_page().insert_text((50, 800), str(n + 1))  # page numbers only
    with pytest.raises(ParseError) as failure:
        parse_document(doc.tobytes(), "numbers.pdf")
    assert str(failure.value) == (
        "PDF without body text: 4 characters of text on 4 pages, and no scanned images"
        " either (a broken export?); nothing to index"
    )


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # the tag tells what the text's alphabet does not (Cyrillic without Ukrainian letters)
        ("uk-UA", "Мама мила раму, а тато читав книгу вдома.", "uk"),
        # a word processor's locale, not the text's language (LibreOffice on an English system)
        ("en-US", "Съешь же ещё этих мягких французских булок, да выпей чаю.", "ru"),
        ("", "The quick brown fox jumps over the lazy dog and the cat.", "en"),
        ("", "Съешь же ещё этих мягких французских булок, да выпей чаю.", "ru"),
    ],
)
def test_pdf_language_from_lang_or_from_the_text(lang: str, text: str, expected: str) -> None:
    doc = pymupdf.open()
    font = pymupdf.Font("cjk")  # a font with a Unicode map, for the Cyrillic text
    for _ in range(2):
        page = doc.new_page()
        page.insert_font(fontname="F0", fontbuffer=font.buffer)
        for i in range(10):
            page.insert_text((50, 80 + 20 * i), text, fontname="F0")
    if lang:
        doc.xref_set_key(doc.pdf_catalog(), "Lang", f"({lang})")
    assert parse_document(doc.tobytes(), "lang.pdf").metadata["language"] == expected


def test_cyrillic_title_on_the_page_wins_over_a_latin_one_in_the_metadata() -> None:
    """lshort-ukr's metadata names the English original ("The not so short introduction to
    LaTeX"); its first page, and every chunk's citation, should say "Не надто короткий вступ"."""
    doc = pymupdf.open()
    font = pymupdf.Font("cjk")
    page = doc.new_page()
    page.insert_font(fontname="F0", fontbuffer=font.buffer)
    page.insert_text((50, 80), "Не надто короткий вступ", fontname="F0", fontsize=18)
    for i in range(10):
        page.insert_text((50, 120 + 20 * i), "Цей документ розповідає про LaTeX.", fontname="F0")
    doc.set_metadata({"title": "The not so short introduction to LaTeX"})
    assert parse_document(doc.tobytes(), "lshort-ukr.pdf").title == "Не надто короткий вступ"
    doc.set_metadata({"title": "Не дуже короткий вступ"})  # a Cyrillic metadata title stays
    assert parse_document(doc.tobytes(), "lshort-ukr.pdf").title == "Не дуже короткий вступ"


def test_a_contents_heading_is_no_documents_title() -> None:
    """xfig's manual, printed from HTML, says "Contents" in its metadata and atop its first
    page (its contents): every citation named the book "Contents". The file's name is better."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 80), "Contents", fontsize=18)
    for i in range(10):
        page.insert_text((50, 120 + 20 * i), f"{i + 1}. Drawing objects, part {i + 1}")
    doc.set_metadata({"title": "Contents"})
    assert parse_document(doc.tobytes(), "xfig-manual.pdf").title == "xfig-manual"
    doc.set_metadata({"title": "Xfig User Manual"})
    assert parse_document(doc.tobytes(), "xfig-manual.pdf").title == "Xfig User Manual"
    doc.set_metadata({})
    page.insert_text((50, 40), "Xfig User Manual", fontsize=24)  # the page's own title
    assert parse_document(doc.tobytes(), "xfig-manual.pdf").title == "Xfig User Manual"


def test_a_numbered_heading_others_share_the_size_of_is_no_documents_title() -> None:
    """Help pages printed into one PDF open with their first page's heading, "2.5. Searching
    files", set as big as "2.6. Renaming files" further on: not the document's title, which
    is read in front of every passage. One numbered heading of its own size is the title."""
    doc = pymupdf.open()
    for heading in ("2.5. Searching files", "2.6. Renaming files"):
        page = doc.new_page()
        page.insert_text((50, 60), heading, fontsize=20)
        for i in range(10):
            page.insert_text((50, 100 + 20 * i), f"Line {i + 1} of the help page on this task.")
    assert parse_document(doc.tobytes(), "doublecmd-help.pdf").title == "doublecmd-help"
    doc[1].add_redact_annot(pymupdf.Rect(40, 35, 400, 70))
    doc[1].apply_redactions()
    doc[1].insert_text((50, 60), "2.6. Renaming files", fontsize=16)
    assert parse_document(doc.tobytes(), "doublecmd-help.pdf").title == "2.5. Searching files"


def test_text_no_encoding_reads_is_left_out_not_indexed_as_latin_1() -> None:
    """An 8-bit font none of the tables reads (ISO 8859-7 Greek: "Ç ÁèÞíá åßíáé"): half a
    page's letters in Latin-1's upper half is no language's text. Such pages are left out with
    a warning, as unreadable ones are; a document of nothing else ends in a named error."""
    font = (
        "<< /Type /Font /Subtype /TrueType /BaseFont /GreekOld"
        " /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255"
        f" /Widths [{' '.join(['500'] * 224)}] >>"
    )
    greek = [
        "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και μία από τις αρχαιότερες πόλεις",
        "του κόσμου, με ιστορία που εκτείνεται σε περισσότερα από τρεις χιλιάδες",
        "χρόνια. Σήμερα είναι το πολιτικό, οικονομικό και πολιτιστικό κέντρο της χώρας.",
    ]
    garbled = [line.encode("iso8859-7") for line in greek]
    english = [b"The guide starts with the city in English, then goes on in Greek."] * 3
    doc = parse_document(_pdf([english, garbled], font), "athens.pdf")
    assert "then goes on in Greek" in _text(doc) and "Á" not in _text(doc)
    assert doc.warnings[0] == (
        "page 2: text in an 8-bit encoding that could not be re-decoded (another alphabet's"
        " letters read as Latin-1), left out"
    )
    with pytest.raises(ParseError, match="8-bit encoding miRAGe cannot re-decode"):
        parse_document(_pdf([garbled], font), "greek.pdf")


def test_a_page_of_cyrillic_read_as_latin_1_is_not_taken_for_garbage() -> None:
    """A page half Latin-1 letters is left out only when it reads as no Cyrillic either: one
    whose Windows-1251 or KOI8 a font's own map read as Latin-1, with too many Latin words
    for the font to be re-decoded, is decoded passage by passage after parsing (misread_text);
    and a chart of Latin-1's letters set apart is no text read wrong."""

    def page(text: str) -> PageLines:
        return PageLines(1, 800.0, [Line(1, 1, 60.0, 100.0, 110.0, text, 11.0, False, False)])

    russian = " ".join(RUSSIAN)
    greek = "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και μία από τις αρχαιότερες πόλεις"
    for codec in ("cp1251", "koi8-r"):
        assert garbled_pages([page(russian.encode(codec).decode("latin-1"))]) == []
    assert garbled_pages([page(greek.encode("iso8859-7").decode("latin-1"))]) == [1]
    chart = " ".join(chr(code) for code in range(0xC0, 0x100) if code not in (0xD7, 0xF7))
    assert garbled_pages([page(f"Latin-1's letters: {chart} {chart}")]) == []
