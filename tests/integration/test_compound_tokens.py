"""File names, paths, hosts and addresses in the full-text leg: PostgreSQL's parser keeps each
one whole (`changelog.Debian` is one lexeme), so the words inside them are indexed too
(migration 0008) and a dotted word of a question is looked for whole and by its words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import search_client
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

HISTORY = "Every package installs its history as /usr/share/doc/hello/changelog.Debian.gz."
MIRRORS = "Mirrors are listed in /etc/apt/sources.list, one line per archive."
MAIL = "Ask on debian-mentors@lists.debian.org before the first upload."
PINS = "Приоритеты зеркал задают в файле /etc/apt/preferences.d/зеркала.pref."
PASSAGES = [
    Passage(HISTORY, "History"),
    Passage(MIRRORS, "Mirrors"),
    Passage(MAIL, "Help"),
    Passage("The archive keeps old versions of a package for a while.", "Archive"),
    Passage(PINS, "Зеркала", "ru"),
]


@pytest.fixture
async def client(database_url: str, local_embedder, tmp_path: Path):
    write_document(database_url, local_embedder, "paths", "guide.md", PASSAGES)
    async with search_client.service_client(database_url, local_embedder, tmp_path) as client:
        yield client


async def text_search(client, query: str) -> list[str]:
    return await search_client.text_search(client, "paths", query)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("where is the changelog", HISTORY),  # a word inside a file name
        ("where are the apt sources", MIRRORS),  # inside a path
        ("sources.list", MIRRORS),  # a dotted word: whole, and by its words
        ("/etc/apt/sources.list", MIRRORS),  # a path in the question: by its words
        ('"sources list"', MIRRORS),  # websearch syntax: a phrase inside a path
        ("mentors mailing list", MAIL),  # inside an e-mail address
    ],
)
async def test_words_inside_paths_and_addresses_are_found(client, query, expected):
    hits = await text_search(client, query)
    assert hits and hits[0] == expected


async def test_a_russian_passage_with_a_path_is_found_by_its_words(client):
    hits = await text_search(client, "где лежат preferences")
    assert hits and hits[0] == PINS
