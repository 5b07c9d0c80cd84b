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
    assert literary in found.literary
    assert english in found.translations


@pytest.mark.parametrize("word", ["ошибка", "сопровождающий", "загрузить", "пакет", "каталог"])
def test_a_literary_word_is_not_jargon(word):
    assert jargon(word) is None


@pytest.mark.parametrize(
    ("word", "literary", "russian"),
    [("repos", "repository", "репозиторий"), ("Config", "configuration", "настройка")],
)
def test_english_shorthand_has_its_full_words_and_russian_ones(word, literary, russian):
    found = jargon(word)
    assert found is not None
    assert literary in found.literary
    assert russian in found.translations


def test_every_entry_means_something_else_in_both_languages():
    for word, entry in _table().items():
        assert entry.literary and entry.translations, word
        own, other = (entry.literary, entry.translations)
        if not word.isascii():  # Russian jargon: Russian words, then English ones
            own, other = other, own
        assert all(w.isascii() for w in own), word
        assert not any(w.isascii() for w in other), word


def test_a_jargon_lemma_is_one_term_with_its_equivalents_and_their_phrases():
    stats = TermStats(rows=1000.0, shares={"баг": 0.002, "ошибка": 0.05}, floor=0.001)
    found = question_jargon(["Как", "закрыть", "баг", "в", "исходниках", "баг", "repo"], True)
    assert [word for word, _ in found] == ["баг", "исходниках"]  # each once
    terms = lemma_alternatives(found, stats)
    bug = terms["баг"]
    assert bug.query == "'баг' | 'ошибка'"
    assert bug.lexemes == 2
    assert bug.share == pytest.approx(0.052)  # as common as its alternatives together
    source = terms["исходник"]
    assert source.query == "'исходник' | ('исходный' & 'код') | ('исходный' & 'текст')"
    assert source.lexemes == 4


def test_the_dictionary_gives_a_jargon_word_its_other_language_words_first():
    dictionary = parse_dictd(MUELLER_SAMPLE)
    translated = dict(dictionary.translate("Где лежит конфиг ядра?", "ru"))
    assert translated["конфиг"][:2] == ("config", "configuration")
    assert translated["ядра"] == ("kernel",)  # a literary word: the dictionary's alone
    translated = dict(dictionary.translate("Where is the kernel config kept?", "en"))
    assert translated["config"] == ("конфигурация", "настройка")
    assert translated["kernel"] == ("зерно", "зёрнышко", "ядро", "суть")


def test_cyrillic_words_are_russian_jargon_and_latin_ones_english_shorthand():
    words = ["Where", "is", "the", "repo", "конфиг", "баг-репорт", "sources.list"]
    assert [w for w, _ in question_jargon(words, False)] == ["repo"]
    assert [w for w, _ in question_jargon(words, True)] == ["конфиг", "баг-репорт"]
