"""The lines of a PDF paragraph joined into running text.

A word hyphenated at a line end is rejoined ("ex-" + "ample"), but a compound keeps its hyphen
("sendmail-" + "compatible", "FHS-" + "compliant"): the document's own vocabulary tells them
apart (a form it uses elsewhere, halves that are whole words of it). A URL or path broken at a
line end ("https://www.ctan." + "org/pkg") is rejoined without the space. Runs of dot leaders
shrink to an ellipsis.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mirage_pipeline.morphology import is_numeral, known_word, takes_ka
from mirage_pipeline.parsing.pdf_contents_pages import LEADER
from mirage_pipeline.parsing.pdf_lines import Line

# Prefixes whose hyphen is part of the word (non-privileged, self-contained, кое-что).
_REAL_HYPHEN = re.compile(
    r"(?:^|\W)(?:non|self|well|co|cross|half|semi|multi|re|pre|post|anti|кое|какой|что"
    r"|веб|топ|экс|шоу|вице|поп|чат|пресс|медиа|онлайн|интернет)-$",
    re.IGNORECASE,
)
# Russian particles written after a hyphen: "кто-нибудь", "чья-либо", "всё-таки" ("мес-" +
# "то" is a word broken before its last syllable: the dictionary knows "место"); "-ка" after an
# imperative or "ну" only ("давай-ка"; "Свет-" + "ка", "гиф-" + "ка" are words broken)
_PARTICLES = frozenset({"то", "либо", "нибудь", "таки"})
# "во-" and "в-" stay with an ordinal ("во-первых", "в-третьих"); "во-/просов" is one word.
_ORDINAL_AFTER_VO = re.compile(
    r"(?:перв|втор|четв[её]рт|пят|шест|седьм|восьм|девят|десят)ых|третьих", re.IGNORECASE
)
_LEADER_RUN = re.compile(rf"\s*(?:{LEADER.pattern})\s*")
_WORD_CHAR = re.compile(r"\w")
_TOKEN = re.compile(r"\w+(?:-\w+)*")
_CYRILLIC = re.compile(r"[а-яё]+")
_BROKEN_TOKEN = re.compile(r"(\w+(?:-\w+)*)-$")  # the word a line-end hyphen ends
_LATIN = re.compile(r"[a-z]+")
_COMPOUND_PART_MIN = 3  # letters in each half of a compound told by its halves
_COMPOUND_MIN = 10  # letters in both: "program-specific", not "any-thing"
_RUSSIAN_PART_MIN = 4  # letters in each half of a Russian compound ("ярко-белой"; not "мер-жить")
_RUSSIAN_COMPOUND_MIN = 9  # … in both ("дата-сеты" is a word broken)
_LANGUAGE_SAMPLE = 400  # Cyrillic words looked up to tell a Russian document
_RUSSIAN_KNOWN = 0.7  # … the share of them the Russian dictionary knows in one
# A URL or a path: what a line may end with when it breaks one.
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S*$", re.IGNORECASE)
_SCHEME_END = re.compile(r"(?:^|[\s(<«\"'])(?:https?|ftp|file):$", re.IGNORECASE)
_PATH = re.compile(r"^[\w.~$<>%+-]*(?:/[\w.~$<>%+-]*)+$")
_OPENING = "(<[«\"'“‘"
_CLOSING = ".,;:!?)]>»\"'”’"
_LINK_CHARS = re.compile(r"[/._#?=&%~-]")
_DOMAIN_CHARS = re.compile(r"[/.]")
_SUFFIX_MAX = 5  # letters of "org", "html", "pdf" after a URL broken at a dot


class Vocabulary:
    """The words a document uses whole — not the halves of words broken at a line end — to
    tell a compound's hyphen from a line-end hyphenation. Built on first use."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = lines  # the lines' texts, read once, on first use
        self._tokens: set[str] | None = None
        self._words: set[str] = set()
        self._russian: bool | None = None

    def tokens(self) -> set[str]:
        """Its words and hyphenated compounds, casefolded."""
        if self._tokens is None:
            tokens: set[str] = set()
            broken = False
            for line in self._lines:
                text = line.casefold()
                found = _TOKEN.findall(text)
                ends_broken = text.endswith("-")
                if broken and found:
                    found = found[1:]  # "ample" of "ex-ample"
                if ends_broken and found:
                    found = found[:-1]
                tokens.update(found)
                broken = ends_broken
            self._tokens = tokens
            self._words = {word for token in tokens for word in token.split("-")}
        return self._tokens

    def russian(self) -> bool:
        """Whether the document's Cyrillic words are Russian: the Russian dictionary knows
        most of them (of a Bulgarian, Ukrainian or Mongolian book's, far fewer)."""
        if self._russian is None:
            cyrillic = sorted(w for w in self.words() if len(w) >= 4 and _CYRILLIC.fullmatch(w))
            sample = cyrillic[:: max(1, len(cyrillic) // _LANGUAGE_SAMPLE)]
            known = sum(1 for word in sample if known_word(word))
            self._russian = bool(sample) and known >= _RUSSIAN_KNOWN * len(sample)
        return self._russian

    def words(self) -> set[str]:
        """Its words, compounds split at their hyphens, casefolded."""
        self.tokens()
        return self._words


def join_lines(lines: Sequence[Line], vocabulary: Vocabulary) -> str:
    """Lines of one paragraph as one string: hyphenation undone, broken URLs rejoined."""
    text = ""
    previous: Line | None = None
    for line in lines:
        mono = previous is not None and previous.mono_ends[1] and line.mono_ends[0]
        text = join_text(text, line.text, vocabulary, mono)
        previous = line
    if LEADER.search(text):  # cheap; _LEADER_RUN also eats the spaces around the run
        text = _LEADER_RUN.sub(" … ", text).strip()
    return text


def join_text(text: str, part: str, vocabulary: Vocabulary, mono: bool = False) -> str:
    """`part` appended to `text` across a line break. `mono`: both sides of the break are
    set in a monospaced font (a path or URL in running text)."""
    part = part.strip()
    if not text:
        return part
    if not part:
        return text
    if text[-1] == ":" and part.startswith("//") and _SCHEME_END.search(text):
        return text + part  # "https:" + "//tug.org/tds"
    if text[-1] not in "-\u00ad/.":  # most line ends: a word, a comma
        return f"{text} {part}"
    if text.endswith("/-") and (mark := _url_break_mark(text, part)) is not None:
        return text[:-1] + part if mark else text + part
    if (
        text[-1] in "-\u00ad"
        and len(text) > 1
        and _WORD_CHAR.match(text[-2])
        and part[:1].isalnum()
    ):
        if text[-1] == "\u00ad" or not _keeps_hyphen(text, part, vocabulary, mono):
            return text[:-1] + part  # a word broken at the line end
        return text + part  # a real hyphen: non-privileged
    if _continues_link(text, part, mono):
        return text + part
    return f"{text} {part}"


def _capitals_broken(tail: str, part: str, vocabulary: Vocabulary) -> bool:
    """A word in capitals hyphenated at the line's end ("ПОЛО-" + "ЖЕНИЯ", "FOR-" + "TRAN"):
    both halves in capitals and the whole a word the document writes elsewhere, or a Russian
    word the dictionary knows ("ИЗ-" + "ЗА" is neither)."""
    left, right = _BROKEN_TOKEN.search(tail), _TOKEN.match(part)
    if left is None or right is None or "-" in left.group(1):
        return False
    left_word, right_word = left.group(1), right.group().split("-", 1)[0]
    if not (left_word.isupper() and right_word.isupper() and len(left_word) >= 2):
        return False
    whole = (left_word + right_word).casefold()
    return whole in vocabulary.words() or bool(_CYRILLIC.fullmatch(whole) and known_word(whole))


def _russian_word_broken(tail: str, part: str) -> bool:
    """A Russian word in a monospaced font broken at the line end ("ре-" + "дакция"): the
    dictionary knows the whole and not both halves."""
    left, right = _BROKEN_TOKEN.search(tail), _TOKEN.match(part)
    if left is None or right is None or "-" in left.group(1) or "-" in right.group():
        return False
    halves = left.group(1).casefold(), right.group().casefold()
    return (
        all(_CYRILLIC.fullmatch(half) for half in halves)
        and known_word("".join(halves))
        and not all(known_word(half) for half in halves)
    )


def _keeps_hyphen(text: str, part: str, vocabulary: Vocabulary, mono: bool) -> bool:
    """Whether the hyphen ending `text` belongs to the word (a compound, a URL, code) rather
    than to a line-end hyphenation."""
    tail = text[text.rfind(" ") + 1 :]
    if mono:  # monospaced code is never hyphenated; a Russian word set so may be (LibreOffice)
        return not _russian_word_broken(tail, part)
    if not part[:1].islower():
        return not _capitals_broken(tail, part, vocabulary)  # "Anglo-" + "Saxon"
    if "/" in tail or "@" in tail:
        return True  # "https://tug.org/texlive/acquire-" + "mirror.html"
    left = _BROKEN_TOKEN.search(tail)
    right = _TOKEN.match(part)
    if left is None or right is None:
        return bool(_REAL_HYPHEN.search(tail))
    left_token, right_token = left.group(1), right.group()
    left_word = left_token.rsplit("-", 1)[-1]
    right_word = right_token.split("-", 1)[0]
    folded_left, folded_right = left_word.casefold(), right_word.casefold()
    if _two_scripts(folded_left, folded_right):
        return True  # "Unix-" + "версия", "PDF-" + "файл": a compound, never a break
    if f"{left_token}-{right_token}".casefold() in vocabulary.tokens():
        return True  # the document writes it so elsewhere
    if folded_left + folded_right in vocabulary.words():
        return False  # … or writes it as one word
    if folded_left in ("в", "во"):
        return bool(_ORDINAL_AFTER_VO.fullmatch(right_word))
    if (len(left_word) >= 2 and left_word.isupper()) or any(c.isdigit() for c in left_word):
        return True  # "FHS-compliant", "x86-64", "32-разрядный"
    if _LATIN.fullmatch(folded_left) and _LATIN.fullmatch(folded_right):
        if "-" in left_token or "-" in right_token:
            return True  # "vcs-to-changelog", "case-" + "by-case"
        if _halves_are_words(folded_left, folded_right, vocabulary):
            return True  # "program-specific": both halves are words of the document
    elif _CYRILLIC.fullmatch(folded_left) and _CYRILLIC.fullmatch(folded_right):
        if vocabulary.russian():
            return _russian_hyphen(folded_left, folded_right, tail, vocabulary)
        if (
            _halves_are_words(folded_left, folded_right, vocabulary)
            and known_word(folded_left)
            and known_word(folded_right)
            and not known_word(folded_left + folded_right)
        ):
            # the dictionary knows each half, not their join (not Bulgarian "век-" + "торите":
            # the document does not write "торите")
            return True
    return bool(_REAL_HYPHEN.search(tail))


def _russian_hyphen(left: str, right: str, tail: str, vocabulary: Vocabulary) -> bool:
    """Whether the hyphen between the halves of a Russian word broken at a line end is the
    word's: a word and a particle ("чья-" + "нибудь"); two words the dictionary knows, one of
    which the document writes whole, whose join it does not know, four letters each at least
    ("функциями-" + "обработчиками", "ярко-" + "белой"); a prefix whose hyphen is the word's
    ("кое-" + "что", `_REAL_HYPHEN`). Not a word whose join the dictionary knows ("мес-" + "то"),
    a numeral's combining form ("двух-" + "буквенный"), a syllable ("вы-" + "полняется",
    "мер-" + "жить")."""
    if known_word(left + right):
        return False
    if right in _PARTICLES or (right == "ка" and takes_ka(left)):
        return True
    words = vocabulary.words()
    compound = (
        min(len(left), len(right)) >= _RUSSIAN_PART_MIN
        and len(left) + len(right) >= _RUSSIAN_COMPOUND_MIN
        and (left in words or right in words)
        and known_word(left)
        and known_word(right)
        and not (is_numeral(left) and not is_numeral(right))
    )
    return compound or bool(_REAL_HYPHEN.search(tail))


def _halves_are_words(left: str, right: str, vocabulary: Vocabulary) -> bool:
    """Both halves of a word broken at a hyphen are words the document writes elsewhere, long
    enough not to be a word cut in two by chance."""
    words = vocabulary.words()
    return (
        min(len(left), len(right)) >= _COMPOUND_PART_MIN
        and len(left) + len(right) >= _COMPOUND_MIN
        and left in words
        and right in words
    )


def _two_scripts(left: str, right: str) -> bool:
    """One word Latin, the other Cyrillic (each two letters or more)."""
    return (
        bool(
            (_LATIN.fullmatch(left) and _CYRILLIC.fullmatch(right))
            or (_CYRILLIC.fullmatch(left) and _LATIN.fullmatch(right))
        )
        and min(len(left), len(right)) >= 2
    )


def _url_break_mark(text: str, part: str) -> bool | None:
    """dblatex breaks a URL after a slash with a hyphen to mark it ("https://www.debian.org/-"
    + "doc/manuals/…"): every DocBook manual Debian builds to PDF. True: a mark, the URL goes
    on; False: the URL goes on with its own hyphen (GitLab's "/-" + "/issues"); None: no URL."""
    tail = text[text.rfind(" ") + 1 : -1].lstrip(_OPENING)
    head = part.split(None, 1)[0]
    if not (_URL.match(tail) and head.isascii()):
        return None
    if head[0] == "/":
        return False
    return True if head[0].isalnum() or head[0] in "~%_#)" else None


def _continues_link(text: str, part: str, mono: bool) -> bool:
    """Whether `part` goes on with a URL or path that `text` ends with, broken at a slash or
    a dot: "https://www.ctan." + "org/pkg", "/usr/" + "share/man". Conservative: prose
    after a link ("… https://tug.org/" + "for details") keeps its space."""
    tail = text[text.rfind(" ") + 1 :].lstrip(_OPENING)
    if ("/" not in tail and not tail.startswith("www.")) or not tail.isascii():
        return False
    url = bool(_URL.match(tail))
    if not (url or _PATH.match(tail)):
        return False
    head = part.split(None, 1)[0]
    if mono and tail.endswith("/") and (head[:1].isalnum() or head[:1] in "<.~$%_"):
        return True  # "/" + "usr/sbin" set in a monospaced font
    if not (head.isascii() and (head[:1].islower() or head[:1].isdigit() or head[:1] in "~%_")):
        return False
    core = head.rstrip(_CLOSING)
    if not core:
        return False
    if tail.endswith("/"):
        if "/" in core and core.split("/", 1)[0] == tail.split("/", 1)[0]:
            return False  # a second path of a list: "macros/latex/" + "macros/plain/"
        # "/usr/" + "share/man", "https://tug.org/" + "texworks."
        return bool(_LINK_CHARS.search(core)) or core != head or head == part
    if not (url and tail.endswith(".") and tail[-2:-1].isalnum()):
        return False  # "(https://tug.org/xetex)." ends its sentence
    # "https://www.ctan." + "org/pkg", "…/lgpl." + "html."
    return bool(_DOMAIN_CHARS.search(core)) or (core.isalnum() and len(core) <= _SUFFIX_MAX)
