"""The work of each indexing stage of one document, as plain functions returning the stage's
value and the metadata the Dagster UI shows for it. The per-document assets (`assets.py`) and
the batched runs (`batch.py`) both call them, so a document indexes the same either way."""

from __future__ import annotations

import hashlib
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import dagster as dg
import numpy as np

from mirage_pipeline.chunk_parts import split_vectors, texts_to_embed
from mirage_pipeline.chunking import Chunk, ChunkingPolicy, chunk_document
from mirage_pipeline.defs.resources import DocumentsFolderResource, PostgresResource
from mirage_pipeline.documents_folder import read_inside, split_document_key
from mirage_pipeline.embedders import Embedder
from mirage_pipeline.embedders.base import batched
from mirage_pipeline.parsing import ParsedDocument, ParseError, file_type_of, load_policy
from mirage_pipeline.parsing import parse_document as parse_bytes
from mirage_pipeline.parsing.budgets import check_chunks, check_file_size
from mirage_pipeline.settings import Settings
from mirage_pipeline.store.cache import cache_model, cached_embeddings, store_embeddings
from mirage_pipeline.store.documents import start_document
from mirage_pipeline.store.embedder_turns import embedder_turn
from mirage_pipeline.store.swap import DocumentSwap

Metadata = dict[str, Any]


@dataclass(frozen=True)
class RawFile:
    project: str
    path: str
    location: str
    file_type: str
    sha256: str
    size: int
    project_id: UUID
    document_id: UUID


def read_file(documents: DocumentsFolderResource, project: str, path: str) -> bytes:
    """The file's bytes, read without following any symbolic link, within the file budget."""
    settings = documents.settings()
    limit = settings.budgets.file_bytes
    try:
        data = read_inside(settings.documents_dir, f"{project}/{path}", limit=limit)
    except (FileNotFoundError, NotADirectoryError):
        raise ParseError("the file disappeared before it could be read") from None
    except IsADirectoryError:
        raise ParseError("this is a folder, not a file") from None
    except PermissionError:
        raise ParseError("the file cannot be read (permission denied)") from None
    if len(data) > limit:
        check_file_size(len(data), settings.budgets)
    return data


def start_raw_file(
    documents: DocumentsFolderResource, postgres: PostgresResource, key: str
) -> tuple[RawFile, Metadata]:
    """Read the document's file and mark its row `indexing` under the file's content hash."""
    project, path = split_document_key(key)
    location = documents.root / project / path
    data = read_file(documents, project, path)
    digest = hashlib.sha256(data).hexdigest()
    with postgres.store_connection() as conn:
        project_id, document_id = start_document(
            conn,
            project=project,
            path=path,
            file_type=file_type_of(path),
            content_hash=digest,
            size_bytes=len(data),
        )
    raw = RawFile(
        project, path, str(location), file_type_of(path), digest, len(data), project_id, document_id
    )
    metadata = {
        "project": project,
        "path": path,
        "file_type": raw.file_type,
        "bytes": len(data),
        "sha256": digest,
        "document_id": str(document_id),
    }
    return raw, metadata


def parse_raw_file(
    documents: DocumentsFolderResource, raw: RawFile
) -> tuple[ParsedDocument, Metadata]:
    """The document's structure tree, from the same bytes `start_raw_file` hashed."""
    started = time.perf_counter()
    data = read_file(documents, raw.project, raw.path)
    if hashlib.sha256(data).hexdigest() != raw.sha256:
        raise RuntimeError("the file changed while it was being indexed; it will be re-read")
    settings = documents.settings()
    policy = load_policy(settings.documents_dir / raw.project)
    doc = parse_bytes(data, raw.path, policy, settings.budgets)
    toc = doc.toc()
    preview = "\n".join(f"{'  ' * (t['level'] - 1)}- {t['title']}" for t in toc[:60]) or "(none)"
    metadata = {
        "title": doc.title,
        "format": doc.format,
        "sections": len(toc),
        "pages": doc.pages or 0,
        "language": str(doc.metadata.get("language") or ""),
        "skipped": doc.skipped or "",
        "warnings": dg.MetadataValue.json(doc.warnings),
        "table_of_contents": dg.MetadataValue.md(preview),
        "seconds": round(time.perf_counter() - started, 3),
    }
    return doc, metadata


