"""Search across languages: a question's words translated by the dictionary
(mirage_query/translation.py) let the full-text leg find a passage in the other language,
both ways, over HTTP on the real index; a dictionary that does not know the words finds
nothing, and a same-language question keeps its own words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector_async

from mirage_pipeline.embedders.centering import center_query
from mirage_pipeline.store import prepare_database
from mirage_query.search import SearchPlan
from mirage_query.search_run import search_hybrid
from mirage_query.term_stats import RUSSIAN_CONFIG, TermStats, read_index_stats
from mirage_query.translation import (
    ALTERNATIVES,
    load_dictionary,
    parse_dictd,
    translated_terms,
)
from tests.support.dictionary import MUELLER_SAMPLE, write_dictionary
from tests.support.search_client import API_KEY, service_client, text_search
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


async def _glossed_and_alone(
    client, project: str, question: str, first: str
) -> tuple[dict[str, float], dict[str, float]]:
    """Each passage's vector score in a hybrid search (glossed or not) and in a vector-only
    one, the full-text leg's best candidate being `first`."""
    assert (await text_search(client, project, question))[0] == first
    glossed = await _similarities(client, project, question, "hybrid")
    return glossed, await _similarities(client, project, question, "vector")


async def _similarities(client, project: str, query: str, mode: str) -> dict[str, float]:
    """Each hit's similarity as the vector leg gave it, by its text."""
    response = await client.post(
        f"/api/v1/projects/{project}/search",
        json={"query": query, "mode": mode},
        headers={"X-API-Key": API_KEY},
    )
    assert response.status_code == 200, response.text
    return {hit["content"]: hit["scores"]["vector"] for hit in response.json()}


async def test_a_question_about_the_other_languages_text_is_glossed_for_the_vector_leg(
    database_url, local_embedder, tmp_path: Path
):
    """gloss.py: when the full-text leg's best candidate — found through the translations — is
    in the other language, a hybrid search scores that language's passages by the question's
    gloss too (never lower than by the question alone); a question its own language's text
    answers first is left as it is, and so is a search without a full-text leg."""
    shelves = "Полки библиотеки хранят печатные руководства и старые журналы."
    write_document(database_url, local_embedder, "xlang-both", "manual.md", ENGLISH)
    write_document(
        database_url, local_embedder, "xlang-both", "полки.md", [Passage(shelves, "Полки", "ru")]
    )
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    question = "Где лежит ядро операционной системы?"
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        glossed, alone = await _glossed_and_alone(client, "xlang-both", question, KERNEL)
        assert glossed[KERNEL] > alone[KERNEL] + 0.01
        assert glossed[SHELVES] >= alone[SHELVES]
        assert glossed[shelves] == alone[shelves]  # Russian text: as the question measures it
        own = "полки библиотеки"
        assert (await text_search(client, "xlang-both", own))[0] == shelves
        assert await _similarities(client, "xlang-both", own, "hybrid") == (
            await _similarities(client, "xlang-both", own, "vector")
        )
    unknown = write_dictionary(tmp_path / "unrelated.dict.dz", UNRELATED)
    async with service_client(database_url, local_embedder, tmp_path, dictionary=unknown) as client:
        assert await _similarities(client, "xlang-both", question, "hybrid") == alone
    # search_hybrid, the legs in turn on one connection, glosses alike given an embedder
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)

    async def embed(text: str) -> np.ndarray:
        vector = local_embedder.embed_query(text)
        return center_query(vector, text, index.model, index.vector_form)

    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await register_vector_async(conn)
        project = (
            await (
                await conn.execute("SELECT id FROM projects WHERE name = 'xlang-both'")
            ).fetchone()
        )[0]
        stats = await read_index_stats(conn)
        plan = SearchPlan(query=question, limit=10)
        hits = await search_hybrid(
            conn,
            index,
            project,
            plan,
            await embed(question),
            stats,
            load_dictionary(dictionary),
            embed,
        )
    assert {h.content: h.scores.vector for h in hits} == pytest.approx(glossed)


async def test_a_documents_language_declared_with_its_region_is_its_language(
    database_url, local_embedder, tmp_path: Path
):
    """An EPUB declares "en-US" (its metadata keeps it as written): for the gloss it is an
    English document, and a Russian question about it is glossed."""
    write_document(
        database_url, local_embedder, "xlang-region", "manual.epub", ENGLISH, language="en-US"
    )
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    question = "Где лежит ядро операционной системы?"
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        glossed, alone = await _glossed_and_alone(client, "xlang-region", question, KERNEL)
    assert glossed[KERNEL] > alone[KERNEL] + 0.01


async def test_a_russian_manuals_english_code_does_not_make_a_question_one_across_languages(
    database_url, local_embedder, tmp_path: Path
):
    """A Russian manual's command line is tagged English; ranked first by the full-text leg for a
    Russian question naming the command, it does not make the question one about English text
    (gloss.py asks the document's language too): the English manual is not re-scored."""
    code = "grub-install --boot-directory=/boot /dev/sda"
    russian = [Passage("Загрузчик ставят одной командой.", "Загрузчик", "ru"), Passage(code, "Код")]
    write_document(
        database_url, local_embedder, "xlang-code", "загрузка.md", russian, language="ru"
    )
    write_document(database_url, local_embedder, "xlang-code", "manual.md", ENGLISH, language="en")
    dictionary = write_dictionary(tmp_path / "mueller7.dict.dz")
    question = "Как запустить grub-install?"
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        assert (await text_search(client, "xlang-code", question))[0] == code
        assert await _similarities(client, "xlang-code", question, "hybrid") == (
            await _similarities(client, "xlang-code", question, "vector")
        )


