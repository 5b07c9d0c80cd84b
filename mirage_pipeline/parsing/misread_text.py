"""Cyrillic read through the wrong 8-bit encoding before it became Unicode, in any format.

- Converted as if it were Latin-1: an old Windows-1251 or KOI8 e-book saved to UTF-8 by a tool
  that took its bytes for Latin-1 ("Ïðàâèëà" for "Правила", "ðÒÁ×ÉÌÁ" in KOI8). The passages
  where a third of the letters or more are Latin-1's upper half are decoded as written, in the
  encoding whose letters read as the most plausible Cyrillic words over all of them
  (cyrillic_8bit.py, as a PDF font's).
- Read in the other Cyrillic encoding: KOI8 taken for Windows-1251 ("оЕ ПЮЕОШ ЛТБФЛПЕ" for "Не
  очень краткое": an FB2 or web page declaring the wrong one, a file converted so once) or the
  reverse ("Мс НВЕМЭ"). The letters are Cyrillic, in a permuted alphabet and swapped case: the
  document's Cyrillic is read back the other way when that makes its letters far likelier in
  running text and more of them lowercase.

Each repair is one decision for the whole document and a warning counting the passages."""

from __future__ import annotations

import re
from collections.abc import Callable

from mirage_pipeline.parsing.cyrillic_8bit import (
    LABELS,
    LIKELIER,
    TEXT_ENCODINGS,
    best_reading,
    cyrillic_letters,
    decode,
    letter_likelihood,
)
from mirage_pipeline.parsing.model import ParsedDocument

# Latin-1's letters above ASCII (not × and ÷): where Cyrillic read as Latin-1 lands
_LATIN_1_LETTER = re.compile("[\xc0-\xd6\xd8-\xf6\xf8-\xff]")
_MISREAD_SHARE = 0.3  # of a passage's letters: French or German has a tenth at most
_MISREAD_MIN = 40  # such letters in the document, for its encoding to be told
_EXAMPLES = {"cp1251": "Ïðàâèëà", "KOI8": "ðÒÁ×ÉÌÁ"}  # "Правила" read as Latin-1
# (written in, read as) Python codecs; KOI8-U holds KOI8-R's letters and Ukrainian's
_SWAPS = (("koi8_u", "cp1251"), ("cp1251", "koi8_u"))
_SWAP_NAMES = {"koi8_u": "KOI8-R/KOI8-U", "cp1251": "Windows-1251"}
_SWAP_LETTERS_MIN = 200  # Cyrillic letters the document needs for its alphabet to be judged
_SWAP_SAMPLE = 5000  # … and as many as its alphabet is judged on


def redecode_misread(doc: ParsedDocument) -> None:
    """`doc`'s titles and blocks decoded as written where they were misread, in place, with a
    warning for each repair made."""
    texts = _texts(doc)
    encoding = _converted_from(texts)
    if encoding:
        count = _apply(doc, lambda text: decode(text, encoding) if _misread(text) else None)
        label = LABELS.get(encoding, encoding)
        _warn(doc, count, f'Cyrillic in {label} read as Latin-1 ("{_EXAMPLES[encoding]}")')
    swap = _swapped(_texts(doc))
    if swap:
        written, read = swap
        count = _apply(doc, lambda text: _read_back(text, written, read))
        _warn(doc, count, f"Cyrillic in {_SWAP_NAMES[written]} read as {_SWAP_NAMES[read]}")


def _texts(doc: ParsedDocument) -> list[str]:
    texts = [doc.title, *doc.metadata.get("authors", [])]
    for _, section in doc.root.walk():
        texts.append(section.title)
        texts.extend(block.text for block in section.blocks)
    return texts


def _apply(doc: ParsedDocument, redo: Callable[[str], str | None]) -> int:
    """`redo` applied to every title and block (None: left as it is); how many blocks changed."""
    count = 0
    doc.title = redo(doc.title) or doc.title
    if isinstance(authors := doc.metadata.get("authors"), list):
        doc.metadata["authors"] = [redo(name) or name for name in authors]
    for _, section in doc.root.walk():
        section.title = redo(section.title) or section.title
        for block in section.blocks:
            new = redo(block.text)
            if new is not None and new != block.text:
                block.text = new
                count += 1
    return count


def _warn(doc: ParsedDocument, count: int, what: str) -> None:
    if count:
        doc.warnings.append(f"{count} passage{'s' if count > 1 else ''} held {what}: re-decoded")


def _misread(text: str) -> bool:
    if not _LATIN_1_LETTER.search(text):
        return False
    high = len(_LATIN_1_LETTER.findall(text))
    return high >= 2 and high >= _MISREAD_SHARE * sum(c.isalpha() for c in text)


def _converted_from(texts: list[str]) -> str:
    """The encoding the misread passages were written in, or "" (none, or they read as no
    Cyrillic)."""
    sample = " ".join(text for text in texts if _misread(text))
    if len(_LATIN_1_LETTER.findall(sample)) < _MISREAD_MIN:
        return ""
    return best_reading(sample, TEXT_ENCODINGS)


def _swapped(texts: list[str]) -> tuple[str, str] | None:
    """(written in, read as) when the document's Cyrillic reads far likelier the other way,
    in more lowercase; None when it reads best as it is."""
    for written, read in _SWAPS:
        letters: list[str] = []
        other: list[str] = []
        for text in texts:
            back = _read_back(text, written, read)
            if back is not None:
                letters += cyrillic_letters(text)
                other += cyrillic_letters(back)
            if len(letters) >= _SWAP_SAMPLE:
                break
        if len(letters) < _SWAP_LETTERS_MIN:
            continue
        if letter_likelihood(other) > letter_likelihood(letters) + LIKELIER and _lower(
            other
        ) > _lower(letters):
            return written, read
    return None


def _lower(letters: list[str]) -> float:
    return sum(c.islower() for c in letters) / len(letters)


def _read_back(text: str, written: str, read: str) -> str | None:
    """`text` as `written` would have it, had it been read as `read`; None when it cannot
    have been (a character `read` does not hold)."""
    if not cyrillic_letters(text):
        return None
    try:
        return text.encode(read).decode(written)
    except UnicodeError:
        return None
