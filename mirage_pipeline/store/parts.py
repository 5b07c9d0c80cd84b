"""Writes of chunk windows: the sentence windows of each chunk and their vectors
(`chunk_parts.py`), which the vector leg of search matches and maps back to their chunk. A
chunk too short for windows is its own one window (its chunk vector), so one index of windows
finds every chunk."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import psycopg
from pgvector import HalfVector

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_pipeline.store.vector_forms import stored_vectors


def write_parts(
    conn: psycopg.Connection,
    *,
    index: EmbeddingIndex,
    document_id: uuid.UUID,
    project_id: uuid.UUID,
    chunks: Sequence[Chunk],
    embeddings: np.ndarray,
    part_embeddings: np.ndarray | None,
) -> int:
    """Give every chunk row of the document its windows, inside the caller's transaction.

    A window depends only on its chunk's text, which a row never changes: rows that hold as
    many windows as their chunk has keep them; the others (new rows, rows written before
    windows existed or without window vectors) get theirs, replacing what they held. Without
    window vectors (`part_embeddings` None) every chunk is its own one window, so the vector
    leg still finds it. Returns how many windows were written."""
    if part_embeddings is None:
        part_embeddings = np.zeros((0, index.dimension), dtype=np.float32)
        chunks = [replace(c, parts=()) for c in chunks]
    offsets = np.cumsum([0, *(len(c.parts) for c in chunks)])
    if offsets[-1] != len(part_embeddings):
        raise ValueError(f"{len(part_embeddings)} window vectors for {offsets[-1]} windows")
    rows = conn.execute(
        "SELECT c.id, c.position, (SELECT count(*) FROM chunk_parts p WHERE p.chunk_id = c.id)"
        " FROM chunks c WHERE c.document_id = %s AND c.index_id = %s",
        (document_id, index.id),
    ).fetchall()
    expected = {c.position: max(len(c.parts), 1) for c in chunks}
    rewrite = {
        position: row_id
        for row_id, position, count in rows
        if count != expected.get(position, count)
    }
    if not rewrite:  # an unchanged re-index: no vector to convert, nothing to copy
        return 0
    conn.execute("DELETE FROM chunk_parts WHERE chunk_id = ANY(%s)", (list(rewrite.values()),))
    chosen = [i for i, c in enumerate(chunks) if c.position in rewrite]
    windows = [part_embeddings[offsets[i] : offsets[i + 1]] for i in chosen]
    return copy_windows(
        conn,
        index=index,
        project_id=project_id,
        row_ids=[rewrite[chunks[i].position] for i in chosen],
        chunks=[chunks[i] for i in chosen],
        embeddings=embeddings[chosen],
        part_embeddings=np.vstack(windows) if windows else part_embeddings[:0],
    )


def copy_windows(
    conn: psycopg.Connection,
    *,
    index: EmbeddingIndex,
    project_id: uuid.UUID,
    row_ids: Sequence[int],
    chunks: Sequence[Chunk],
    embeddings: np.ndarray,
    part_embeddings: np.ndarray | None,
) -> int:
    """COPY the window rows of the chunk rows `row_ids` (one per chunk of `chunks`, whose
    vectors are `embeddings`; `part_embeddings` their windows' in the same order, or None:
    each chunk is its own one window, as is a chunk too short for windows). Returns how many."""
    vectors, owners, languages = [], [], []
    offset = 0
    for row_id, chunk, whole in zip(row_ids, chunks, embeddings, strict=True):
        count = len(chunk.parts) if part_embeddings is not None else 0
        own = part_embeddings[offset : offset + count] if count else whole[None, :]
        offset += count
        vectors.append(own)
        owners.extend((row_id, part) for part in range(len(own)))
        languages.extend([chunk.lang] * len(own))
    if not owners:
        return 0
    stored = stored_vectors(index, np.vstack(vectors), languages)
    with conn.cursor().copy(
        "COPY chunk_parts (chunk_id, part, index_id, project_id, embedding)"
        " FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int8", "int2", "int2", "uuid", "halfvec"])
        for (row_id, part), vector in zip(owners, stored, strict=True):
            copy.write_row((row_id, part, index.id, project_id, HalfVector(vector)))
    return len(owners)
