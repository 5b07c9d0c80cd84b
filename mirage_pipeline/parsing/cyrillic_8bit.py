"""Cyrillic in legacy 8-bit encodings read as Latin-1 ("Ïðàâèëà" for "Правила"), format-neutral:
the encodings' tables, decoding such text, and how plausible a decoding reads as Cyrillic words
(their case and script, and how likely their letters are in running text). PDF fonts
(pdf_encodings.py) and text converted through the wrong encoding (misread_text.py) are
re-decoded with them."""

from __future__ import annotations

import math
import re

from mirage_pipeline.parsing import pdf_encoding_tables as tex


def _spaced(table: str) -> str:
    """T2A and X2 draw a visible space (␣) at 0x20, which MuPDF leaves out: a space."""
    return table[:0x20] + " " + table[0x21:]


def _codec_table(codec: str) -> str:
    return "".join(
        bytes([code]).decode(codec, errors="replace").replace("\ufffd", tex.UNUSED)
        for code in range(256)
    )


TABLES: dict[str, str] = {
    "T2A": _spaced("".join(tex.T2A)),
    "X2": _spaced("".join(tex.X2)),
    "LCY": "".join(tex.LCY),
    "OT2": "".join(tex.OT2),
    "OT1": _spaced(tex.OT1),
    "T1": _spaced(tex.T1),
    "cp1251": _codec_table("cp1251"),
    "KOI8": _codec_table("koi8_u"),  # KOI8-R's letters, and KOI8-U's Ukrainian ones
}
LABELS = {"cp1251": "Windows-1251", "KOI8": "KOI8-R/KOI8-U"}  # how warnings name an encoding
# Latin-1's letters above ASCII (not × and ÷): where 8-bit Cyrillic read as Latin-1 lands
LATIN_1_LETTER = re.compile("[\xc0-\xd6\xd8-\xf6\xf8-\xff]")
# what a text file's Cyrillic was written in, in order of prior, when it was converted as if it
# were Latin-1
TEXT_ENCODINGS = ("cp1251", "KOI8")
WORD = re.compile(r"[^\W\d_]+")
COMMON_CYRILLIC = frozenset(
    "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюяЁёІіЇїЄєҐґЎў"
    "ЂђЉљЊњЋћЏџЈјЅѕЃѓЌќ"  # Serbian and Macedonian
)
# Latin letters T2A also declares Cyrillic (\CYRII at I), and the dotless ı of a stressed і.
TWIN_LETTERS = {"I": "І", "i": "і", "J": "Ј", "j": "ј", "ı": "і"}
WINANSI = {bytes([c]).decode("cp1252", errors="replace"): c for c in range(0x80, 0xA0)}
WINANSI.pop("\ufffd", None)
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl"})
# a word with a symbol inside it: letters, a character that is neither a letter, a digit, a
# space nor a hyphen, apostrophe or full stop, and letters again
# (U+FFFD: a code PyMuPDF could not read, not evidence either way)
_BROKEN_WORD = re.compile(r"[^\W\d_]+(?:[^\w\s\-'’.,;:!?()\[\]/\ufffd\x00-\x1f]+[^\W\d_]+)+")


def best_reading(text: str, encodings: tuple[str, ...]) -> str:
    """The encoding of `encodings` (in order of prior) that reads `text` — 8-bit codes read as
    Latin-1 or WinAnsi — as the most plausible Cyrillic words, or "" when none does."""
    best, best_score, best_letters, best_lower = "", 0.0, 0.0, 0.0
    for encoding in encodings:
        decoded = decode(text, encoding)
        good, total = plausibility(decoded)
        if good < 8 or good / total < 0.7:
            continue
        cyrillic = cyrillic_letters(decoded)
        score, letters = good / total, letter_likelihood(cyrillic)
        lower = lower_share(cyrillic)
        # in order of prior: a later encoding must read clearly more words as words, or about
        # as many with far likelier letters (enough of them to tell), in text of one case or
        # more of them lowercase (KOI8 read as Windows-1251 swaps the case too: "оЕ ПЮЕОШ
        # ЛТБФЛПЕ" for "Не очень краткое"; a heading in capitals reads as lowercase)
        if score > best_score + 0.02 or (
            best
            and score >= best_score - 0.05
            and len(cyrillic) >= _LETTERS_TO_TELL
            and letters > best_letters + LIKELIER
            and (lower > best_lower or lower in (0.0, 1.0))
        ):
            best, best_score, best_letters, best_lower = encoding, score, letters, lower
    return best


