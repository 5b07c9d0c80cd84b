"""A small language identifier: ISO 639-1 codes for the text-search configuration of a chunk.

No model and no dependency: Cyrillic text is Russian unless Ukrainian letters (і ї є ґ)
outnumber the Russian-only ones (ы э ъ ё); Latin text is scored on short lists of function
words of the languages PostgreSQL has Snowball stemmers for, a word shared by several languages
counting for each a share. Declared codes ('pt_BR', 'en-US', 'rus') are normalised the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

CYRILLIC_LANGUAGES = frozenset({"ru", "uk", "be", "bg", "mk"})
_NOT_ASCII_LETTERS = bytes(b for b in range(256) if not (65 <= b <= 90 or 97 <= b <= 122))
_UKRAINIAN_ONLY = "ІіЇїЄєҐґ"
_RUSSIAN_ONLY = "ЫыЭэЪъЁё"
_WORD = re.compile(r"[^\W\d_]+")
# a word of running text, not a piece of an address, a path, markup or an identifier
# ("gmail.com", "<em>", "op_char", "\\def"): those pieces are no function words — "com" is
# Portuguese for "with", "em" for "in", "op" Dutch for "on"; rclone's list of contributors'
# e-mail addresses and the CommonMark spec's HTML examples were indexed as Portuguese
_PROSE_WORD = re.compile(r"(?<![\w.@/<\\-])[^\W\d_]+(?![\w@/>]|[.\-]\w)")
_SAMPLE_CHARS = 4000  # enough letters to tell the alphabet; keeps long blocks cheap
_LATIN_SAMPLE_CHARS = 1200  # some 200 words: dozens of function words in any prose
_MIN_SHARE = 0.08  # prose is a third function words or more; code and lists of names far less
# Latin text that is not prose (code, options, names) with this share of Cyrillic letters or
# more is in the Cyrillic text's language.
_CYRILLIC_BESIDE_CODE = 0.2

# Frequent function words, chosen to tell the languages apart (not full stop-word lists).
_FUNCTION_WORDS = {
    "en": "the and of to is that it for with as was are be this by not or from have but "
    "which you were they has been their will would can there an these when if your "
    "a in on at do does what how why where who should my i",  # (questions' words too)
    "de": "der die und das ist nicht ein eine zu den mit sich des auf für dem im auch es wird "
    "werden von sie bei oder wenn ich sind kann nach wie über aus einen einer ihre dass",
    "fr": "le la les et des est une un du que qui dans pour pas sur au avec ce sont par il "
    "elle nous vous cette être aux ou mais plus peut votre si ne se",
    "es": "el la los las de que y en un una es por con para del se no al lo como más pero "
    "sus este esta puede ser hay también usted si su o tiene",
    "pt": "o a os as de que e do da em um uma para com não no na dos das por se mais ao é "
    "você são pode seu sua isso também ou tem",
    "it": "il la di che e un una per non del della è sono con gli le si nel alla anche come "
    "questo essere delle può più se hai dei su o",
    "nl": "de het een en van is dat niet op te zijn voor met die er aan ook wordt bij als je "
    "worden kan naar deze dan of",
    "sv": "och att det som en är på av för med inte till den har de om ett jag var kan "
    "eller så från vid du",
    "no": "og det som er på av for med ikke til den har de om et jeg var kan eller så fra "
    "ved også må blir du en hvis",
    "da": "og at det som en er på af for med ikke til den har de om et jeg var kan eller så "
    "fra ved også skal bliver du hvis",
    "fi": "ja on ei se että oli ovat joka tai kun mutta myös hän ole voi sen tämä jos jotta "
    "sinulla kuin niin",
    "hu": "a az és hogy nem is egy van meg de csak már mint ez azt volt lesz vagy kell",
    "ro": "și în de la cu pe nu este care o un să se din pentru sunt mai sau fi au",
    "tr": "ve bir bu da de için ile olarak çok daha gibi ne ama değil olan var ya kadar",
}
# Letters that only some of those languages write: a weaker hint, half a word each.
_LETTERS = {
    "ñ": "es", "¿": "es", "¡": "es", "ã": "pt", "õ": "pt", "ß": "de", "å": "sv no da",
    "ø": "no da", "æ": "no da", "ő": "hu", "ű": "hu", "ş": "tr ro", "ğ": "tr", "ı": "tr",
    "ă": "ro", "ș": "ro", "ț": "ro", "ä": "de sv fi", "ö": "de sv fi hu tr", "ü": "de hu tr",
    "ç": "fr pt tr", "è": "fr it", "ù": "fr it", "ì": "it", "ò": "it", "œ": "fr", "ê": "fr pt",
}  # fmt: skip


def _weights() -> dict[str, tuple[tuple[str, float], ...]]:
    """Each function word → the languages it belongs to, each with a 1/n share."""
    languages_of: dict[str, list[str]] = {}
    for lang, words in _FUNCTION_WORDS.items():
        for word in dict.fromkeys(words.split()):
            languages_of.setdefault(word, []).append(lang)
    return {w: tuple((lang, 1 / len(ls)) for lang in ls) for w, ls in languages_of.items()}


_WEIGHTS = _weights()
_LETTER_WEIGHTS = {
    c: tuple((lang, 0.5 / len(ls.split())) for lang in ls.split()) for c, ls in _LETTERS.items()
}
_HINTED = re.compile("[" + "".join(_LETTERS) + "]")

# ISO 639-2 codes found in dc:language of real books, and 639-1 synonyms.
_THREE_LETTER = {
    "eng": "en", "rus": "ru", "ukr": "uk", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr",
    "spa": "es", "por": "pt", "ita": "it", "nld": "nl", "dut": "nl", "swe": "sv", "nor": "no",
    "nob": "no", "nno": "no", "dan": "da", "fin": "fi", "hun": "hu", "ron": "ro", "rum": "ro",
    "tur": "tr",
}  # fmt: skip
_SYNONYMS = {"nb": "no", "nn": "no", "mo": "ro"}


def normalise_language(code: str | None) -> str | None:
    """'pt_BR' → 'pt', 'en-US' → 'en', 'rus' → 'ru'; None for an empty or malformed code."""
    primary = re.split(r"[-_\s]", (code or "").strip().lower(), maxsplit=1)[0]
    if not primary.isalpha() or not 2 <= len(primary) <= 3:
        return None
    if len(primary) == 3:
        return _THREE_LETTER.get(primary, primary)
    return _SYNONYMS.get(primary, primary)


def detect_language(text: str) -> str:
    """A chunk's language code: Latin text with too few function words to tell (commands,
    names, code) is 'en', as it always was; text without Cyrillic or Latin letters 'other'."""
    sample = text[:_SAMPLE_CHARS]
    letters = _letters(sample)
    return _identify(sample, *letters) or ("en" if any(letters) else "other")


def identify_language(text: str) -> str | None:
    """The language of `text` as an ISO 639-1 code, or None when the text does not tell."""
    sample = text[:_SAMPLE_CHARS]
    return _identify(sample, *_letters(sample))


def cyrillic_share(text: str) -> float | None:
    """The share of Cyrillic among the letters of `text` (None: no letters)."""
    cyrillic, ascii_latin, accented = _letters(text[:_SAMPLE_CHARS])
    total = cyrillic + ascii_latin + accented
    return cyrillic / total if total else None


def prevailing_language(samples: Iterable[tuple[str, str | None]]) -> str | None:
    """The language most of a document's text is in: each sample (a text and the code its
    source declares, or None) votes with its length; text that does not tell is passed over."""
    votes: Counter[str] = Counter()
    for text, declared in samples:
        language = normalise_language(declared) or identify_language(text)
        if language:
            votes[language] += min(len(text), _SAMPLE_CHARS)
    return votes.most_common(1)[0][0] if votes else None


def _identify(text: str, cyrillic: int, ascii_latin: int, accented: int) -> str | None:
    if cyrillic == 0 and ascii_latin + accented == 0:
        return None
    if cyrillic >= ascii_latin + accented:
        return cyrillic_language(text)
    if ascii_latin < accented:
        return None  # mostly accented letters: an 8-bit Cyrillic encoding read as Latin-1
    latin = _latin_language(text)
    if latin is None and cyrillic >= _CYRILLIC_BESIDE_CODE * (cyrillic + ascii_latin + accented):
        # Russian prose around a listing or a command's options: its words are what a
        # question matches; the code's Latin words are kept by the Russian configuration too
        return cyrillic_language(text)
    return latin


def _letters(text: str) -> tuple[int, int, int]:
    """Cyrillic, ASCII and accented Latin letters, counted on the UTF-8 bytes (lead bytes
    D0–D3 start Cyrillic, C3–C5 Latin-1 and Latin Extended-A): a chunk costs microseconds."""
    data = text.encode("utf-8", "replace")
    cyrillic = data.count(b"\xd0") + data.count(b"\xd1") + data.count(b"\xd2") + data.count(b"\xd3")
    accented = data.count(b"\xc3") + data.count(b"\xc4") + data.count(b"\xc5")
    return cyrillic, len(data.translate(None, _NOT_ASCII_LETTERS)), accented


def same_alphabet(language: str | None, other: str) -> bool:
    """Whether two languages are written in the same alphabet, Cyrillic or not (a language
    not known counts as either)."""
    return language is None or (language in CYRILLIC_LANGUAGES) == (other in CYRILLIC_LANGUAGES)


def cyrillic_language(text: str) -> str:
    """'uk' when Ukrainian-only letters outnumber Russian-only ones, else 'ru'."""
    ukrainian = sum(text.count(c) for c in _UKRAINIAN_ONLY)
    return "uk" if ukrainian > sum(text.count(c) for c in _RUSSIAN_ONLY) else "ru"


def _latin_language(text: str) -> str | None:
    """The best-scoring Latin-script language, or None when too few function words are seen
    (code, commands, names, text in a legacy 8-bit encoding read as Latin-1)."""
    lower = text[:_LATIN_SAMPLE_CHARS].lower()
    words = Counter(_PROSE_WORD.findall(lower))  # those of addresses and code are no votes…
    scores: Counter[str] = Counter()
    for word in words.keys() & _WEIGHTS.keys():
        for lang, weight in _WEIGHTS[word]:
            scores[lang] += weight * words[word]
    total = sum(1 for _ in _WORD.finditer(lower))  # … but as many words of no language
    if not scores or max(scores.values()) < max(1.5, _MIN_SHARE * total):
        return None
    for letter in _HINTED.findall(lower):
        for lang, weight in _LETTER_WEIGHTS[letter]:
            scores[lang] += weight
    (best, score), *rest = scores.most_common(2)
    runner_up = rest[0][1] if rest else 0.0
    return best if score >= 1.2 * runner_up else None
