"""The index in PostgreSQL: schema migrations, one embedding index per model, document writes."""

from mirage_pipeline.store.schema import (
    EmbeddingIndex,
    IndexModelMismatch,
    apply_migrations,
    bind_embedding_index,
    prepare_database,
    read_embedding_indexes,
)

__all__ = [
    "EmbeddingIndex",
    "IndexModelMismatch",
    "apply_migrations",
    "bind_embedding_index",
    "prepare_database",
    "read_embedding_indexes",
]
