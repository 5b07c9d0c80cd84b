"""Search across languages: a question's words translated by the dictionary
(mirage_query/translation.py) let the full-text leg find a passage in the other language,
both ways, over HTTP on the real index; a dictionary that does not know the words finds
nothing, and a same-language question keeps its own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.dictionary import write_dictionary
from tests.support.search_client import service_client, text_search
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

KERNEL = "The kernel of the operating system is kept in the boot directory."
SHELVES = "Shelves of the library hold the printed manuals and old magazines."
FILES = "Напильник держат двумя руками; файл с настройками лежит в каталоге etc."
CORE = "Ядро операционной системы загружается первым и управляет памятью."
ENGLISH = [Passage(KERNEL, "Boot"), Passage(SHELVES, "Library")]
RUSSIAN = [Passage(FILES, "Инструменты", "ru"), Passage(CORE, "Загрузка", "ru")]
UNRELATED = "unrelated\n   _n. посторонний\n"


@pytest.fixture
def projects(database_url: str, local_embedder) -> tuple[str, str]:
    write_document(database_url, local_embedder, "xlang-en", "manual.md", ENGLISH)
    write_document(database_url, local_embedder, "xlang-ru", "руководство.md", RUSSIAN)
    return "xlang-en", "xlang-ru"


async def test_a_russian_question_finds_an_english_passage_through_the_dictionary(
    database_url, local_embedder, tmp_path: Path, projects
):
    english, _ = projects
    question = "Где лежит ядро операционной системы?"
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        assert await text_search(client, english, question) == [KERNEL]
    unknown = write_dictionary(tmp_path / "unrelated.dict.dz", UNRELATED)
    async with service_client(database_url, local_embedder, tmp_path, dictionary=unknown) as client:
        assert await text_search(client, english, question) == []


async def test_an_english_question_finds_a_russian_passage_and_wrong_senses_weigh_little(
    database_url, local_embedder, tmp_path: Path, projects
):
    _, russian = projects
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        hits = await text_search(client, russian, "How is the operating system kernel loaded?")
        assert hits[0] == CORE
        # "file" is напильник and файл: the passage holding both ranks first, by two words
        hits = await text_search(client, russian, "Which file keeps the settings?")
        assert hits[:1] == [FILES]


async def test_a_question_in_the_books_language_keeps_its_own_words(
    database_url, local_embedder, tmp_path: Path, projects
):
    english, russian = projects
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        assert await text_search(client, english, "library shelves") == [SHELVES]
        assert await text_search(client, russian, "ядро системы") == [CORE]
