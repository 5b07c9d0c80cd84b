"""What the index must hold for one document after a write: the asset checks' queries."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg

from mirage_pipeline.store.schema import EmbeddingIndex

CHECKS = {
    "vectors_match_index_dimension": "Every chunk has an embedding of the index's dimension.",
    "no_empty_chunk": "No chunk is empty or only whitespace.",
    "no_chunk_over_window": "No chunk is longer (in the model's tokens) than its window.",
    "chunk_count_matches": "The document row's chunk_count equals its chunks in the table.",
}


class ChecksFailed(Exception):
    """New rows that failed a check: their transaction is rolled back, the previous rows stay."""

    def __init__(self, results: dict[str, tuple[bool, dict[str, Any]]]) -> None:
        self.results = results
        failed = [
            f"{name} ({', '.join(f'{k} {v}' for k, v in figures.items())})"
            for name, (passed, figures) in results.items()
            if not passed
        ]
        super().__init__(
            "the new chunks failed the index checks: "
            + "; ".join(failed)
            + " — the previous version of the document stays searchable"
        )


def document_checks(
    conn: psycopg.Connection, index: EmbeddingIndex, document_id: uuid.UUID, window: int
) -> dict[str, tuple[bool, dict[str, Any]]]:
    """name → (passed, figures) for the document's chunks in `index`."""
    total, wrong_dims, empty, longest = conn.execute(
        "SELECT count(*),"
        " count(*) FILTER (WHERE vector_dims(embedding) <> %s),"
        " count(*) FILTER (WHERE btrim(content) = ''),"
        " coalesce(max((metadata ->> 'tokens')::int), 0)"
        " FROM chunks WHERE document_id = %s AND index_id = %s",
        (index.dimension, document_id, index.id),
    ).fetchone()
    (recorded,) = conn.execute(
        "SELECT chunk_count FROM documents WHERE id = %s", (document_id,)
    ).fetchone() or (None,)
    return {
        "vectors_match_index_dimension": (
            wrong_dims == 0,
            {"chunks": total, "wrong_dimension": wrong_dims, "dimension": index.dimension},
        ),
        "no_empty_chunk": (empty == 0, {"empty": empty}),
        "no_chunk_over_window": (longest <= window, {"max_tokens": longest, "window": window}),
        "chunk_count_matches": (
            recorded == total,
            {"documents.chunk_count": recorded if recorded is not None else -1, "chunks": total},
        ),
    }