def chunk_parsed(
    documents: DocumentsFolderResource, embedder: Embedder, doc: ParsedDocument
) -> tuple[list[Chunk], Metadata]:
    """Chunks of one section each, sized in the embedder's tokens."""
    started = time.perf_counter()
    chunks = chunk_document(
        doc, embedder.count_tokens, ChunkingPolicy.for_window(embedder.max_tokens)
    )
    if not chunks and not doc.skipped:
        raise ParseError("no text to index: the document has no paragraphs")
    check_chunks(len(chunks), documents.settings().budgets)
    tokens = [c.tokens for c in chunks] or [0]
    metadata = {
        "chunks": len(chunks),
        "tokens_min": min(tokens),
        "tokens_median": statistics.median(tokens),
        "tokens_max": max(tokens),
        "window": embedder.max_tokens,
        "languages": ", ".join(sorted({c.lang for c in chunks})),
        "skipped": doc.skipped or "",
        "seconds": round(time.perf_counter() - started, 3),
    }
    return chunks, metadata


def text_hashes(chunks: Sequence[Chunk]) -> tuple[list[str], list[str]]:
    """The texts a document embeds (chunks, then windows) and their cache keys."""
    texts = texts_to_embed(chunks)
    return texts, [hashlib.sha256(t.encode()).hexdigest() for t in texts]


@dataclass
class Embedding:
    """Vectors by text hash, gathered from the cache and the embedder across documents."""

    known: dict[str, np.ndarray]
    cached: frozenset[str] = frozenset()  # the hashes the cache answered
    embedded: int = 0
    seconds: float = 0.0
    turns: int = 0


def embed_missing(
    postgres: PostgresResource,
    embedder: Embedder,
    texts: dict[str, str],
    *,
    on_batch: Callable[[Embedding], None] | None = None,
    keep: Callable[[list[str], np.ndarray], None] | None = None,
) -> Embedding:
    """Vectors for `texts` (hash → text): cached ones first, then the rest embedded one batch
    per turn at the shared embedder, each batch cached as it comes (a retried run resumes where
    it stopped). `on_batch(embedding)` is called once the cache has answered, then after each
    batch (batched runs write each document's rows as their vectors come in). `keep(hashes,
    vectors)` caches a batch instead of the default (at once, on the embedding connection): a
    batched run hands it to its writer thread, so the embedder never waits for the cache."""
    settings = Settings.from_env()  # the batch per turn and the turns at once
    with postgres.store_connection() as conn:
        conn.autocommit = True
        known = cached_embeddings(conn, cache_model(embedder), list(texts))
        result = Embedding(known, frozenset(known))
        todo = [h for h in texts if h not in result.known]
        if on_batch is not None:
            on_batch(result)
        for batch in batched(todo, settings.embed_batch):
            with embedder_turn(conn, settings.embed_concurrency):
                started = time.perf_counter()
                fresh = embedder.embed_passages([texts[h] for h in batch])
                result.seconds += time.perf_counter() - started
            if keep is None:
                store_embeddings(conn, cache_model(embedder), batch, fresh)
            else:
                keep(batch, fresh)
            result.known.update(zip(batch, fresh, strict=True))
            result.embedded += len(batch)
            result.turns += 1
            if on_batch is not None:
                on_batch(result)
    return result


def vectors_of(hashes: Sequence[str], known: dict[str, np.ndarray], dimension: int) -> np.ndarray:
    """The document's vectors in `texts_to_embed` order."""
    if not hashes:
        return np.empty((0, dimension), dtype=np.float32)
    return np.vstack([known[h] for h in hashes]).astype(np.float32, copy=False)


def embedding_metadata(
    embedder: Embedder, chunks: Sequence[Chunk], vectors: np.ndarray, embedded: int, **extra: Any
) -> Metadata:
    return {
        "model": embedder.name,
        "dimension": int(embedder.dimension),
        "vectors": int(vectors.shape[0]),
        "chunks": len(chunks),
        "windows": int(vectors.shape[0]) - len(chunks),
        "embedded": embedded,
        "cache_hits": int(vectors.shape[0]) - embedded,
        **extra,
    }


