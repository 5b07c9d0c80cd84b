"""Dictionary translation of a question's words, for the full-text leg across languages.

A Russian question about an English manual (or the other way round) shares almost no word
with its answer: the vector leg alone finds it, and the full-text leg abstains. An
English–Russian dictionary gives each content word of the question its first translations,
and they become one more full-text term in the other language's configuration, its senses
OR-ed and weighted by their rarity together, like one word of the question: the chunks in
that language are picked and scored by them (search.py). A wrong sense ("file" →
напильник) adds little to how common the word's senses are together, and an absent one
nothing. On the dev eval's 51 cross-language questions the full-text leg went from recall@5
0.22 to 0.47, hybrid from 0.71 to 0.75; each sense weighed by its own rarity until
2026-11-28, the rarest — usually a wrong one — led: the senses as one term, hybrid 0.765 /
0.843 / 0.629 → 0.804 / 0.843 / 0.655.

The dictionary is Müller's English–Russian (7th edition, GPL-2+), in the dictd format Debian
ships as `mueller7-dict` (/usr/share/dictd/mueller7.dict.dz): a headword at the line's
start, then its senses, indented, numbered "1)", "2)", each a list of Russian words and
phrases, with labels (`_n.`, `_разг.`), notes in brackets and English examples. The first
`SENSES` senses give up to `WORDS_PER_SENSE` translations each; the reverse direction
(Russian → English) is the same table read backwards, every sense of it: a Russian word's
candidates are the headwords that give it earliest, and a question takes those of them its
index holds most (журнал is the first translation of bimonthly, biweekly and quarterly as
much as of journal; alphabetical order kept the former). `make install` fetches the
package into ~/.cache/mirage/dictd (the image installs it); MIRAGE_DICTIONARY names another
file; without one, search works as before, only without translation.

A Russian manual names its commands, options and packages in English (`time/zone=`,
babel's `russian` option, `aptitude hold`): a Russian question's translated word is also looked
for among the Latin words of Russian text — when the translation is rare in the index (in at
most `latin_rows` chunks: a name, not "file" or "package", which Russian prose says in its own
words). It adds to a chunk's score but not to the terms its coverage is measured against: a
Russian passage is still judged by the question's own words. On the dev eval, Russian hybrid
recall@5 / @10 / MRR@10 0.887 / 0.930 / 0.751 → 0.890 / 0.937 / 0.753 (the passage giving
`time/zone=` for "временную зону", babel's `russian` for "русские буквы"); every
translation, however common, as such a term: 0.887 / 0.937 / 0.748.
"""

from __future__ import annotations

import functools
import gzip
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from psycopg import AsyncConnection

from mirage_pipeline.morphology import STOP_LEMMAS, lemma
from mirage_query.jargon import jargon
from mirage_query.term_stats import RUSSIAN_CONFIG, TEXT_LEXEMES, TermStats, quoted

log = logging.getLogger(__name__)

DEFAULT_PATHS = (
    Path("/usr/share/dictd/mueller7.dict.dz"),
    Path.home() / ".cache" / "mirage" / "dictd" / "mueller7.dict.dz",
)
SENSES = 2
WORDS_PER_SENSE = 2
ALTERNATIVES = 4  # translations of one Russian word into English, at most
# Russian → English: the headwords giving a Russian word in any sense of theirs (a verb's
# sense follows its noun's: lie → ложь, then лежать), the CANDIDATES giving it earliest; a
# question picks ALTERNATIVES of them, those its index holds most (translated_terms).
CANDIDATES = 10
# What a translated word weighs against a word of the question itself (its idf times this).
TRANSLATED_WEIGHT = 1.0

