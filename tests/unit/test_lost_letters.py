"""Text whose letters were lost before miRAGe read it (an OCR layer writing Cyrillic as "n", a
conversion writing it as "?") is left out or refused with a reason, never indexed silently."""

from __future__ import annotations

import re

import pymupdf
import pytest

from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import ParseError

RUSSIAN = (
    "Операционная система Debian состоит из нескольких основных программ, которые нужны "
    "компьютеру, чтобы он мог общаться с пользователем и получать от него инструкции, "
    "читать и записывать данные на жёсткий диск, ленты и принтеры, управлять памятью."
)
ENGLISH = (
    "The Debian system is made of programs the computer needs to talk to its user, read and "
    "write data on disks and printers, and manage memory and the other programs it runs."
)


def _hocr(text: str) -> str:
    """`text` as ocrmypdf's hocr renderer writes it: every Cyrillic letter an "n"."""
    return re.sub("[а-яёА-ЯЁ]", "n", text)


def _pdf(pages: list[str]) -> bytes:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=595, height=842)
        words, lines, line = text.split(), [], ""
        for word in words:
            if len(line) + len(word) > 70:
                lines.append(line)
                line = ""
            line = f"{line} {word}".strip()
        lines.append(line)
        for n, row in enumerate(lines * 3):
            page.insert_text((60, 80 + 14 * n), row, fontsize=10, fontname="helv")
    data = doc.tobytes()
    doc.close()
    return data


def _text(doc) -> str:
    return "\n".join(b.text for _, s in doc.root.walk() for b in s.blocks)


def test_pdf_pages_whose_ocr_layer_lost_the_alphabet_are_left_out_with_a_warning() -> None:
    doc = parse_document(_pdf([ENGLISH, _hocr(RUSSIAN), ENGLISH]), "scan.pdf")
    assert "nnnn" not in _text(doc)
    assert "manage memory" in _text(doc)
    assert [w for w in doc.warnings if "without its letters" in w] == [
        'page 2: text layer without its letters ("nnnn", "????"), left out'
    ]


def test_a_pdf_whose_every_page_lost_the_alphabet_is_an_error() -> None:
    with pytest.raises(ParseError, match="text layer lost its letters"):
        parse_document(_pdf([_hocr(RUSSIAN), _hocr(RUSSIAN)]), "scan.pdf")


def test_a_text_converted_to_question_marks_is_an_error() -> None:
    data = (RUSSIAN + "\n\n" + RUSSIAN + "\n").encode("cp1252", errors="replace")
    with pytest.raises(ParseError, match=r"letters were lost .*\"\?\?\?\?\"") as error:
        parse_document(data, "notes.txt")
    assert "of" in str(error.value)


def test_a_chapter_of_question_marks_in_a_book_is_kept_with_a_warning() -> None:
    lost = RUSSIAN.encode("cp1252", errors="replace").decode("cp1252")
    text = "\n\n".join(
        [
            "# Guide",
            "## One",
            ENGLISH,
            ENGLISH,
            "## Two",
            lost,
            "## Three",
            ENGLISH,
            ENGLISH,
        ]
    )
    doc = parse_document(text.encode(), "guide.md")
    assert doc.warnings == [
        "1 passage held text whose letters were lost before miRAGe read it (each one"
        ' placeholder character, "nnnn", "????"): its words cannot be found'
    ]
    assert "Debian" in _text(doc)


def test_placeholder_looking_words_of_real_text_warn_of_nothing() -> None:
    """Addresses, Roman numerals, date formats, a question, a font's samples, Russian "её"."""
    text = "\n\n".join(
        [
            "# Formats",
            "See www.debian.org and WWW.KERNEL.ORG for Part III and chapter XXX of volume II.",
            "Dates are written dd month yyyy hh:mm:ss +zzzz, as in mmm yyyy or YYYY-MM-DD.",
            "What?? Why??? Is ?? an operator? Её ее ааа — «Aaaaaaaaa» is a type sample.",
            "Samples: م ممم ࢧ ࢧࢧࢧ ه ههه ݦ ݦݦݦ ݥ ݥݥݥ in the Scheherazade font.",
            "```\nnnnn nnnnnn nnn nnnnnnn nnnnn ???? ????? ???\n```",
        ]
    )
    assert parse_document(text.encode(), "formats.md").warnings == []
