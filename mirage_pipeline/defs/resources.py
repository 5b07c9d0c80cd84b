"""Resources: the documents folder, the index's PostgreSQL and the embedder.

Each field left unset falls back to its MIRAGE_* variable (through `Settings`); which
implementation a deployment uses is chosen in `deployment.py`. What is expensive to set up is
shared by the whole process: one embedder per spec, one start of the embedded server per data
folder, migrations once per database URL, one binding of each model's index.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import psycopg
from pydantic import PrivateAttr

from mirage_pipeline.embedded_postgres import start_embedded_postgres
from mirage_pipeline.embedders import Embedder, create_embedder
from mirage_pipeline.settings import (
    Settings,
    SettingsError,
    database_url_setting,
    embedder_setting,
    http_url_setting,
)
from mirage_pipeline.store import EmbeddingIndex, apply_migrations, bind_embedding_index
from mirage_pipeline.store.connections import kept_connection

_embedders_lock = threading.Lock()
_server_lock = threading.Lock()
_schema_lock = threading.Lock()
_embedders: dict[tuple[str, str], Embedder] = {}
_embedded_urls: dict[Path, str] = {}
_migrated: set[str] = set()
_indexes: dict[tuple[str, str], EmbeddingIndex] = {}


def _in_background(name: str, work: Callable[[], object]) -> None:
    """Run `work()` in a daemon thread; a failure is left for the step that meets it again."""

    def attempt() -> None:
        with contextlib.suppress(Exception):  # the step meets the same error and reports it
            work()

    threading.Thread(target=attempt, name=name, daemon=True).start()


def _value(field: str | None) -> str | None:
    """A field's value; an `EnvVar` still unresolved (the resource used outside a Dagster run
    or sensor) reads its variable."""
    return field.get_value() if isinstance(field, dg.EnvVar) else field


class DocumentsFolderResource(dg.ConfigurableResource):
    """The folder of documents the sensor watches and the steps read, one sub-folder per
    project; unset → MIRAGE_DOCUMENTS_DIR, else $MIRAGE_HOME/documents."""

    documents_dir: str | None = None
    # A file is indexed once unchanged for this long (the sensor waits out the rest of the
    # window within its tick for a file saved a moment ago).
    settle_seconds: float = 0.5

    def settings(self) -> Settings:
        """miRAGe's settings (budgets, batch sizes…) with this folder."""
        base = Settings.from_env()
        folder = _value(self.documents_dir)
        if not folder:
            return base
        return base.with_overrides(documents_dir=Path(folder).expanduser().resolve())

    @property
    def root(self) -> Path:
        return self.settings().documents_dir


class PostgresResource(dg.ConfigurableResource):
    """PostgreSQL + pgvector holding the index; subclasses say where the server is.

    In a run, `setup_for_execution` reaches the server and applies the migrations in the
    background while Dagster finishes starting the run."""

    def url(self) -> str:
        raise NotImplementedError

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        if context.dagster_run is not None:  # a run, not a sensor's evaluation
            _in_background("mirage-postgres-warm-up", self.migrate)

    def migrate(self) -> str:
        """Apply the migrations this database lacks, once per process; returns its URL."""
        url = self.url()
        with _schema_lock:
            if url not in _migrated:
                with psycopg.connect(url) as conn:  # (pgvector may not be created yet)
                    apply_migrations(conn)
                _migrated.add(url)
        return url

    @contextmanager
    def store_connection(self) -> Iterator[psycopg.Connection]:
        """A connection to the migrated index (pgvector registered; kept open for the next
        caller in this process: store/connections.py); never loads a model."""
        with kept_connection(self.migrate()) as conn:
            yield conn

    def index_for(self, embedder: Embedder) -> EmbeddingIndex:
        """The embedder's index in this database, bound (created on first use) once per
        process."""
        url = self.migrate()
        key = (url, embedder.name)
        with _schema_lock:
            if key not in _indexes:
                with psycopg.connect(url) as conn:
                    _indexes[key] = bind_embedding_index(conn, embedder.name, embedder.dimension)
            return _indexes[key]


class ExternalPostgresResource(PostgresResource):
    """A PostgreSQL server at `database_url`: a cluster's, or the one `mirage up` runs."""

    database_url: str

    def url(self) -> str:
        url = database_url_setting(_value(self.database_url))
        if url is None:
            raise SettingsError("the PostgreSQL resource's database_url is empty")
        return url


class EmbeddedPostgresResource(PostgresResource):
    """The embedded server whose data lives in `pgdata_dir` (unset → $MIRAGE_HOME/pgdata),
    attached to or started once per process (e.g. under `dagster dev` without `mirage up`)."""

    pgdata_dir: str | None = None

    def url(self) -> str:
        folder = _value(self.pgdata_dir)
        pgdata = Path(folder).expanduser().resolve() if folder else Settings.from_env().pgdata_dir
        with _server_lock:
            if pgdata not in _embedded_urls:
                server = start_embedded_postgres(pgdata, stop_at_exit=False)
                _embedded_urls[pgdata] = server.url
            return _embedded_urls[pgdata]


class EmbedderResource(dg.ConfigurableResource):
    """The embedder `spec` names (unset → MIRAGE_EMBEDDER), Ollama's at `ollama_host` (unset →
    OLLAMA_HOST). One embedder per process and spec: loading a model is not free.

    In a run, `setup_for_execution` loads it in the background while Dagster finishes starting
    the run: a run of one small note is mostly start-up."""

    spec: str | None = None
    ollama_host: str | None = None
    _client: Embedder | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        # A spec miRAGe cannot use fails the step that asks for it, which records the reason.
        with contextlib.suppress(Exception):
            self._client = self.get_client()
        if context.dagster_run is not None:  # a run, not a sensor's evaluation
            _in_background("mirage-embedder-warm-up", self._warm_up)

    def _warm_up(self) -> None:
        embedder = self.get_client()
        embedder.count_tokens("warm up")
        if embedder.name.startswith("local:"):
            embedder.embed_passages(["warm up"])

    def get_client(self) -> Embedder:
        """This process's embedder for the spec (built on first use; weights load lazily)."""
        if self._client is not None:
            return self._client
        settings = Settings.from_env()
        spec, host = _value(self.spec), _value(self.ollama_host)
        spec = embedder_setting(spec) if spec else settings.embedder
        host = http_url_setting("OLLAMA_HOST", host) if host else settings.ollama_host
        with _embedders_lock:
            if (spec, host) not in _embedders:
                _embedders[spec, host] = create_embedder(spec, ollama_host=host)
            return _embedders[spec, host]


__all__ = [
    "DocumentsFolderResource",
    "EmbeddedPostgresResource",
    "EmbedderResource",
    "ExternalPostgresResource",
    "PostgresResource",
]