# the language a question is in → the text-search configuration of the one it is translated to
TARGETS = {"en": RUSSIAN_CONFIG, "ru": "english"}
# a question's words, in the language it is translated to, match nothing there when this is its
# language (a Cyrillic word in English text): the translations replace them
_REPLACED = ("ru",)
_HEADWORD = re.compile(r"[a-z][a-z'-]*")
_CYRILLIC = re.compile(r"[а-яё]+(?:-[а-яё]+)*")
_LATIN = re.compile(r"[A-Za-z]")
_SENSE_BREAK = re.compile(r"\s\d+[).]\s")
_NOISE = (re.compile(r"\[[^\]]*\]"), re.compile(r"\([^)]*\)"), re.compile(r"_\S+"))
_WORD = re.compile(r"\w+(?:[-']\w+)*")
# PostgreSQL's English stop words (tsearch_data/english.stop): no meaning to translate.
ENGLISH_STOP = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves what which who whom
    this that these those am is are was were be been being have has had having do does did
    doing a an the and but if or because as until while of at by for with about against
    between into through during before after above below to from up down in out on off over
    under again further then once here there when where why how all any both each few more
    most other some such no nor not only own same so than too very s t can will just don
    should now
    """.split()  # noqa: SIM905 (a list of 127 literals reads worse)
)
_ENGLISH_ENDINGS = (
    ("ies", "y"),
    ("es", ""),
    ("s", ""),
    ("ed", ""),
    ("ed", "e"),
    ("ing", ""),
    ("ing", "e"),
    ("er", ""),
    ("est", ""),
    ("ly", ""),
)


@dataclass(frozen=True)
class Dictionary:
    """Translations both ways: English headword → Russian words, Russian lemma → English."""

    en_ru: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ru_en: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def translate(self, text: str, source: str) -> list[tuple[str, tuple[str, ...]]]:
        """Each content word of `text` (in language `source`, "en" or "ru") the dictionary
        knows, as written, with its translations; a word once."""
        out: dict[str, tuple[str, tuple[str, ...]]] = {}
        for word in _WORD.findall(text):
            looked = self._look_up(word, source)
            if looked is None or not looked[0] or looked[0] in out:
                continue
            key, found = looked
            if found:
                out[key] = (word, found)
        return list(out.values())

    def gloss(self, text: str, source: str) -> str:
        """`text` (in language `source`) word for word in the other language, for the embedder
        (gloss.py): each content word as its first translation, stop words left out, a word
        the dictionary lacks or of another script (a command, a name) as written."""
        out: list[str] = []
        for word in _WORD.findall(text):
            looked = self._look_up(word, source)
            if looked is None:
                out.append(word)
            elif looked[0]:
                out.append(looked[1][0] if looked[1] else word)
        return " ".join(out)

    def _look_up(self, word: str, source: str) -> tuple[str, tuple[str, ...]] | None:
        """A word of `source`'s script: its key (its lemma, lower-cased: "" for a stop word)
        and its translations, a jargon word's own first; None for a word of another script."""
        if source == "en" and _LATIN.match(word):
            key = word.lower()
            if key in ENGLISH_STOP:
                return "", ()
            found = next((self.en_ru[f] for f in english_forms(key) if f in self.en_ru), ())
        elif source == "ru" and _CYRILLIC.fullmatch(word.lower()):
            key = lemma(word)
            if key in STOP_LEMMAS:
                return "", ()
            found = self.ru_en.get(key, ())
        else:
            return None
        slang = jargon(word)  # "баг": bug, "repo": репозиторий, which no dictionary gives
        if slang is not None:
            found = tuple(dict.fromkeys(slang.translations + found))
        return key, found


def english_forms(word: str) -> Iterable[str]:
    """The word, then the headwords it may be a form of (versions → version, saved → save)."""
    yield word
    for ending, replacement in _ENGLISH_ENDINGS:
        if word.endswith(ending) and len(word) > len(ending) + 2:
            yield word[: -len(ending)] + replacement


def parse_dictd(text: str) -> Dictionary:
    """The translation tables of a Müller-style dictd text (see the module's docstring)."""
    bodies: dict[str, list[str]] = {}
    head, body = None, []
    for line in text.split("\n"):
        if line and not line[0].isspace():
            if head is not None:
                bodies.setdefault(head, []).append(" ".join(body))
            head, body = line.strip().lower(), []
        else:
            body.append(line.strip())
    if head is not None:
        bodies.setdefault(head, []).append(" ".join(body))
    en_ru: dict[str, tuple[str, ...]] = {}
    ru_en: dict[str, list[tuple[int, int, str]]] = {}
    for headword, texts in bodies.items():
        if not _HEADWORD.fullmatch(headword):
            continue
        senses = [s for t in texts for s in _senses(t)]
        words = tuple(dict.fromkeys(w for s in senses[:SENSES] for w in s[:WORDS_PER_SENSE]))
        if not words:
            continue
        en_ru[headword] = words
        given = (
            (sense, place, word)
            for sense, found in enumerate(senses)
            for place, word in enumerate(found[:WORDS_PER_SENSE])
        )
        for sense, place, word in given:
            if " " not in word:
                ru_en.setdefault(word.replace("ё", "е"), []).append((sense, place, headword))
    # a Russian word's English: the headwords that give it first (система → system before
    # frame, whose third translation it is)
    return Dictionary(
        en_ru,
        {k: tuple(dict.fromkeys(h for *_, h in sorted(v)))[:CANDIDATES] for k, v in ru_en.items()},
    )


def _senses(text: str) -> list[list[str]]:
    """Each numbered sense's translations: phrases of one or two Russian words, up to the
    first English example."""
    for noise in _NOISE:
        text = noise.sub(" ", text)
    senses = []
    for sense in _SENSE_BREAK.split(" " + text):
        latin = _LATIN.search(sense)
        if latin:
            sense = sense[: latin.start()]
        words = []
        for phrase in re.split(r"[;,]", sense):
            found = _CYRILLIC.findall(phrase.lower())
            if 0 < len(found) <= 2:
                words.append(" ".join(found))
        if words:
            senses.append(words)
    return senses


