"""The embedding cache: vectors by (model, hash of the text as embedded).

An embedder whose vectors changed while its name did not (the bundled model's engine: see
`embedders/e5_onnx.py`) carries a `revision`; the cache files its vectors under
`name@revision` (`cache_model`), so a re-index embeds again instead of reading the old ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import psycopg

from mirage_pipeline.embedders.base import Embedder, revision_of


def cache_model(embedder: Embedder) -> str:
    """The key the cache files an embedder's vectors under: its name, and its revision if any."""
    revision = revision_of(embedder)
    return f"{embedder.name}@{revision}" if revision else embedder.name


def cached_embeddings(
    conn: psycopg.Connection, model: str, hashes: Sequence[str]
) -> dict[str, np.ndarray]:
    """The cached vector of each hash that has one (the connection has pgvector registered)."""
    if not hashes:
        return {}
    rows = conn.execute(
        "SELECT text_hash, embedding FROM embedding_cache WHERE model = %s AND text_hash = ANY(%s)",
        (model, list(set(hashes))),
        binary=True,  # vectors as floats, not as text to parse
    ).fetchall()
    return {
        h: np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float32)
        for h, v in rows
    }


def store_embeddings(
    conn: psycopg.Connection, model: str, hashes: Sequence[str], vectors: np.ndarray
) -> int:
    """Add vectors to the cache (existing entries are kept); returns how many rows were new."""
    if not len(hashes):
        return 0
    with conn.transaction():
        conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS embedding_cache_in"
            " (text_hash text, embedding vector) ON COMMIT DELETE ROWS"
        )
        with conn.cursor().copy(
            "COPY embedding_cache_in (text_hash, embedding) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["text", "vector"])
            for h, v in zip(hashes, vectors, strict=True):
                copy.write_row((h, v))
        cur = conn.execute(
            "INSERT INTO embedding_cache (model, text_hash, embedding)"
            " SELECT DISTINCT ON (text_hash) %s, text_hash, embedding FROM embedding_cache_in"
            " ON CONFLICT DO NOTHING",
            (model,),
        )
        return cur.rowcount