async def test_a_words_senses_weigh_as_one_word_however_rare_a_wrong_one_is(database_url):
    """ядро is a nucleus (rare in a software manual) and a kernel (common): one term, its senses
    OR-ed, weighted by how rare they are together; not the nucleus at its own rarity."""
    nucleus = "nucleus\n   _n. ядро\n"
    dictionary = parse_dictd(MUELLER_SAMPLE + nucleus)
    stats = TermStats(rows=1000.0, shares={"kernel": 0.2, "nucleus": 0.001}, floor=0.0005)
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        terms, replaced = await translated_terms(
            conn, dictionary, "ядро", "ru", ("english", RUSSIAN_CONFIG), stats
        )
    (term,) = terms
    assert set(term.query.split(" | ")) == {"'kernel'", "'nucleus'"}
    assert term.weight == pytest.approx(stats.idf_of_share(0.201))
    assert term.weight < stats.idf("kernel") < stats.idf("nucleus")
    assert term.lexemes == 2  # ts_rank divides an OR query's rank by 2: search.py scales it back
    assert replaced == {("english", "ядро")}  # the Russian word itself matches no English text


async def test_a_russian_word_takes_the_english_senses_the_index_holds_most(database_url):
    """журнал is the first translation of almanac, annual, bimonthly, … and journal: of
    its candidates the question takes the ALTERNATIVES its index holds most, not the first in
    alphabetical order (which left out journal, and name for имя, change for изменение)."""
    rare = ("register", "bimonthly", "biweekly", "annual", "almanac")
    text = "".join(f"{w}\n   _n. журнал\n" for w in rare) + "journal\n   _n. журнал\n"
    dictionary = parse_dictd(text)
    assert "journal" in dictionary.ru_en["журнал"][ALTERNATIVES:]
    stats = TermStats(rows=1000.0, shares={"journal": 0.05, "regist": 0.01}, floor=0.0005)
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        (term,), _ = await translated_terms(
            conn, dictionary, "журнал", "ru", ("english", RUSSIAN_CONFIG), stats
        )
    senses = term.query.split(" | ")
    assert len(senses) == ALTERNATIVES and {"'journal'", "'regist'"} <= set(senses)
    # among equally rare ones the dictionary's order holds: the first two of the rest
    assert set(senses) - {"'journal'", "'regist'"} == {"'almanac'", "'annual'"}


ZONE = "Параметр загрузки time/zone=Europe/Moscow избавляет установщик от этого вопроса."
TEMPORARY = "Временный каталог очищается при каждой загрузке системы."
ZONE_SENSES = "zone\n   _n. зона; пояс\n"


async def test_a_russian_questions_translation_finds_the_latin_name_in_russian_text(
    database_url, local_embedder, tmp_path: Path
):
    """Russian manuals name options in English: "временную зону" is `time/zone=` there."""
    passages = [Passage(ZONE, "Установка", "ru"), Passage(TEMPORARY, "Каталоги", "ru")]
    write_document(database_url, local_embedder, "latin-ru", "установка.md", passages)
    question = "Как указать временную зону?"
    unknown = write_dictionary(tmp_path / "unrelated.dict.dz", UNRELATED)
    async with service_client(database_url, local_embedder, tmp_path, dictionary=unknown) as client:
        assert await text_search(client, "latin-ru", question) == [TEMPORARY]
    dictionary = write_dictionary(tmp_path / "zone.dict.dz", MUELLER_SAMPLE + ZONE_SENSES)
    async with service_client(
        database_url, local_embedder, tmp_path, dictionary=dictionary
    ) as client:
        assert set(await text_search(client, "latin-ru", question)) == {ZONE, TEMPORARY}


async def test_only_a_rare_translation_is_looked_for_among_russian_texts_latin_words(
    database_url,
):
    """A translation in at most `latin_rows` chunks (a name) is also a term of Russian text,
    outside its coverage; a common one ("system") is not: Russian prose has its own word."""
    dictionary = parse_dictd(MUELLER_SAMPLE)
    stats = TermStats(rows=1000.0, shares={"kernel": 0.05, "system": 0.3}, floor=0.0005)
    configs = ("english", RUSSIAN_CONFIG)
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        terms, _ = await translated_terms(
            conn, dictionary, "ядро системы", "ru", configs, stats, latin_rows=100
        )
        english_only, _ = await translated_terms(
            conn, dictionary, "ядро системы", "ru", configs, stats
        )
    by_config = {(t.config, t.query): t for t in terms}
    assert set(by_config) == {
        ("english", "'kernel'"),
        ("english", "'system'"),
        (RUSSIAN_CONFIG, "'kernel'"),
    }
    latin = by_config[(RUSSIAN_CONFIG, "'kernel'")]
    assert not latin.counted and latin.weight == by_config[("english", "'kernel'")].weight
    assert {t.config for t in english_only} == {"english"}
