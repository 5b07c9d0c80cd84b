"""A question in IT jargon finds the manual's passage in literary words, Russian or English
(mirage_query/jargon.py), over HTTP on the real index; the jargon word as written still
matches a passage that uses it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.dictionary import write_dictionary
from tests.support.search_client import service_client, text_search
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

NOTICE = "Сопровождающий получает уведомление, когда ошибку переназначают на его пакет."
BUILD = "Двоичный пакет собирают командой dpkg-buildpackage в корне дерева."
SLANG = "Если мейнтейнер молчит, баг можно закрыть самому."
REPORT = "Every bug is reported against a package and reaches its maintainer by mail."
OTHER = "The archive keeps every uploaded version of a package for a while."
MIRROR = "Add the repository to sources.list before you install from it."


@pytest.fixture
def projects(database_url: str, local_embedder) -> tuple[str, str]:
    russian = [Passage(NOTICE, "Ошибки", "ru"), Passage(BUILD, "Сборка", "ru")]
    write_document(database_url, local_embedder, "jargon-ru", "руководство.md", russian)
    write_document(
        database_url, local_embedder, "jargon-ru", "заметки.md", [Passage(SLANG, "Заметки", "ru")]
    )
    english = [Passage(REPORT, "Bugs"), Passage(OTHER, "Archive"), Passage(MIRROR, "Sources")]
    write_document(database_url, local_embedder, "jargon-en", "reference.md", english)
    return "jargon-ru", "jargon-en"


async def test_a_jargon_question_finds_the_literary_passage_and_the_one_in_its_own_words(
    database_url, local_embedder, tmp_path: Path, projects
):
    russian, _ = projects
    async with service_client(database_url, local_embedder, tmp_path) as client:
        hits = await text_search(client, russian, "узнает ли мейнтейнер про баг")
    # no word of the question is in NOTICE: "сопровождающий" and "ошибку" are its equivalents
    assert sorted(hits) == sorted([NOTICE, SLANG])
    assert BUILD not in hits


async def test_a_russian_jargon_question_finds_an_english_passage(
    database_url, local_embedder, tmp_path: Path, projects
):
    _, english = projects
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")  # holds neither word
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        assert await text_search(client, english, "кому уходит баг мейнтейнеру") == [REPORT]


async def test_english_shorthand_finds_the_full_word(
    database_url, local_embedder, tmp_path: Path, projects
):
    _, english = projects
    async with service_client(database_url, local_embedder, tmp_path) as client:
        assert await text_search(client, english, "where is the repo") == [MIRROR]