@functools.lru_cache(maxsize=4)
def load_dictionary(path: Path | None = None) -> Dictionary | None:
    """The dictionary at `path`, else at the first of DEFAULT_PATHS that exists; None (and a
    log line saying so) when there is none or it cannot be read."""
    candidates = [path] if path is not None else [p for p in DEFAULT_PATHS if p.is_file()]
    if not candidates:
        log.info("no English-Russian dictionary: search across languages without translation")
        return None
    try:
        raw = candidates[0].read_bytes()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    except (OSError, UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
        log.warning("dictionary %s cannot be read (%s): no translation", candidates[0], exc)
        return None
    dictionary = parse_dictd(text)
    log.info("dictionary %s: %d English headwords", candidates[0], len(dictionary.en_ru))
    return dictionary


@dataclass(frozen=True)
class TranslatedTerm:
    """The translations of one word of the question, as one term of the other language's
    configuration: its senses OR-ed (a phrase's lexemes AND-ed), weighted as one word by the
    rarity of them all together — a structured query (Pirkola, 1998). Each sense weighed by
    its own rarity, the rarest sense — usually a wrong one: ядро → nucleus, bullet — outweighed
    the right one (kernel) and the question's other words, and picked the candidates."""

    config: str
    query: str
    weight: float
    share: float  # of the chunks holding any of its senses (at most: their shares summed)
    lexemes: int = 1  # in `query`: ts_rank divides an OR query's rank by their number
    counted: bool = True  # in a chunk's coverage (not for Russian text's Latin words)


async def translated_terms(
    conn: AsyncConnection,
    dictionary: Dictionary | None,
    text: str,
    language: str | None,
    configs: Iterable[str],
    stats: TermStats,
    latin_rows: float = 0.0,
) -> tuple[list[TranslatedTerm], set[tuple[str, str]]]:
    """The question's words translated into the index's other language, as full-text terms
    of that language's configuration; and the lexemes they replace there. A Russian word as
    the English configuration reads it ("система") matches nothing in English text but would
    count against a chunk's coverage; an English word is kept, as it matches the Latin names
    and commands of Russian text (`report`, LaTeX's class, in a Russian manual). With
    `latin_rows`, a Russian question's translations held by at most that many chunks are
    terms of Russian text too (its Latin words), not counted in its coverage. Nothing
    without a dictionary or a language to translate."""
    target = TARGETS.get(language or "")
    configs = tuple(configs)
    latin = language == "ru" and latin_rows > 0 and RUSSIAN_CONFIG in configs
    if dictionary is None or target is None or (target not in configs and not latin):
        return [], set()
    words = dictionary.translate(text, language or "")
    if not words:
        return [], set()
    own = [word for word, _ in words] if language in _REPLACED else []
    texts = own + [t for _, found in words for t in found]
    # per text: -1 for a word of the question itself, else the question word it translates
    sources = [-1] * len(own) + [i for i, (_, found) in enumerate(words) for _ in found]
    params = {"cfg": target, "texts": texts, "words": sources}
    rows = await (await conn.execute(TEXT_LEXEMES, params)).fetchall()
    senses: dict[int, dict[str, tuple[float, list[str]]]] = {}  # question word → its senses'
    # queries → their shares and lexemes, in the dictionary's order
    replaced: set[tuple[str, str]] = set()
    for source, lexemes in rows:
        if source < 0:
            replaced.update((target, x) for x in lexemes)
        elif lexemes:  # a phrase is all of its words, as rare as its rarest
            query = " & ".join(quoted(x) for x in lexemes)
            query = f"({query})" if len(lexemes) > 1 else query
            share = min(stats.share(x) for x in lexemes)
            senses.setdefault(source, {}).setdefault(query, (share, lexemes))
    terms: dict[tuple[str, str], TranslatedTerm] = {}
    for candidates in senses.values():
        found = _most_held(candidates)
        query = " | ".join(found)
        share = min(1.0, sum(s for s, _ in found.values()))
        weight = TRANSLATED_WEIGHT * stats.idf_of_share(share)
        lexemes = {x for _, found_lexemes in found.values() for x in found_lexemes}
        term = TranslatedTerm(target, query, weight, share, len(lexemes))
        if target in configs:
            terms.setdefault((target, query), term)
        if latin and share * stats.rows <= latin_rows:
            latin_term = replace(term, config=RUSSIAN_CONFIG, counted=False)
            terms.setdefault((RUSSIAN_CONFIG, query), latin_term)
    return list(terms.values()), replaced


def _most_held(
    senses: dict[str, tuple[float, list[str]]],
) -> dict[str, tuple[float, list[str]]]:
    """The ALTERNATIVES senses of a word the index holds most, in the dictionary's order
    among equals. A Russian word is the first translation of many English headwords, most of
    them rare words (журнал: bimonthly, biweekly, quarterly, … journal; имя: appellation, …
    name): the ones a technical index holds are its senses there (system, journal, name,
    change), the others match nothing."""
    order = {query: i for i, query in enumerate(senses)}
    chosen = sorted(senses, key=lambda q: (-senses[q][0], order[q]))[:ALTERNATIVES]
    return {query: senses[query] for query in sorted(chosen, key=order.__getitem__)}
