"""The indexing assets of one document: raw file → parsed tree → chunks → embeddings → index."""

import hashlib
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import dagster as dg
import numpy as np

from mirage_pipeline.chunking import Chunk, ChunkingPolicy, chunk_document
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import MirageResource
from mirage_pipeline.documents_folder import split_document_key
from mirage_pipeline.parsing import (
    ParsedDocument,
    ParseError,
    file_type_of,
    load_policy,
    parse_document,
)
from mirage_pipeline.store.documents import mark_document_error, replace_chunks, start_document


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


@contextmanager
def failures_recorded(mirage: MirageResource, key: str) -> Iterator[None]:
    """Any failure marks the document `error` with a reason a person can read, then re-raises."""
    try:
        yield
    except Exception as exc:
        project, path = split_document_key(key)
        reason = str(exc) or type(exc).__name__
        try:
            with mirage.connection() as conn:
                mark_document_error(
                    conn, project=project, path=path, file_type=file_type_of(path), message=reason
                )
        except Exception as db_exc:  # the original error matters more; keep it
            exc.add_note(f"could not record the error in the index: {db_exc}")
        if isinstance(exc, ParseError):
            raise dg.Failure(description=f"{path}: {reason}", allow_retries=False) from exc
        raise


def _read(location: str) -> bytes:
    try:
        return Path(location).read_bytes()
    except FileNotFoundError:
        raise ParseError("the file disappeared before it could be read") from None
    except IsADirectoryError:
        raise ParseError("this is a folder, not a file") from None
    except PermissionError:
        raise ParseError("the file cannot be read (permission denied)") from None


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"file"},
    description="The document's file in the documents folder: size, type and content hash.",
)
def raw_file(context: dg.AssetExecutionContext, mirage: MirageResource) -> dg.Output[RawFile]:
    key = context.partition_key
    project, path = split_document_key(key)
    location = mirage.settings().documents_dir / project / path
    with failures_recorded(mirage, key):
        data = _read(str(location))
        digest = hashlib.sha256(data).hexdigest()
        with mirage.connection() as conn:
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
    return dg.Output(
        raw,
        metadata={
            "project": project,
            "path": path,
            "file_type": raw.file_type,
            "bytes": len(data),
            "sha256": digest,
            "document_id": str(document_id),
        },
    )


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"python"},
    description="The document's structure tree: title, metadata, sections and blocks.",
)
def parsed_document(
    context: dg.AssetExecutionContext, mirage: MirageResource, raw_file: RawFile
) -> dg.Output[ParsedDocument]:
    started = time.perf_counter()
    with failures_recorded(mirage, context.partition_key):
        data = _read(raw_file.location)
        if hashlib.sha256(data).hexdigest() != raw_file.sha256:
            raise RuntimeError("the file changed while it was being indexed; it will be re-read")
        policy = load_policy(mirage.settings().documents_dir / raw_file.project)
        doc = parse_document(data, raw_file.path, policy)
    toc = doc.toc()
    preview = "\n".join(f"{'  ' * (t['level'] - 1)}- {t['title']}" for t in toc[:60]) or "(none)"
    return dg.Output(
        doc,
        metadata={
            "title": doc.title,
            "format": doc.format,
            "sections": len(toc),
            "pages": doc.pages or 0,
            "language": str(doc.metadata.get("language") or ""),
            "skipped": doc.skipped or "",
            "warnings": dg.MetadataValue.json(doc.warnings),
            "table_of_contents": dg.MetadataValue.md(preview),
            "seconds": round(time.perf_counter() - started, 3),
        },
    )


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"python"},
    description="Chunks of one section each, sized in the embedder's tokens, with their citation.",
)
def document_chunks(
    context: dg.AssetExecutionContext, mirage: MirageResource, parsed_document: ParsedDocument
) -> dg.Output[list[Chunk]]:
    started = time.perf_counter()
    with failures_recorded(mirage, context.partition_key):
        embedder = mirage.get_embedder()
        chunks = chunk_document(
            parsed_document, embedder.count_tokens, ChunkingPolicy.for_window(embedder.max_tokens)
        )
        if not chunks and not parsed_document.skipped:
            raise ParseError("no text to index: the document has no paragraphs")
    tokens = [c.tokens for c in chunks] or [0]
    languages = sorted({c.lang for c in chunks})
    return dg.Output(
        chunks,
        metadata={
            "chunks": len(chunks),
            "tokens_min": min(tokens),
            "tokens_median": statistics.median(tokens),
            "tokens_max": max(tokens),
            "window": embedder.max_tokens,
            "languages": ", ".join(languages),
            "skipped": parsed_document.skipped or "",
            "seconds": round(time.perf_counter() - started, 3),
        },
    )


@dg.asset(
    partitions_def=documents_partitions,
    group_name="embed",
    kinds={"numpy"},
    description="One vector per chunk from the configured embedder.",
)
def chunk_embeddings(
    context: dg.AssetExecutionContext, mirage: MirageResource, document_chunks: list[Chunk]
) -> dg.Output[np.ndarray]:
    started = time.perf_counter()
    with failures_recorded(mirage, context.partition_key):
        embedder = mirage.get_embedder()
        vectors = embedder.embed_passages([c.embed_text for c in document_chunks])
    return dg.Output(
        vectors,
        metadata={
            "model": embedder.name,
            "dimension": int(vectors.shape[1]),
            "vectors": int(vectors.shape[0]),
            "seconds": round(time.perf_counter() - started, 3),
        },
    )


@dg.asset(
    partitions_def=documents_partitions,
    group_name="index",
    kinds={"postgres"},
    description="The document's chunks and vectors in PostgreSQL, swapped in one transaction.",
)
def chunk_index(
    context: dg.AssetExecutionContext,
    mirage: MirageResource,
    raw_file: RawFile,
    parsed_document: ParsedDocument,
    document_chunks: list[Chunk],
    chunk_embeddings: np.ndarray,
) -> dg.MaterializeResult:
    started = time.perf_counter()
    with failures_recorded(mirage, context.partition_key):
        index = mirage.prepare_index()
        metadata = {
            "title": parsed_document.title,
            "format": parsed_document.format,
            **parsed_document.metadata,
        }
        if parsed_document.pages:
            metadata["pages"] = parsed_document.pages
        if parsed_document.skipped:
            metadata["skipped"] = parsed_document.skipped
        with mirage.connection() as conn:
            written = replace_chunks(
                conn,
                index=index,
                document_id=raw_file.document_id,
                project_id=raw_file.project_id,
                chunks=document_chunks,
                embeddings=chunk_embeddings,
                metadata=metadata,
            )
    return dg.MaterializeResult(
        metadata={
            "chunks": written,
            "document_id": str(raw_file.document_id),
            "model": index.model,
            "dimension": index.dimension,
            "index_id": index.id,
            "seconds": round(time.perf_counter() - started, 3),
        }
    )


document_assets = [raw_file, parsed_document, document_chunks, chunk_embeddings, chunk_index]