# nats a letter: how much likelier, on average, a later encoding's letters must be than the
# prior one's to be taken for an alphabet it permuted (the right one against KOI8 read as
# Windows-1251: 0.5–0.7 on a paragraph; a small font of lshortru, T2A, reads 0.26 likelier as
# KOI8, in swapped case; encodings that agree on the letters, as T2A and X2 do: 0)
LIKELIER = 0.4
# Cyrillic letters a sample needs for their likelihood to tell: in a heading or two one
# rare letter moves the mean by half a nat ("НЕ ПОДЪЕЗД")
_LETTERS_TO_TELL = 40


def cyrillic_letters(text: str) -> list[str]:
    """The text's Cyrillic letters."""
    return [c for c in text if "\u0400" <= c <= "\u04ff"]


def lower_share(letters: list[str]) -> float:
    """The share of `letters` in lowercase."""
    return sum(c.islower() for c in letters) / len(letters) if letters else 0.0


def letter_likelihood(letters: list[str]) -> float:
    """The mean log frequency of Cyrillic letters in running text."""
    rates = [tex.LETTER_FREQUENCY.get(c.lower(), 0.2) for c in letters]
    return sum(map(math.log, rates)) / len(rates) if rates else 0.0


def plausible(text: str, share: float, letters: float) -> bool:
    good, total = plausibility(text)
    return good >= letters and good >= share * total


def decode(text: str, encoding: str) -> str:
    """Text whose 8-bit codes were read as Latin-1 or WinAnsi (PyMuPDF's text of a font
    without a correct map, a file converted as if it were Latin-1) in the given encoding."""
    table = TABLES[encoding]
    out = []
    for char in text:
        if char == " ":  # TeX sets no spaces: PyMuPDF put it between words (OT2 has ¨ there)
            out.append(char)
            continue
        code = ord(char)
        if code > 0xFF:
            code = WINANSI.get(char, -1)
        out.append(char if code < 0 or table[code] == tex.UNUSED else table[code])
    return "".join(out)


def plausibility(text: str) -> tuple[float, int]:
    """How many letters form plausible Cyrillic words — all Cyrillic, in lower, Title or UPPER
    case; a word with rarer letters (Ӕ, Ђ, ј) counts ¾ — and how many letters there are,
    in the words of two letters or more that have non-ASCII letters. Latin ligatures are
    letters ("shelﬀul" is an English word, not a Cyrillic one gone wrong), and a symbol
    between two letters breaks the word it sits in ("Упознава»е": њ read in X2)."""
    good = 0.0
    total = 0
    text = text.translate(_LIGATURES)
    for broken in _BROKEN_WORD.findall(text):
        if not broken.isascii():
            total += len(broken)
    for word in WORD.findall(_BROKEN_WORD.sub(" ", text)):
        if len(word) < 2 or word.isascii():
            continue
        total += len(word)
        letters = "".join(TWIN_LETTERS.get(c, c) for c in word)
        if not (letters.islower() or letters.isupper() or letters[1:].islower()):
            continue
        if all(c in COMMON_CYRILLIC for c in letters):
            good += len(word)
        elif all("\u0400" <= c <= "\u04ff" for c in letters):
            good += 0.75 * len(word)
    return good, total
