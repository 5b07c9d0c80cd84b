"""The indexing assets of one document: raw file → parsed tree → chunks → embeddings → index."""

import hashlib
import statistics
import time
import warnings
from dataclasses import dataclass
from uuid import UUID

import dagster as dg
import numpy as np

from mirage_pipeline.chunk_parts import split_vectors, texts_to_embed
from mirage_pipeline.chunking import Chunk, ChunkingPolicy, chunk_document
from mirage_pipeline.defs.failures import RETRY_POLICY, failures_recorded
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import MirageResource
from mirage_pipeline.documents_folder import read_inside, split_document_key
from mirage_pipeline.embedders.base import batched
from mirage_pipeline.parsing import (
    ParsedDocument,
    ParseError,
    file_type_of,
    load_policy,
    parse_document,
)
from mirage_pipeline.parsing.budgets import check_chunks, check_file_size
from mirage_pipeline.store.cache import cached_embeddings, store_embeddings
from mirage_pipeline.store.checks import CHECKS, document_checks
from mirage_pipeline.store.documents import replace_chunks, start_document
from mirage_pipeline.store.embedder_turns import embedder_turn


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


def _check_specs() -> list[dg.AssetCheckSpec]:
    """One result per document: the UI shows each partition's checks. Partitioned checks are a
    preview feature in Dagster 1.13; its warning is said once here, not in every process log."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return [
            dg.AssetCheckSpec(
                name, asset="chunk_index", description=text, partitions_def=documents_partitions
            )
            for name, text in CHECKS.items()
        ]


def _read(mirage: MirageResource, project: str, path: str) -> bytes:
    """The file's bytes, read without following any symbolic link, within the file budget."""
    settings = mirage.settings()
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


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"file"},
    retry_policy=RETRY_POLICY,
    description="The document's file in the documents folder: size, type and content hash.",
)
def raw_file(context: dg.AssetExecutionContext, mirage: MirageResource) -> dg.Output[RawFile]:
    key = context.partition_key
    project, path = split_document_key(key)
    location = mirage.settings().documents_dir / project / path
    with failures_recorded(context, mirage):
        data = _read(mirage, project, path)
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
    with failures_recorded(context, mirage):
        data = _read(mirage, raw_file.project, raw_file.path)
        if hashlib.sha256(data).hexdigest() != raw_file.sha256:
            raise RuntimeError("the file changed while it was being indexed; it will be re-read")
        settings = mirage.settings()
        policy = load_policy(settings.documents_dir / raw_file.project)
        doc = parse_document(data, raw_file.path, policy, settings.budgets)
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
    with failures_recorded(context, mirage):
        embedder = mirage.get_embedder()
        chunks = chunk_document(
            parsed_document, embedder.count_tokens, ChunkingPolicy.for_window(embedder.max_tokens)
        )
        if not chunks and not parsed_document.skipped:
            raise ParseError("no text to index: the document has no paragraphs")
        check_chunks(len(chunks), mirage.settings().budgets)
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
    retry_policy=RETRY_POLICY,
    description="One vector per chunk and one per sentence window of it, from the configured"
    " embedder (chunks first, then the windows in chunk order), a bounded batch per turn at"
    " the shared embedder.",
)
def chunk_embeddings(
    context: dg.AssetExecutionContext, mirage: MirageResource, document_chunks: list[Chunk]
) -> dg.Output[np.ndarray]:
    started = time.perf_counter()
    with failures_recorded(context, mirage):
        embedder = mirage.get_embedder()
        texts = texts_to_embed(document_chunks)
        hashes = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        with mirage.store_connection() as conn:
            known = cached_embeddings(conn, embedder.name, hashes)
        todo: dict[str, str] = {}
        for text, digest in zip(texts, hashes, strict=True):
            if digest not in known:
                todo.setdefault(digest, text)
        embed_seconds, turns = _embed_in_turns(mirage, embedder, todo, known)
        vectors = (
            np.vstack([known[h] for h in hashes]).astype(np.float32, copy=False)
            if hashes
            else np.empty((0, embedder.dimension), dtype=np.float32)
        )
    return dg.Output(
        vectors,
        metadata={
            "model": embedder.name,
            "dimension": int(embedder.dimension),
            "vectors": int(vectors.shape[0]),
            "chunks": len(document_chunks),
            "windows": int(vectors.shape[0]) - len(document_chunks),
            "embedded": len(todo),
            "cache_hits": len(hashes) - sum(1 for h in hashes if h in todo),
            "embed_seconds": round(embed_seconds, 3),
            "turns": turns,
            "seconds": round(time.perf_counter() - started, 3),
        },
    )


def _embed_in_turns(
    mirage: MirageResource, embedder, todo: dict[str, str], known: dict[str, np.ndarray]
) -> tuple[float, int]:
    """Embed `todo` (hash → text) one batch per turn at the shared embedder, caching each
    batch as it comes (a retried run resumes where it stopped); returns (seconds, turns)."""
    settings = mirage.settings()
    hashes = list(todo)
    seconds = 0.0
    batches = batched(hashes, settings.embed_batch)
    with mirage.store_connection() as conn:
        conn.autocommit = True
        for batch in batches:
            with embedder_turn(conn, settings.embed_concurrency):
                started = time.perf_counter()
                fresh = embedder.embed_passages([todo[h] for h in batch])
                seconds += time.perf_counter() - started
            store_embeddings(conn, embedder.name, batch, fresh)
            known.update(zip(batch, fresh, strict=True))
    return seconds, len(batches)


@dg.asset(
    partitions_def=documents_partitions,
    group_name="index",
    kinds={"postgres"},
    retry_policy=RETRY_POLICY,
    check_specs=_check_specs(),
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
    with failures_recorded(context, mirage):
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
            vectors, part_vectors = split_vectors(document_chunks, chunk_embeddings)
            written = replace_chunks(
                conn,
                index=index,
                document_id=raw_file.document_id,
                project_id=raw_file.project_id,
                chunks=document_chunks,
                embeddings=vectors,
                part_embeddings=part_vectors,
                metadata=metadata,
            )
            window = mirage.get_embedder().max_tokens
            checks = document_checks(conn, index, raw_file.document_id, window)
    return dg.MaterializeResult(
        check_results=[
            dg.AssetCheckResult(
                check_name=name,
                passed=passed,
                metadata=figures,
                severity=dg.AssetCheckSeverity.ERROR,
            )
            for name, (passed, figures) in checks.items()
        ],
        metadata={
            "chunks": written.total,
            "rows_kept": written.kept,
            "rows_moved": written.moved,
            "rows_inserted": written.inserted,
            "rows_deleted": written.deleted,
            "document_id": str(raw_file.document_id),
            "model": index.model,
            "dimension": index.dimension,
            "index_id": index.id,
            "seconds": round(time.perf_counter() - started, 3),
        },
    )


document_assets = [raw_file, parsed_document, document_chunks, chunk_embeddings, chunk_index]
