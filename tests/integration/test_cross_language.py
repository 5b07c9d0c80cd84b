"""Search across languages: a question's words translated by the dictionary
(mirage_query/translation.py) let the full-text leg find a passage in the other language,
both ways, over HTTP on the real index; a dictionary that does not know the words finds
nothing, and a same-language question keeps its own words."""

from __future__ import annotations

from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.dictionary import write_dictionary
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

KERNEL = "The kernel of the operating system is kept in the boot directory."
SHELVES = "Shelves of the library hold the printed manuals and old magazines."
FILES = "Напильник держат двумя руками; файл с настройками лежит в каталоге etc."
CORE = "Ядро операционной системы загружается первым и управляет памятью."
ENGLISH = [Passage(KERNEL, "Boot"), Passage(SHELVES, "Library")]
RUSSIAN = [Passage(FILES, "Инструменты", "ru"), Passage(CORE, "Загрузка", "ru")]
UNRELATED = "unrelated\n   _n. посторонний\n"


async def _client(database_url, embedder, home: Path, dictionary: Path):
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(home)}).with_overrides(
        database_url=database_url, api_keys=("k",), dictionary=dictionary
    )
    return AsyncTestClient(app=create_app(settings, embedder=embedder))


async def _text_search(client, project: str, query: str) -> list[str]:
    response = await client.post(
        f"/api/v1/projects/{project}/search",
        json={"query": query, "mode": "text"},
        headers={"X-API-Key": "k"},
    )
    assert response.status_code == 200, response.text
    return [hit["content"] for hit in response.json()]


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
    async with await _client(database_url, local_embedder, tmp_path, dictionary) as client:
        assert await _text_search(client, english, question) == [KERNEL]
    unknown = write_dictionary(tmp_path / "unrelated.dict.dz", UNRELATED)
    async with await _client(database_url, local_embedder, tmp_path, unknown) as client:
        assert await _text_search(client, english, question) == []


async def test_an_english_question_finds_a_russian_passage_and_wrong_senses_weigh_little(
    database_url, local_embedder, tmp_path: Path, projects
):
    _, russian = projects
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    async with await _client(database_url, local_embedder, tmp_path, dictionary) as client:
        hits = await _text_search(client, russian, "How is the operating system kernel loaded?")
        assert hits[0] == CORE
        # "file" is напильник and файл: the passage holding both ranks first, by two words
        hits = await _text_search(client, russian, "Which file keeps the settings?")
        assert hits[:1] == [FILES]


async def test_a_question_in_the_books_language_keeps_its_own_words(
    database_url, local_embedder, tmp_path: Path, projects
):
    english, russian = projects
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    async with await _client(database_url, local_embedder, tmp_path, dictionary) as client:
        assert await _text_search(client, english, "library shelves") == [SHELVES]
        assert await _text_search(client, russian, "ядро системы") == [CORE]
