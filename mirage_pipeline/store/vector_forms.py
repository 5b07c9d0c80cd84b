"""The form an index stores its vectors in (`embedding_indexes.vector_form`): writes transform
passages to it, queries are transformed alike, and an index of raw vectors is converted in
place when its model gains a form (embedders/centering.py) — no text is embedded again."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import psycopg
from pgvector import Vector

from mirage_pipeline.embedders.centering import center_passages, offset_for
from mirage_pipeline.store.embedding_index import EmbeddingIndex


def stored_vectors(index: EmbeddingIndex, vectors: np.ndarray, languages: Sequence[str]):
    """`vectors` (one per passage, in `languages`) as the index stores them."""
    return center_passages(vectors, list(languages), index.model, index.vector_form)


def convert_raw_index(conn: psycopg.Connection, index: EmbeddingIndex, form: str) -> int:
    """Bring an index of raw vectors to `form`, inside the caller's transaction; returns the
    number of chunk rows converted."""
    converted = 0
    languages = [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT lang FROM chunks WHERE index_id = %s", (index.id,)
        ).fetchall()
    ]
    for language in languages:
        offset = offset_for(index.model, language)
        if offset is None:
            continue
        literal = Vector(offset).to_text()  # a text literal: no adapter needed on `conn`
        cur = conn.execute(
            "UPDATE chunks SET embedding = l2_normalize(embedding - %s::vector)"
            " WHERE index_id = %s AND lang = %s",
            (literal, index.id, language),
        )
        converted += cur.rowcount
        conn.execute(
            "UPDATE chunk_parts p SET embedding = l2_normalize(p.embedding - %s::vector::halfvec)"
            " FROM chunks c WHERE c.id = p.chunk_id AND p.index_id = %s AND c.lang = %s",
            (literal, index.id, language),
        )
    conn.execute("UPDATE embedding_indexes SET vector_form = %s WHERE id = %s", (form, index.id))
    return converted