class IndexWrite:
    """One document's swap into the index (store/swap.py), begun before all of its vectors are
    in: `add` the chunks whose vectors arrived (their rows are written at once, while the
    embedder goes on), then `finish` (checks, commit) or `abort` (roll back). The connection is
    opened on the first `add`; everything happens on the caller's thread."""

    def __init__(
        self,
        postgres: PostgresResource,
        embedder: Embedder,
        raw: RawFile,
        doc: ParsedDocument,
        chunks: list[Chunk],
    ) -> None:
        self._postgres, self._embedder, self._raw = postgres, embedder, raw
        self._doc, self._chunks = doc, chunks
        self._stack = ExitStack()
        self._swap: DocumentSwap | None = None
        self.index = postgres.index_for(embedder)
        self.seconds = 0.0
        self.copies = 0  # pieces the new rows went in as (vectors arrive batch by batch)

    def add(
        self, which: Sequence[int], embeddings: np.ndarray, part_embeddings: np.ndarray
    ) -> None:
        started = time.perf_counter()
        if self._swap is None:
            conn = self._stack.enter_context(self._postgres.store_connection())
            self._swap = self._stack.enter_context(
                DocumentSwap(
                    conn,
                    index=self.index,
                    document_id=self._raw.document_id,
                    project_id=self._raw.project_id,
                    chunks=self._chunks,
                    metadata=_document_metadata(self._doc),
                    checked_window=self._embedder.max_tokens,  # a failed check rolls back
                )
            )
        if self._swap.add(which, embeddings, part_embeddings):
            self.copies += 1
        self.seconds += time.perf_counter() - started

    def finish(self) -> tuple[Metadata, dict[str, tuple[bool, Metadata]]]:
        """Commit (`ChecksFailed`: rolled back instead); the metadata and the checks' results."""
        started = time.perf_counter()
        if self._swap is None:  # a document without chunks
            self.add([], np.empty((0, self.index.dimension), np.float32), np.empty((0, 0)))
        swap = self._swap
        self._stack.close()
        self.seconds += time.perf_counter() - started
        written = swap.result
        index = self.index
        return {
            "chunks": written.total,
            "rows_kept": written.kept,
            "rows_moved": written.moved,
            "rows_inserted": written.inserted,
            "rows_deleted": written.deleted,
            "copies": self.copies,
            "document_id": str(self._raw.document_id),
            "model": index.model,
            "dimension": index.dimension,
            "index_id": index.id,
            "seconds": round(self.seconds, 3),
        }, written.checks

    def abort(self, exc: BaseException | None = None) -> None:
        """Roll back what was written (nothing is left open)."""
        error = exc or RuntimeError("the write was abandoned")
        self._stack.__exit__(type(error), error, error.__traceback__)


def _document_metadata(doc: ParsedDocument) -> Metadata:
    metadata: Metadata = {"title": doc.title, "format": doc.format, **doc.metadata}
    if doc.pages:
        metadata["pages"] = doc.pages
    if doc.skipped:
        metadata["skipped"] = doc.skipped
    if doc.warnings:  # what the parser could not read as it should: the CLI's status shows it
        metadata["warnings"] = list(doc.warnings)
    return metadata


def write_index(
    postgres: PostgresResource,
    embedder: Embedder,
    raw: RawFile,
    doc: ParsedDocument,
    chunks: list[Chunk],
    vectors: np.ndarray,
) -> tuple[Metadata, dict[str, tuple[bool, Metadata]]]:
    """Swap the document's chunks and vectors in, in one transaction that commits only if the
    checks of the table the query service reads pass (`ChecksFailed` otherwise: the previous
    rows stay); returns the metadata and the checks' results."""
    write = IndexWrite(postgres, embedder, raw, doc, chunks)
    chunk_vectors, part_vectors = split_vectors(chunks, vectors)
    try:
        write.add(range(len(chunks)), chunk_vectors, part_vectors)
    except BaseException as exc:
        write.abort(exc)
        raise
    return write.finish()
