"""Settings from the environment: defaults, and bad values named at start-up; the pipeline's
in `mirage_pipeline.settings`, the query service's and the CLI's in `mirage_query.settings`."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirage_pipeline.settings import Settings, SettingsError, model_cache_dir
from mirage_query.settings import ServiceSettings, read_api_keys


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    s = ServiceSettings.from_env({})
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
    s = ServiceSettings.from_env(
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
    assert "'one'" not in repr(s)  # keys never end up in logs through repr


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
        ServiceSettings.from_env({name: value})


def test_api_key_file_is_read_when_the_variable_is_unset(tmp_path: Path) -> None:
    s = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)})
    assert read_api_keys(s) == ()
    s.api_key_file.write_text("secret\n")
    assert read_api_keys(s) == ("secret",)
    env = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path), "MIRAGE_API_KEY": "k"})
    assert read_api_keys(env) == ("k",)


def test_instance_config_carries_run_and_embedding_concurrency(tmp_path):
    import yaml

    from mirage_query.stack import write_instance_config

    settings = ServiceSettings.from_env(
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


def test_the_pipeline_reads_only_its_own_variables(tmp_path: Path) -> None:
    env = {"MIRAGE_HOME": str(tmp_path), "MIRAGE_API_PORT": "http", "MIRAGE_EMBED_BATCH": "8"}
    s = Settings.from_env(env)  # a bad service variable is the service's to refuse
    assert s.embed_batch == 8 and not hasattr(s, "api_port")
    with pytest.raises(SettingsError, match="MIRAGE_API_PORT"):
        ServiceSettings.from_env(env)
    with pytest.raises(SettingsError, match="MIRAGE_EMBED_BATCH"):
        ServiceSettings.from_env({"MIRAGE_EMBED_BATCH": "0"})  # and it checks the pipeline's too
    service = ServiceSettings.from_env(env | {"MIRAGE_API_PORT": "9000"})
    assert service.home == s.home and service.embed_batch == 8
    changed = service.with_overrides(database_url="postgresql://db/x", api_port=9001)
    assert isinstance(changed, ServiceSettings) and changed.api_port == 9001
    assert changed.database_url == "postgresql://db/x" and changed.embed_batch == 8


def test_what_the_cli_was_told_and_where_stacks_are_recorded(tmp_path: Path) -> None:
    told = ServiceSettings.from_env(
        {
            "MIRAGE_HOME": str(tmp_path),
            "MIRAGE_API_URL": "http://localhost:9000/api/v1",
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "MIRAGE_DAGSTER_DATABASE_URL": "postgresql+psycopg2://db/dagster",
        }
    )
    assert told.home_given and told.api_url_given
    assert told.stacks_dir == tmp_path / "config" / "mirage" / "stacks"
    assert told.dagster_database_url == "postgresql+psycopg2://db/dagster"
    untold = ServiceSettings.from_env({"MIRAGE_HOME": "", "MIRAGE_DAGSTER_DATABASE_URL": ""})
    assert not untold.home_given and not untold.api_url_given
    assert untold.stacks_dir == Path.home() / ".config" / "mirage" / "stacks"
    assert untold.dagster_database_url is None


def test_model_cache_folder(tmp_path: Path) -> None:
    assert model_cache_dir({"MIRAGE_MODEL_CACHE": str(tmp_path)}) == tmp_path
    assert model_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "mirage"
    assert model_cache_dir({}) == Path.home() / ".cache" / "mirage"
