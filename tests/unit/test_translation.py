"""The English–Russian dictionary of the full-text leg: Müller's dictd layout read into
translations both ways, and a question's content words translated."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

from mirage_query.settings import ServiceSettings
from mirage_query.translation import CANDIDATES, english_forms, load_dictionary, parse_dictd
from tests.support.dictionary import MUELLER_SAMPLE, write_dictionary


def test_first_senses_give_the_translations_without_labels_notes_or_examples():
    dictionary = parse_dictd(MUELLER_SAMPLE)
    assert dictionary.en_ru["kernel"] == ("зерно", "зёрнышко", "ядро", "суть")
    # the third sense (шеренга, behind a label) is past SENSES; the note in brackets is dropped
    assert dictionary.en_ru["file"] == ("напильник", "файл")
    assert dictionary.en_ru["operating"] == ("операционный",)
    assert "00-database-info" not in dictionary.en_ru  # the file's header, not a word
    assert "command line" not in dictionary.en_ru  # a phrase headword: not one question word


def test_russian_to_english_reads_the_table_backwards_with_yo_folded():
    dictionary = parse_dictd(MUELLER_SAMPLE)
    assert dictionary.ru_en["ядро"] == ("kernel",)
    assert dictionary.ru_en["зернышко"] == ("kernel",)  # ё folded, as lemmas are
    assert dictionary.ru_en["файл"] == ("file",)


def test_a_russian_word_prefers_the_headwords_giving_it_first():
    text = "meritocracy\n   _n. система; правление\nsystem\n   _n. система, строй\n"
    text += "aardvark\n   _n. трубкозуб, система\n"
    dictionary = parse_dictd(text)
    assert dictionary.ru_en["система"][-1] == "aardvark"  # its second translation only
    assert set(dictionary.ru_en["система"][:2]) == {"meritocracy", "system"}


def test_a_russian_word_is_found_in_any_sense_of_a_headword_earliest_first():
    """A verb's senses follow its noun's (lie: ложь, then лежать): the reverse table reads them
    all, the headwords giving the word in an earlier sense first, CANDIDATES at most."""
    text = "lie\n   1. _n. ложь, обман\n   2. _v.\n      1) лгать\n      2) лежать; покоиться\n"
    text += "recline\n   _v. лежать, откидываться\n"
    text += "".join(f"w{chr(97 + i)}\n   _n. шар\n" for i in range(CANDIDATES + 2))
    dictionary = parse_dictd(text)
    assert dictionary.en_ru["lie"] == ("ложь", "обман", "лгать")  # the first senses only
    assert dictionary.ru_en["лежать"] == ("recline", "lie")
    assert dictionary.ru_en["покоиться"] == ("lie",)
    assert len(dictionary.ru_en["шар"]) == CANDIDATES


def test_question_words_are_translated_by_their_dictionary_form():
    dictionary = parse_dictd(MUELLER_SAMPLE)
    english = dict(dictionary.translate("Which files hold the kernel of the system?", "en"))
    assert english == {
        "files": ("напильник", "файл"),
        "kernel": ("зерно", "зёрнышко", "ядро", "суть"),
        "system": ("система",),
    }
    russian = dict(dictionary.translate("Где лежит ядро операционной системы?", "ru"))
    assert russian == {"ядро": ("kernel",), "операционной": ("operating",), "системы": ("system",)}
    assert dictionary.translate("Where is the kernel?", "ru") == []  # not Russian words


def test_a_gloss_is_the_question_word_for_word_in_the_other_language():
    """gloss.py: each content word as its first translation — a wrong sense too, the gloss is
    crude —, stop words out, a word the dictionary lacks or in the other script as written."""
    dictionary = parse_dictd(MUELLER_SAMPLE)
    assert dictionary.gloss("Где лежит ядро операционной системы?", "ru") == (
        "лежит kernel operating system"
    )
    assert dictionary.gloss("Which files keep the kernel of the boot loader?", "en") == (
        "напильник keep зерно ботинок loader"
    )
    # a Latin command in a Russian question, a Cyrillic word in an English one: as written
    assert dictionary.gloss("ядро и grub", "ru") == "kernel grub"
    assert dictionary.gloss("the ядро", "en") == "ядро"
    # jargon: its own translation first, which no dictionary gives (jargon.py)
    assert dictionary.gloss("баг в ядре", "ru").split() == ["bug", "kernel"]


def test_stop_words_are_not_translated():
    text = "the\n   _art. этот\nи\n   _conj. and\nwhere\n   _adv. где\n"
    dictionary = parse_dictd(text)
    assert dictionary.translate("where is the", "en") == []


def test_english_forms_lead_to_the_headword():
    assert list(english_forms("versions"))[:2] == ["versions", "version"]
    assert "copy" in english_forms("copies")
    assert "save" in english_forms("saved")
    assert "install" in english_forms("installing")


def test_load_reads_a_dictzip_file_and_says_when_there_is_none(tmp_path: Path, caplog):
    path = write_dictionary(tmp_path / "mueller7.dict.dz")
    dictionary = load_dictionary(path)
    assert dictionary is not None and dictionary.en_ru["system"] == ("система",)
    plain = tmp_path / "plain.dict"
    plain.write_text(MUELLER_SAMPLE, encoding="utf-8")  # an uncompressed one too
    assert load_dictionary(plain).en_ru["boot"] == ("ботинок", "сапог")
    broken = tmp_path / "broken.dict.dz"
    broken.write_bytes(gzip.compress(b"x")[:8])  # cut short
    with caplog.at_level(logging.WARNING, logger="mirage_query.translation"):
        assert load_dictionary(broken) is None
    assert "cannot be read" in caplog.text
    assert load_dictionary(tmp_path / "missing.dict.dz") is None


def test_the_dictionary_setting_names_a_file_or_leaves_the_default_paths():
    assert ServiceSettings.from_env({"MIRAGE_DICTIONARY": "/srv/m7.dict.dz"}).dictionary == Path(
        "/srv/m7.dict.dz"
    )
    assert ServiceSettings.from_env({}).dictionary is None
