"""A document's language as an ISO 639-1 code: from a language tag, or guessed from its text
by alphabet, telltale letters and common short words."""

from __future__ import annotations

import re
from collections import Counter

_TAG = re.compile(r"^([a-zA-Z]{2,3})(?:[-_].*)?$")
_WORD = re.compile(r"[^\W\d_]+")
# ISO 639-2 codes PDFs and e-books also use, for the languages guessed below
_THREE_LETTER = {
    "rus": "ru", "ukr": "uk", "bel": "be", "bul": "bg", "eng": "en", "deu": "de", "ger": "de",
    "fra": "fr", "fre": "fr", "spa": "es", "ita": "it", "por": "pt", "pol": "pl", "nld": "nl",
    "dut": "nl",
}  # fmt: skip
# Frequent short words, one set per language written in Latin letters.
_STOP_WORDS = {
    "en": {"the", "and", "of", "to", "is", "in", "that", "it", "for", "with", "are", "this"},
    "de": {"der", "die", "und", "das", "ist", "nicht", "mit", "ein", "eine", "den", "zu", "auf"},
    "fr": {"le", "la", "les", "et", "des", "est", "une", "dans", "pour", "que", "qui", "du"},
    "es": {"el", "los", "las", "y", "es", "una", "por", "para", "con", "que", "del", "se"},
    "it": {"il", "di", "che", "è", "per", "una", "sono", "con", "non", "gli", "della", "lo"},
    "pt": {"o", "os", "e", "é", "um", "uma", "para", "com", "não", "que", "do", "da"},
    "nl": {"de", "het", "een", "en", "van", "is", "niet", "dat", "op", "te", "met", "zijn"},
    "pl": {"i", "w", "z", "na", "się", "nie", "do", "jest", "że", "to", "jak", "od"},
}


def language_code(tag: str) -> str:
    """ "ru-RU" → "ru", "eng" → "en"; "" for what is not a language tag."""
    found = _TAG.match(tag.strip())
    if not found:
        return ""
    code = found.group(1).lower()
    return code if len(code) == 2 else _THREE_LETTER.get(code, "")


def guess_language(text: str) -> str:
    """ISO 639-1 code of the language most of the text is in; "" when there are no words."""
    cyrillic = latin = 0
    letters: Counter[str] = Counter()
    for char in text:
        if "\u0400" <= char <= "\u04ff":
            cyrillic += 1
            letters[char.lower()] += 1
        elif char.isascii() and char.isalpha():
            latin += 1
    if cyrillic == 0 and latin == 0:
        return ""
    # Russian prose is full of Latin names and code; Cyrillic in an English text is rare
    if cyrillic >= 0.25 * (cyrillic + latin):
        return _cyrillic_language(letters, cyrillic)
    words = Counter(w.lower() for w in _WORD.findall(text))
    scores = {lang: sum(words[w] for w in stop) for lang, stop in _STOP_WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    return best if scores[best] > 0 else "en"


def _cyrillic_language(letters: Counter[str], total: int) -> str:
    """Russian, Ukrainian, Belarusian or Bulgarian, by the letters only some of them have."""

    def share(chars: str) -> float:
        return sum(letters[c] for c in chars) / total

    if share("іїєґ") > 0.01 and share("ыэё") < 0.002:
        return "uk"
    if share("ў") > 0.002 and share("и") < 0.005:
        return "be"
    if share("ъ") > 0.01 and share("ыэё") < 0.002:
        return "bg"
    return "ru"
