"""Resources: where the documents and the index are, and the embedder. Unset fields → MIRAGE_*."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg
import psycopg

from mirage_pipeline.embedded_postgres import start_embedded_postgres
from mirage_pipeline.embedders import Embedder, create_embedder
from mirage_pipeline.settings import Settings
from mirage_pipeline.store import EmbeddingIndex, apply_migrations, prepare_database
from mirage_pipeline.store.documents import connect

_lock = threading.Lock()
_embedders: dict[tuple[str, str], Embedder] = {}
_prepared: dict[tuple[str, str], EmbeddingIndex] = {}
_migrated: set[str] = set()


class MirageResource(dg.ConfigurableResource):
    """miRAGe's settings for the pipeline; each field left unset is read from its variable."""

    documents_dir: str | None = None
    database_url: str | None = None
    embedder: str | None = None
    ollama_host: str | None = None
    # A file is indexed once unchanged for this long (the sensor waits out the rest of the
    # window within its tick for a file saved a moment ago).
    settle_seconds: float = 1.0

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        """In a run, load the embedder and bind the index in the background while Dagster
        finishes starting the run: a run of one small note is mostly start-up."""
        if context.dagster_run is not None:
            threading.Thread(target=self._warm_up, name="mirage-warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        try:
            self.prepare_index()
            embedder = self.get_embedder()
            embedder.count_tokens("warm up")
            if embedder.name.startswith("local:"):
                embedder.embed_passages(["warm up"])
        except Exception:  # the step meets the same error and reports it
            pass

    def settings(self) -> Settings:
        base = Settings.from_env()
        changes: dict[str, object] = {}
        if self.documents_dir:
            from pathlib import Path

            changes["documents_dir"] = Path(self.documents_dir).resolve()
        if self.database_url:
            changes["database_url"] = self.database_url
        if self.embedder:
            changes["embedder"] = self.embedder
        if self.ollama_host:
            changes["ollama_host"] = self.ollama_host
        return base.with_overrides(**changes)

    def get_embedder(self) -> Embedder:
        """One embedder per process and spec (loading a model is not free)."""
        s = self.settings()
        key = (s.embedder, s.ollama_host)
        with _lock:
            if key not in _embedders:
                _embedders[key] = create_embedder(s.embedder, ollama_host=s.ollama_host)
            return _embedders[key]

    def database_url_or_embedded(self) -> str:
        s = self.settings()
        if s.database_url:
            return s.database_url
        # Outside `mirage up` (e.g. `dagster dev`): attach to, or start, the embedded server.
        return start_embedded_postgres(s.pgdata_dir, stop_at_exit=False).url

    def prepare_index(self) -> EmbeddingIndex:
        """Migrate the database and bind it to the embedder, once per process."""
        url = self.database_url_or_embedded()
        embedder = self.get_embedder()
        key = (url, embedder.name)
        with _lock:
            if key not in _prepared:
                _prepared[key] = prepare_database(url, embedder.name, embedder.dimension)
            return _prepared[key]

    @contextmanager
    def store_connection(self) -> Iterator[psycopg.Connection]:
        """A connection to the migrated index, without loading the embedder (for sensors)."""
        url = self.database_url_or_embedded()
        with _lock:
            if url not in _migrated:
                with psycopg.connect(url) as conn:  # (pgvector may not be created yet)
                    apply_migrations(conn)
                _migrated.add(url)
        with connect(url) as conn:
            yield conn

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        self.prepare_index()
        with connect(self.database_url_or_embedded()) as conn:
            yield conn
