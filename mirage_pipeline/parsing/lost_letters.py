"""Text whose letters were lost before miRAGe read it: each written as one placeholder character.

- An OCR tool's text layer that could not write the language's alphabet: ocrmypdf's hocr
  renderer sets every Cyrillic letter as "n" over the scanned image ("nnnnn 1. nnnnn
  nnnnnnnnnn n DEBIAN" for "Глава 1. Основы Debian"), and the document read as English.
- A file converted to an encoding without the alphabet, each letter replaced by "?" ("????
  ?????? ??": Windows' ANSI code page, `encode(errors="replace")`).

No mapping brings the letters back and no search finds their words; what is left reads as noise
beside real matches. A word of one letter repeated ("nnnnn", "????") is the mark: real text has
next to none ("III", "zzz"), a lost alphabet has them in every line. A PDF's pages where they are
a third of the letters are left out (pdf.py); in any format, the passages holding them are
counted in a warning, and a document made of them (half its prose letters) is an error."""

from __future__ import annotations

import re

from mirage_pipeline.parsing.model import ParsedDocument, ParseError

# a word of one letter three times or more (either case; not a Roman numeral's, "III", "XXX"),
# or of question marks: not inside a word, a hyphenated mask ("xxx-xxxx"), an address
# ("www.debian.org") or a question ("What??")
_PLACEHOLDER = re.compile(
    r"(?<![\w?-])(?:((?![ivxlcdm])[^\W\d_])\1{2,}|\?{2,})(?![\w?-]|\.\w)", re.IGNORECASE
)
_LETTER = re.compile(r"[^\W\d_]|\?")
_WORD = re.compile(r"\S+")
PAGE_SHARE = 0.3  # of a page's letters: its alphabet was lost
_PAGE_MIN = 40  # such letters on a page: a line of "zzz" or "???" tells nothing
# placeholder words in a passage, and their share of its words: "nnnn nnn nnnnnn", not a date
# format ("dd month yyyy hh:mm:ss +zzzz") or a font's samples ("م ممم ࢧ ࢧࢧࢧ ه ههه")
_PASSAGE_WORDS = 5
_PASSAGE_SHARE = 0.5
_DOCUMENT_SHARE = 0.5
EXAMPLE = '"nnnn", "????"'


def lost_letters(text: str) -> tuple[int, int]:
    """(letters in placeholder words, letters and question marks) of `text`."""
    lost = sum(len(match[0]) for match in _PLACEHOLDER.finditer(text))
    return lost, len(_LETTER.findall(text)) if lost else 0


def page_lost(text: str) -> bool:
    """Whether a page's text has lost its alphabet."""
    lost, letters = lost_letters(text)
    return lost >= _PAGE_MIN and lost >= PAGE_SHARE * letters


def check_document(doc: ParsedDocument) -> None:
    """A warning counting `doc`'s passages (code aside) whose letters were lost; `ParseError`
    when they hold half its prose's letters."""
    blocks = [b for _, s in doc.root.walk() for b in s.blocks if b.kind != "code"]
    found = [(block, lost_letters(block.text)) for block in blocks]
    lost_total = sum(lost for _, (lost, _) in found)
    if not lost_total:
        return
    passages = sum(1 for block, (lost, _) in found if lost and _lost_passage(block.text))
    # the document's letters counted only when enough were lost to matter (a search of every
    # block: 3 % of a book's parse)
    if lost_total >= _PAGE_MIN:
        letters_total = sum(n if lost else len(_LETTER.findall(b.text)) for b, (lost, n) in found)
        if lost_total >= _DOCUMENT_SHARE * letters_total:
            raise ParseError(
                f"the text's letters were lost before miRAGe read it: each is one placeholder"
                f" character ({EXAMPLE}; {lost_total} of {letters_total} letters) — a conversion"
                " to an encoding without its alphabet, or an OCR layer that could not write it"
            )
    if passages:
        doc.warnings.append(
            f"{passages} passage{'s' if passages > 1 else ''} held text whose letters were lost"
            f" before miRAGe read it (each one placeholder character, {EXAMPLE}): its words"
            " cannot be found"
        )


def _lost_passage(text: str) -> bool:
    words = len(_PLACEHOLDER.findall(text))
    return words >= _PASSAGE_WORDS and words >= _PASSAGE_SHARE * len(_WORD.findall(text))
