"""The pipeline's resources: chosen by the environment in one place (`deployment.py`), its
values bound as `dg.EnvVar`; the embedded server started once per process and never tuned
again; the warm-up of a run, and none in a sensor's evaluation."""

from __future__ import annotations

import time
from pathlib import Path

import dagster as dg
import psycopg
import pytest

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.deployment import pipeline_resources
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.defs.resources import (
    EmbeddedPostgresResource,
    ExternalPostgresResource,
    PostgresResource,
)
from mirage_pipeline.embedded_postgres import EmbeddedPostgres
from tests.support.fake_ollama import FakeOllama, running_fake_ollama

pytestmark = pytest.mark.integration
VARIABLES = ("MIRAGE_DATABASE_URL", "MIRAGE_DOCUMENTS_DIR", "MIRAGE_EMBEDDER", "OLLAMA_HOST")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.setenv("MIRAGE_HOME", str(tmp_path / "home"))
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_unset_variables_mean_the_embedded_server_and_the_defaults(clean_env, tmp_path):
    resources = pipeline_resources()
    assert isinstance(resources["postgres"], EmbeddedPostgresResource)
    assert resources["documents"].documents_dir is None
    assert resources["documents"].root == (tmp_path / "home" / "documents").resolve()
    assert resources["embedder"].spec is None and resources["embedder"].ollama_host is None
    assert resources["embedder"].get_client().name == "local:multilingual-e5-small"


def test_set_variables_are_bound_as_env_vars_kept_out_of_the_ui(clean_env):
    clean_env.setenv("MIRAGE_DATABASE_URL", "postgresql://mirage:secret@db:5432/mirage")
    clean_env.setenv("MIRAGE_EMBEDDER", "ollama:mxbai-embed-large")
    clean_env.setenv("OLLAMA_HOST", "ollama:11434")
    resources = pipeline_resources()
    postgres = resources["postgres"]
    assert isinstance(postgres, ExternalPostgresResource)
    assert isinstance(postgres.database_url, dg.EnvVar)
    assert postgres.database_url.env_var_name == "MIRAGE_DATABASE_URL"
    embedder = resources["embedder"]
    assert embedder.spec.env_var_name == "MIRAGE_EMBEDDER"
    assert embedder.ollama_host.env_var_name == "OLLAMA_HOST"
    # what Dagster shows of the resource's configuration names the variable, not the password
    shown = str(dg.Definitions(resources=resources).get_repository_def().get_top_level_resources())
    assert "secret" not in shown
    # used outside a run, the resource still reads (and checks) the variable
    assert postgres.url() == "postgresql://mirage:secret@db:5432/mirage"
    assert embedder.get_client().name == "ollama:mxbai-embed-large"


def test_a_document_indexes_through_the_environments_resources(clean_env, database_url, tmp_path):
    docs = tmp_path / "documents"
    (docs / "demo").mkdir(parents=True)
    (docs / "demo" / "bees.md").write_text("# Bees\n\n## Hive\n\nOpen the hive slowly.\n")
    with running_fake_ollama(FakeOllama(models={"mxbai-embed-large": 1024})) as fake:
        clean_env.setenv("MIRAGE_DATABASE_URL", database_url)
        clean_env.setenv("MIRAGE_DOCUMENTS_DIR", str(docs))
        clean_env.setenv("MIRAGE_EMBEDDER", "ollama:mxbai-embed-large")
        clean_env.setenv("OLLAMA_HOST", fake.url)
        instance = dg.DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("documents", ["demo/bees.md"])
        result = dg.materialize(
            document_assets,
            partition_key="demo/bees.md",
            instance=instance,
            resources={
                **pipeline_resources(),
                "io_manager": ParquetIOManager(base_dir=str(tmp_path / "storage")),
            },
        )
        assert result.success
        assert fake.requests  # the embedder of OLLAMA_HOST answered
    with psycopg.connect(database_url) as conn:
        ((status, model),) = conn.execute(
            "SELECT d.status, e.model FROM documents d JOIN chunks c ON c.document_id = d.id"
            " JOIN embedding_indexes e ON e.id = c.index_id GROUP BY d.status, e.model"
        ).fetchall()
    assert (status, model) == ("ready", "ollama:mxbai-embed-large")


def test_the_embedded_server_is_started_once_and_never_tuned_again(postgres: EmbeddedPostgres):
    resource = EmbeddedPostgresResource(pgdata_dir=str(postgres.pgdata))
    url = resource.url()
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT current_setting('work_mem')").fetchone() == ("16MB",)
        # someone changes a setting the start-up tunes: no later call may put it back
        conn.execute("ALTER SYSTEM RESET work_mem")
        conn.execute("SELECT pg_reload_conf()")
    try:
        for _ in range(3):
            assert resource.url() == url
            with resource.store_connection() as conn:
                conn.execute("SELECT 1")
        assert EmbeddedPostgresResource(pgdata_dir=str(postgres.pgdata)).url() == url
        with psycopg.connect(url) as conn:
            tuned = conn.execute(
                "SELECT count(*) FROM pg_file_settings WHERE name = 'work_mem'"
                " AND sourcefile LIKE '%postgresql.auto.conf'"
            ).fetchone()
        assert tuned == (0,)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET work_mem = '16MB'")
            conn.execute("SELECT pg_reload_conf()")


def _migrated(url: str) -> bool:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT to_regclass('schema_migrations')").fetchone()[0] is not None


def test_a_run_warms_up_in_the_background_and_a_sensor_does_not(empty_database_url):
    @dg.sensor()
    def looks(context: dg.SensorEvaluationContext, postgres: PostgresResource) -> dg.SkipReason:
        return dg.SkipReason("nothing to do")

    @dg.asset
    def touches_nothing(postgres: PostgresResource) -> None:
        return None

    resource = ExternalPostgresResource(database_url=empty_database_url)
    context = dg.build_sensor_context(resources={"postgres": resource})
    looks(context)
    time.sleep(1.0)
    assert not _migrated(empty_database_url)  # a sensor's evaluation starts no warm-up

    assert dg.materialize([touches_nothing], resources={"postgres": resource}).success
    deadline = time.monotonic() + 20
    while not _migrated(empty_database_url) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _migrated(empty_database_url)  # the run's warm-up migrated the database on its own
