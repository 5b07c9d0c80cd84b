"""Russian lemmas for full-text search, beside PostgreSQL's snowball stems.

Snowball stems cut endings, so they miss irregular and suppletive forms a question paraphrases
into (люди/человек, шёл/идти, лучше/хороший). pymorphy3 with its OpenCorpora dictionary
(`pymorphy3-dicts-ru`, a pip package) gives each word form its dictionary form; a chunk stores
the lemmas of its Cyrillic words (`lemma_text`) and a query is matched on its own
(`query_lemmas`), so both sides meet on the same word whatever its form. A word form is
analysed once per process (the cache holds a book's vocabulary many times over).

Lemmas are lower-case with ё folded to е: texts and questions spell ё inconsistently.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

_CYRILLIC_WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")
# PostgreSQL's Russian stop words (tsearch_data/russian.stop): a lemma among them carries no
# meaning to match on (было → быть, меня → я), and would make every chunk a candidate.
STOP_LEMMAS = frozenset(
    """
    и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
    ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни
    быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где
    есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж
    тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы
    нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над
    больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою
    этой перед иногда лучше чуть том нельзя такой им более всегда конечно всю между
    """.split()  # noqa: SIM905 (a list of 151 literals reads worse)
)
_CACHE_SIZE = 200_000
_lock = threading.Lock()
_analyzer = None


def _morph():
    global _analyzer
    if _analyzer is None:
        with _lock:
            if _analyzer is None:
                import pymorphy3

                _analyzer = pymorphy3.MorphAnalyzer(lang="ru")
    return _analyzer


@lru_cache(maxsize=_CACHE_SIZE)
def lemma(word: str) -> str:
    """The dictionary form of one Cyrillic word form (its most likely reading)."""
    form = word.lower().replace("ё", "е")
    if len(form) < 2:
        return form
    return _morph().parse(form)[0].normal_form.replace("ё", "е")


def _lemmas(text: str) -> list[str]:
    found = (lemma(w) for w in _CYRILLIC_WORD.findall(text))
    return [x for x in found if x not in STOP_LEMMAS]


def lemma_text(text: str) -> str:
    """The lemmas of the Cyrillic words of `text` but stop words, in order, space-separated."""
    return " ".join(_lemmas(text))


def known_word(word: str) -> bool:
    """Whether the Russian dictionary holds `word` as a form of one of its words."""
    return _morph().word_is_known(word.lower())


@lru_cache(maxsize=_CACHE_SIZE)
def takes_ka(word: str) -> bool:
    """Whether the particle "-ка" may follow a word: an imperative ("давай-ка") or a particle
    or interjection ("ну-ка")."""
    tag = _morph().parse(word.lower())[0].tag
    return "impr" in tag or tag.POS in ("PRCL", "INTJ")


@lru_cache(maxsize=_CACHE_SIZE)
def is_numeral(word: str) -> bool:
    """Whether a Cyrillic word's likeliest reading is a numeral ("двух", "пяти")."""
    return _morph().parse(word.lower())[0].tag.POS == "NUMR"


def has_lemma(word: str) -> bool:
    """Whether `word` (a word form or its stem) gets a lemma here: it holds Cyrillic letters."""
    return _CYRILLIC_WORD.search(word) is not None


def query_lemmas(text: str) -> list[str]:
    """The distinct lemmas of a query's Cyrillic words but stop words, in order."""
    return list(dict.fromkeys(_lemmas(text)))
