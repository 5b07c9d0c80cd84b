"""Latin words in Russian text are commands, options and names: English stop words among them
(`aptitude why`, `--all`, a `for` loop) are indexed and looked for (migration 0011), while
Russian stop words and English prose keep their stop words."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from mirage_pipeline.store import apply_migrations
from mirage_pipeline.store.schema import _migrations, bind_embedding_index
from tests.support import search_client
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

WHY = "Команда aptitude why объясняет, почему пакет должен быть установлен в системе."
SHOW = "Команда aptitude show выводит сведения о пакете: версию пакета, размер, зависимости."
ALL = "Ключ --all показывает все версии пакета, а не только кандидата на установку."
PROSE = "Why is the package installed? Because another package depends on it."


@pytest.fixture
async def client(database_url: str, local_embedder, tmp_path: Path):
    passages = [Passage(WHY, "why", "ru"), Passage(SHOW, "show", "ru"), Passage(ALL, "all", "ru")]
    write_document(database_url, local_embedder, "apt", "aptitude.ru.md", passages)
    write_document(database_url, local_embedder, "apt", "faq.md", [Passage(PROSE, "FAQ")])
    async with search_client.service_client(database_url, local_embedder, tmp_path) as client:
        yield client


async def text_search(client, query: str) -> list[str]:
    return await search_client.text_search(client, "apt", query)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("aptitude why зачем установлен пакет", WHY),
        ("что показывает aptitude с ключом all", ALL),
    ],
)
async def test_a_russian_question_finds_a_command_named_by_an_english_stop_word(
    client, query, expected
):
    assert (await text_search(client, query))[0] == expected


def test_russian_text_keeps_its_latin_words_and_drops_its_own_stop_words(database_url):
    with psycopg.connect(database_url) as conn:
        russian = conn.execute(
            "SELECT tsvector_to_array(to_tsvector(mirage_text_config('ru'), %s))", (WHY,)
        ).fetchone()[0]
        english = conn.execute(
            "SELECT tsvector_to_array(to_tsvector(mirage_text_config('en'), %s))", (PROSE,)
        ).fetchone()[0]
    assert {"aptitud", "whi", "пакет"} <= set(russian)  # snowball: why → whi
    assert not {"в", "почему"} & set(russian)  # Russian stop words stay out
    assert "whi" not in english and "is" not in english  # English prose: as before


def test_the_migration_indexes_the_latin_words_of_russian_chunks_already_stored(
    empty_database_url, local_embedder
):
    last = max(version for version, _, _ in _migrations() if version < 11)
    with psycopg.connect(empty_database_url) as conn:  # a database as the previous release left it
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version, name, body in _migrations():
            if version <= last:
                conn.execute(body)
                conn.execute("INSERT INTO schema_migrations VALUES (%s, %s)", (version, name))
        conn.commit()
        index = bind_embedding_index(conn, local_embedder.name, local_embedder.dimension)
        conn.commit()
        passage = Passage(WHY, "why", "ru")
        write_document(empty_database_url, local_embedder, "p", "a.md", [passage], index=index)

        def has_why() -> bool:
            return conn.execute("SELECT tsv @@ 'whi'::tsquery FROM chunks").fetchone()[0]

        assert not has_why()
        assert 11 in apply_migrations(conn)
        assert has_why()
