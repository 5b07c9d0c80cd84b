"""A Dagster home holding the repository's dagster.yaml, on a database of the test server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mirage_pipeline.embedded_postgres import ensure_database, with_database

REPO = Path(__file__).resolve().parents[2]


def repository_dagster_home(
    server_url: str, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> tuple[Path, str]:
    """`tmp_path`/dagster with a copy of dagster.yaml, its variables set, its storage in the
    database `<test database>_<name>`; returns the home and that database's name."""
    dagster_db = database_url.rsplit("/", 1)[1].split("?")[0] + f"_{name}"
    ensure_database(server_url, dagster_db)
    home = tmp_path / "dagster"
    home.mkdir()
    shutil.copy(REPO / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv(
        "MIRAGE_DAGSTER_DATABASE_URL", with_database(server_url, dagster_db, driver="psycopg2")
    )
    monkeypatch.setenv("MIRAGE_DAGSTER_STORAGE_DIR", str(home / "storage"))
    monkeypatch.setenv("MIRAGE_DAGSTER_COMPUTE_LOGS_DIR", str(home / "logs"))
    return home, dagster_db
