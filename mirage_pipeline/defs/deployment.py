"""Which resources this deployment uses, chosen here and nowhere else.

- A database URL in the environment (a cluster's PostgreSQL, or the embedded server that
  `mirage up` started and passes on): `ExternalPostgresResource`; otherwise (say, `dagster dev`
  alone) the embedded server under $MIRAGE_HOME, attached to or started by the process.
- The embedder MIRAGE_EMBEDDER names (the bundled one by default), Ollama's at OLLAMA_HOST.

Values the environment gives are bound as `dg.EnvVar`: Dagster reads them when a run starts
and keeps them out of the UI (a database URL holds a password). A variable that is unset is
left unset, and the resource falls back to miRAGe's default.
"""

from __future__ import annotations

import dagster as dg

from mirage_pipeline.defs.resources import (
    DocumentsFolderResource,
    EmbeddedPostgresResource,
    EmbedderResource,
    ExternalPostgresResource,
    PostgresResource,
)
from mirage_pipeline.settings import Settings, variable_is_set


def _from_env(name: str) -> dg.EnvVar | None:
    return dg.EnvVar(name) if variable_is_set(name) else None


def pipeline_resources(settings: Settings | None = None) -> dict[str, dg.ConfigurableResource]:
    """The documents folder, the PostgreSQL and the embedder of this environment."""
    settings = settings or Settings.from_env()  # fails early, naming a bad variable
    postgres: PostgresResource
    if settings.database_url:
        postgres = ExternalPostgresResource(database_url=dg.EnvVar("MIRAGE_DATABASE_URL"))
    else:
        postgres = EmbeddedPostgresResource()
    return {
        "documents": DocumentsFolderResource(documents_dir=_from_env("MIRAGE_DOCUMENTS_DIR")),
        "postgres": postgres,
        "embedder": EmbedderResource(
            spec=_from_env("MIRAGE_EMBEDDER"), ollama_host=_from_env("OLLAMA_HOST")
        ),
    }
