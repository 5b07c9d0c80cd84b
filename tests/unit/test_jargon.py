"""Russian IT jargon (mirage_query/jargon.py): a question's word in any of its forms finds its
literary equivalents and its English words; a literary word is not jargon."""

from __future__ import annotations

import pytest

from mirage_query.jargon import _table, jargon, lemma_alternatives, question_jargon
from mirage_query.term_stats import TermStats
from mirage_query.translation import parse_dictd
from tests.support.dictionary import MUELLER_SAMPLE


@pytest.mark.parametrize(
    ("word", "literary", "english"),
    [
        ("багов", "ошибка", "bug"),
        ("мейнтейнеру", "сопровождающий", "maintainer"),
        ("залил", "загрузить", "upload"),
        ("исходниках", "исходный код", "source"),
        ("конфиги", "настройка", "config"),
        ("Флешку", "накопитель", "usb"),
    ],
)
def test_a_jargon_word_in_any_form_has_its_literary_and_english_words(word, literary, english):
    found = jargon(word)
    assert found is not None
    assert literary in found.russian
    assert english in found.english


@pytest.mark.parametrize("word", ["ошибка", "сопровождающий", "загрузить", "пакет", "каталог"])
def test_a_literary_word_is_not_jargon(word):
    assert jargon(word) is None


def test_every_entry_means_something_else_in_both_languages():
    for word, entry in _table().items():
        assert entry.russian and entry.english, word
        assert all(r.isascii() is False for r in entry.russian), word  # Russian words
        assert all(e.isascii() for e in entry.english), word


def test_a_jargon_lemma_is_one_term_with_its_equivalents_and_their_phrases():
    stats = TermStats(rows=1000.0, shares={"баг": 0.002, "ошибка": 0.05}, floor=0.001)
    found = question_jargon(["Как", "закрыть", "баг", "в", "исходниках", "баг"])
    assert [word for word, _ in found] == ["баг", "исходниках"]  # each once
    terms = lemma_alternatives(found, stats)
    bug = terms["баг"]
    assert bug.query == "'баг' | 'ошибка'"
    assert bug.lexemes == 2
    assert bug.share == pytest.approx(0.052)  # as common as its alternatives together
    source = terms["исходник"]
    assert source.query == "'исходник' | ('исходный' & 'код') | ('исходный' & 'текст')"
    assert source.lexemes == 4


def test_the_dictionary_gives_a_jargon_word_its_english_words_first():
    dictionary = parse_dictd(MUELLER_SAMPLE)
    translated = dict(dictionary.translate("Где лежит конфиг ядра?", "ru"))
    assert translated["конфиг"][:2] == ("config", "configuration")
    assert translated["ядра"] == ("kernel",)  # a literary word: the dictionary's alone
