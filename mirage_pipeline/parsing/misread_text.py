"""Cyrillic read through the wrong 8-bit encoding before it became Unicode, in any format.

- Converted as if it were Latin-1: an old Windows-1251 or KOI8 e-book saved to UTF-8 by a tool
  that took its bytes for Latin-1 ("Ïðàâèëà" for "Правила", "ðÒÁ×ÉÌÁ" in KOI8). In the
  passages where a third of the letters or more are Latin-1's upper half, each run of such
  characters that touches no ASCII letter is decoded as written ("Zürich", "café" beside them
  stay), in the encoding whose letters read as the most plausible Cyrillic words over all of
  them (cyrillic_8bit.py, as a PDF font's). Characters beyond Latin-1 ("—", "“") are left.
- Read in the other Cyrillic encoding: KOI8 taken for Windows-1251 ("оЕ ПЮЕОШ ЛТБФЛПЕ" for "Не
  очень краткое": an FB2 or web page declaring the wrong one, a file converted so once) or the
  reverse ("Мс НВЕМЭ"). The letters are Cyrillic, in a permuted alphabet and swapped case: when
  the document's Cyrillic reads far likelier the other way and more of it lowercase, each
  passage that itself reads likelier so is read back (a clean appendix stays as it is).

Each repair is one decision for the whole document and a warning counting the passages."""

from __future__ import annotations

import re
from collections.abc import Callable

from mirage_pipeline.parsing import pdf_encoding_tables as tex
from mirage_pipeline.parsing.cyrillic_8bit import (
    LABELS,
    LATIN_1_LETTER,
    LIKELIER,
    TABLES,
    TEXT_ENCODINGS,
    best_reading,
    cyrillic_letters,
    letter_likelihood,
    lower_share,
)
from mirage_pipeline.parsing.model import ParsedDocument

_MISREAD_SHARE = 0.3  # of a passage's letters: French or German has a tenth at most
_MISREAD_MIN = 40  # such letters in the document, for its encoding to be told
# the least likely letters (mean log frequency) prose has: Russian and Ukrainian 3.5–3.9; a
# table of Latin-1's letters read as the alphabet 2.9, a list of acronyms in capitals 2.9
_PROSE_LETTERS = 3.2
_EXAMPLES = {"cp1251": "Ïðàâèëà", "KOI8": "ðÒÁ×ÉÌÁ"}  # "Правила" read as Latin-1
# a run of Latin-1's upper half touching no ASCII letter: a misread word, not "Zürich"
_RUN = re.compile(r"(?<![A-Za-z])[\x80-\xff]+(?![A-Za-z])")
_SWAPS = (("KOI8", "cp1251"), ("cp1251", "KOI8"))  # (written in, read as)
_SWAP_LETTERS_MIN = 200  # Cyrillic letters the document needs for its alphabet to be judged
_SWAP_SAMPLE = 5000  # … and as many as its alphabet is judged on


def _latin_1_table(encoding: str) -> dict[int, str]:
    """Latin-1's upper half → the encoding's characters at those codes."""
    table = TABLES[encoding]
    return {code: table[code] for code in range(0x80, 0x100) if table[code] != tex.UNUSED}


def _swap_table(written: str, read: str) -> dict[int, str]:
    """Each letter of `read`'s upper half → `written`'s letter at the same code (a dash or a
    quote of the text stays what it is)."""
    return {
        ord(TABLES[read][code]): TABLES[written][code]
        for code in range(0x80, 0x100)
        if TABLES[read][code].isalpha() and TABLES[written][code].isalpha()
    }


_LATIN_1 = {encoding: _latin_1_table(encoding) for encoding in TEXT_ENCODINGS}
_SWAP_TABLES = {swap: _swap_table(*swap) for swap in _SWAPS}


def redecode_misread(doc: ParsedDocument) -> None:
    """`doc`'s titles and blocks decoded as written where they were misread, in place, with a
    warning for each repair made."""
    encoding = _converted_from(_texts(doc))
    if encoding:
        table = _LATIN_1[encoding]
        count = _apply(doc, lambda text: _converted_back(text, table))
        label = LABELS.get(encoding, encoding)
        _warn(doc, count, f'Cyrillic in {label} read as Latin-1 ("{_EXAMPLES[encoding]}")')
    swap = _swapped(_texts(doc))
    if swap:
        table = _SWAP_TABLES[swap]
        count = _apply(doc, lambda text: _read_back(text, table))
        written, read = (LABELS.get(name, name) for name in swap)
        _warn(doc, count, f"Cyrillic in {written} read as {read}")


