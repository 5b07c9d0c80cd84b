"""Seeding the index through the pipeline's own store code (start_document + replace_chunks):
lemmas and sentence windows as the chunker makes them."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

from mirage_pipeline.chunk_parts import chunk_parts, split_vectors, texts_to_embed
from mirage_pipeline.chunking import Chunk
from mirage_pipeline.morphology import lemma_text
from mirage_pipeline.store import prepare_database
from mirage_pipeline.store.connections import connect
from mirage_pipeline.store.documents import start_document
from mirage_pipeline.store.embedding_index import EmbeddingIndex
from mirage_pipeline.store.swap import replace_chunks


@dataclass
class Passage:
    content: str
    section: str
    lang: str = "en"
    metadata: dict[str, Any] = field(default_factory=dict)


def write_document(
    url: str,
    embedder,
    project: str,
    path: str,
    passages: list[Passage],
    *,
    file_type: str = "markdown",
    title: str | None = None,
    index: EmbeddingIndex | None = None,
    warnings: list[str] | None = None,
    language: str | None = None,
) -> uuid.UUID:
    """One document whose chunks are `passages`, in order; returns the document id. With
    `index`, written into it as the database stands (not migrated first: a database as an
    older release left it); `language`: the document's, as a parser tells it."""
    title = title or path
    chunks = [
        Chunk(
            position=i,
            content=p.content,
            embed_text=f"{title} > {p.section}\n\n{p.content}",
            structure={"book": title, "section": p.section, "heading_path": [title, p.section]},
            lang=p.lang,
            tokens=len(p.content.split()),
            content_hash=hashlib.sha256(p.content.encode()).hexdigest(),
            metadata=dict(p.metadata),
            lemmas=lemma_text(p.content),
            parts=tuple(chunk_parts(p.content)),
        )
        for i, p in enumerate(passages)
    ]
    vectors, part_vectors = split_vectors(chunks, embedder.embed_passages(texts_to_embed(chunks)))
    if index is None:
        index = prepare_database(url, embedder.name, embedder.dimension)
    with connect(url) as conn:
        project_id, document_id = start_document(
            conn, project=project, path=path, file_type=file_type, content_hash="h", size_bytes=1
        )
        replace_chunks(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=chunks,
            embeddings=vectors,
            part_embeddings=part_vectors,
            metadata={
                "title": title,
                **({"warnings": warnings} if warnings else {}),
                **({"language": language} if language else {}),
            },
        )
    return document_id
