"""The index in PostgreSQL: schema migrations, the embedding-model binding, document writes."""

from mirage_pipeline.store.schema import (
    EmbeddingIndex,
    IndexModelMismatch,
    apply_migrations,
    bind_embedding_index,
    prepare_database,
)

__all__ = [
    "EmbeddingIndex",
    "IndexModelMismatch",
    "apply_migrations",
    "bind_embedding_index",
    "prepare_database",
]
