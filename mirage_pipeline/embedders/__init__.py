"""Embedders behind one interface: `local:multilingual-e5-small` (bundled), `ollama:<model>`."""

from __future__ import annotations

from mirage_pipeline.embedders.base import Embedder, EmbedderError, EmbedderUnavailable
from mirage_pipeline.names import BUNDLED_EMBEDDER


def create_embedder(spec: str, *, ollama_host: str = "http://localhost:11434") -> Embedder:
    """Build the embedder a `MIRAGE_EMBEDDER` value names."""
    backend, _, model = spec.partition(":")
    if spec == BUNDLED_EMBEDDER:
        from mirage_pipeline.embedders.local import LocalE5Embedder

        return LocalE5Embedder()
    if backend == "ollama" and model:
        from mirage_pipeline.embedders.ollama import OllamaEmbedder

        return OllamaEmbedder(model, host=ollama_host)
    raise EmbedderError(f"unknown embedder {spec!r}")


__all__ = ["Embedder", "EmbedderError", "EmbedderUnavailable", "create_embedder"]