def _texts(doc: ParsedDocument) -> list[str]:
    authors = doc.metadata.get("authors")
    texts = [doc.title, *(authors if isinstance(authors, list) else [])]
    for _, section in doc.root.walk():
        texts.append(section.title)
        texts.extend(block.text for block in section.blocks)
    return [text for text in texts if isinstance(text, str)]


def _apply(doc: ParsedDocument, redo: Callable[[str], str | None]) -> int:
    """`redo` applied to every title, author and block (None: left as it is); how many of them
    changed."""
    count = 0

    def done(text: str) -> str:
        nonlocal count
        new = redo(text) if isinstance(text, str) else None
        if new is None or new == text:
            return text
        count += 1
        return new

    doc.title = done(doc.title)
    if isinstance(authors := doc.metadata.get("authors"), list):
        doc.metadata["authors"] = [done(name) for name in authors]
    for _, section in doc.root.walk():
        section.title = done(section.title)
        for block in section.blocks:
            block.text = done(block.text)
    return count


def _warn(doc: ParsedDocument, count: int, what: str) -> None:
    if count:
        doc.warnings.append(f"{count} passage{'s' if count > 1 else ''} held {what}: re-decoded")


def _misread(text: str) -> bool:
    if not LATIN_1_LETTER.search(text):
        return False
    high = len(LATIN_1_LETTER.findall(text))
    return high >= 2 and high >= _MISREAD_SHARE * sum(c.isalpha() for c in text)


def _converted_back(text: str, table: dict[int, str]) -> str | None:
    """A misread passage's runs of Latin-1's upper half decoded as written: a lone letter
    ("à", "â" for "в") only beside a misread word of two or more (a French "à" stays)."""
    if not _misread(text) or not any(len(run) > 1 for run in _RUN.findall(text)):
        return None
    return _RUN.sub(lambda run: run.group().translate(table), text)


def _converted_from(texts: list[str]) -> str:
    """The encoding the misread passages were written in, or "" (none, or they read as no
    Cyrillic)."""
    sample = " ".join(text for text in texts if _misread(text))
    if len(LATIN_1_LETTER.findall(sample)) < _MISREAD_MIN:
        return ""
    encoding = best_reading(sample, TEXT_ENCODINGS)
    letters = cyrillic_letters(sample.translate(_LATIN_1[encoding])) if encoding else []
    return encoding if letter_likelihood(letters) >= _PROSE_LETTERS else ""


def _swapped(texts: list[str]) -> tuple[str, str] | None:
    """(written in, read as) when the document's Cyrillic reads far likelier the other way,
    in more lowercase; None when it reads best as it is."""
    sample: list[str] = []  # the passages holding its first _SWAP_SAMPLE Cyrillic letters
    letters: list[str] = []
    for text in texts:
        found = cyrillic_letters(text)
        if found:
            sample.append(text)
            letters += found
            if len(letters) >= _SWAP_SAMPLE:
                break
    if len(letters) < _SWAP_LETTERS_MIN:
        return None
    likelihood, lower = letter_likelihood(letters), lower_share(letters)
    for swap in _SWAPS:
        table = _SWAP_TABLES[swap]
        other = [c for text in sample for c in cyrillic_letters(text.translate(table))]
        if letter_likelihood(other) > likelihood + LIKELIER and lower_share(other) > lower:
            return swap
    return None


def _read_back(text: str, table: dict[int, str]) -> str | None:
    """The passage read the other way, when that reads at least as likely, in as much
    lowercase (a passage of the document that was never misread stays)."""
    letters = cyrillic_letters(text)
    if not letters:
        return None
    back = text.translate(table)
    other = cyrillic_letters(back)
    if letter_likelihood(other) > letter_likelihood(letters) and lower_share(other) >= lower_share(
        letters
    ):
        return back
    return None
