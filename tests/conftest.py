"""Shared fixtures: one embedded PostgreSQL per test session, a fresh database per test."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from mirage_pipeline.embedded_postgres import EmbeddedPostgres, ensure_database, with_database

# The real documents: MIRAGE_CORPUS, else ../shared/corpus beside the repository.
CORPUS = Path(
    os.environ.get("MIRAGE_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
).expanduser()
CORPUS_ABSENT = f"{CORPUS} is absent (set MIRAGE_CORPUS to the corpus folder)"
_counter = itertools.count()


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("MIRAGE_CORPUS") and not CORPUS.is_dir():
        raise pytest.UsageError(f"MIRAGE_CORPUS={CORPUS} is not a folder")


def pytest_report_header() -> str:
    if CORPUS.is_dir():
        return f"corpus: {CORPUS}"
    return f"corpus: {CORPUS_ABSENT}: the corpus tests skip"


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedPostgres]:
    from mirage_pipeline.embedded_postgres import start_embedded_postgres

    server = start_embedded_postgres(tmp_path_factory.mktemp("pg") / "pgdata")
    yield server
    server.stop()


@pytest.fixture
def empty_database_url(postgres: EmbeddedPostgres) -> str:
    """A new, empty database on the session's server (no state leaks between tests)."""
    name = f"t{os.getpid()}_{next(_counter)}"
    ensure_database(postgres.url, name)
    return with_database(postgres.url, name)


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    """A new database with miRAGe's schema, as `mirage up` leaves it before the services start
    (the query service only reads: it never migrates)."""
    from mirage_pipeline.store import apply_migrations

    with psycopg.connect(empty_database_url) as conn:
        apply_migrations(conn)
    return empty_database_url


@pytest.fixture
def db(database_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        yield conn


@pytest.fixture(scope="session")
def local_embedder():
    from mirage_pipeline.embedders import create_embedder

    return create_embedder("local:multilingual-e5-small")


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(CORPUS_ABSENT)
    return CORPUS
