"""The pipeline's resources for a test: its documents folder, its database, its embedder."""

from __future__ import annotations

import dagster as dg

from mirage_pipeline.defs.resources import (
    DocumentsFolderResource,
    EmbedderResource,
    ExternalPostgresResource,
)

Resources = dict[str, dg.ConfigurableResource]


def indexing_resources(
    *,
    documents_dir: str,
    database_url: str,
    embedder: str | None = None,
    ollama_host: str | None = None,
    settle_seconds: float | None = None,
) -> Resources:
    """`documents`, `postgres` and `embedder`, as `definitions.py` binds them in a deployment
    (the embedder left unset is MIRAGE_EMBEDDER's, by default the bundled one)."""
    folder = DocumentsFolderResource(documents_dir=documents_dir)
    if settle_seconds is not None:
        folder = DocumentsFolderResource(documents_dir=documents_dir, settle_seconds=settle_seconds)
    return {
        "documents": folder,
        "postgres": ExternalPostgresResource(database_url=database_url),
        "embedder": EmbedderResource(spec=embedder, ollama_host=ollama_host),
    }
