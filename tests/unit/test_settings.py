"""Settings from the environment: defaults, and bad values named at start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirage_pipeline.settings import Settings, SettingsError, read_api_keys


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    s = Settings.from_env({})
    assert s.home == tmp_path / ".mirage"
    assert s.documents_dir == tmp_path / ".mirage" / "documents"
    assert s.database_url is None  # embedded
    assert s.embedder == "local:multilingual-e5-small"
    assert (s.api_port, s.dagster_port) == (8080, 3000)
    assert s.api_url == "http://localhost:8080/api/v1"
    assert s.api_keys == ()
    assert s.pgdata_dir == s.home / "pgdata"
    assert (s.query_embed_timeout, s.request_body_timeout) == (4.0, 30.0)


def test_values_from_the_environment(tmp_path: Path) -> None:
    s = Settings.from_env(
        {
            "MIRAGE_HOME": str(tmp_path / "h"),
            "MIRAGE_DOCUMENTS_DIR": str(tmp_path / "books"),
            "MIRAGE_DATABASE_URL": "postgresql://u:p@db:5432/mirage",
            "MIRAGE_EMBEDDER": "ollama:mxbai-embed-large",
            "OLLAMA_HOST": "ollama:11434",
            "MIRAGE_API_KEY": "one, two",
            "MIRAGE_API_PORT": "9000",
            "MIRAGE_DAGSTER_PORT": "3100",
            "MIRAGE_QUERY_EMBED_TIMEOUT": "2.5",
            "MIRAGE_REQUEST_BODY_TIMEOUT": "10",
        }
    )
    assert s.home == tmp_path / "h"
    assert s.documents_dir == tmp_path / "books"
    assert s.database_url == "postgresql://u:p@db:5432/mirage"
    assert s.embedder == "ollama:mxbai-embed-large"
    assert s.ollama_host == "http://ollama:11434"
    assert s.api_keys == ("one", "two")
    assert (s.api_port, s.dagster_port) == (9000, 3100)
    assert (s.query_embed_timeout, s.request_body_timeout) == (2.5, 10.0)
    assert "one" not in repr(s)  # keys never end up in logs through repr


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MIRAGE_API_PORT", "http"),
        ("MIRAGE_API_PORT", "70000"),
        ("MIRAGE_DAGSTER_PORT", "0"),
        ("MIRAGE_DATABASE_URL", "mysql://db/x"),
        ("MIRAGE_EMBEDDER", "openai:ada"),
        ("MIRAGE_EMBEDDER", "local:bge"),
        ("OLLAMA_HOST", "ftp://x"),
        ("MIRAGE_API_KEY", " , "),
        ("MIRAGE_API_URL", "://"),
        ("MIRAGE_MAX_CONCURRENT_RUNS", "0"),
        ("MIRAGE_QUERY_EMBED_TIMEOUT", "soon"),
        ("MIRAGE_QUERY_EMBED_TIMEOUT", "0"),
        ("MIRAGE_REQUEST_BODY_TIMEOUT", "-1"),
    ],
)
def test_bad_values_name_their_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_api_key_file_is_read_when_the_variable_is_unset(tmp_path: Path) -> None:
    s = Settings.from_env({"MIRAGE_HOME": str(tmp_path)})
    assert read_api_keys(s) == ()
    s.api_key_file.write_text("secret\n")
    assert read_api_keys(s) == ("secret",)
    env = Settings.from_env({"MIRAGE_HOME": str(tmp_path), "MIRAGE_API_KEY": "k"})
    assert read_api_keys(env) == ("k",)


def test_instance_config_carries_run_and_embedding_concurrency(tmp_path):
    import yaml

    from mirage_query.stack import write_instance_config

    settings = Settings.from_env(
        {
            "MIRAGE_HOME": str(tmp_path),
            "MIRAGE_MAX_CONCURRENT_RUNS": "3",
            "MIRAGE_EMBED_CONCURRENCY": "2",
        }
    )
    written = yaml.safe_load(write_instance_config(settings).read_text())
    assert written["concurrency"]["runs"]["max_concurrent_runs"] == 3
    assert written["concurrency"]["pools"]["default_limit"] == 2
    assert written["run_coordinator"]["class"] == "QueuedRunCoordinator"
