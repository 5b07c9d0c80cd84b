"""The indexing assets of one document: raw file → parsed tree → chunks → embeddings → index.

Each stage's work is in `document_steps.py`; batched runs (`batch.py`) do the same work for
many documents in one step and report the same materializations per document."""

import time
import warnings

import dagster as dg
import numpy as np

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.defs.document_steps import (
    RawFile,
    chunk_parsed,
    embed_missing,
    embedding_metadata,
    parse_raw_file,
    start_raw_file,
    text_hashes,
    vectors_of,
    write_index,
)
from mirage_pipeline.defs.failures import RETRY_POLICY, failures_recorded
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import (
    DocumentsFolderResource,
    EmbedderResource,
    PostgresResource,
)
from mirage_pipeline.parsing import ParsedDocument
from mirage_pipeline.store.checks import CHECKS


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


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"file"},
    retry_policy=RETRY_POLICY,
    description="The document's file in the documents folder: size, type and content hash.",
)
def raw_file(
    context: dg.AssetExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
) -> dg.Output[RawFile]:
    with failures_recorded(context, documents, postgres):
        raw, metadata = start_raw_file(documents, postgres, context.partition_key)
    return dg.Output(raw, metadata=metadata)


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"python"},
    description="The document's structure tree: title, metadata, sections and blocks.",
)
def parsed_document(
    context: dg.AssetExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    raw_file: RawFile,
) -> dg.Output[ParsedDocument]:
    with failures_recorded(context, documents, postgres):
        doc, metadata = parse_raw_file(documents, raw_file)
    return dg.Output(doc, metadata=metadata)


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"python"},
    description="Chunks of one section each, sized in the embedder's tokens, with their citation.",
)
def document_chunks(
    context: dg.AssetExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    embedder: EmbedderResource,
    parsed_document: ParsedDocument,
) -> dg.Output[list[Chunk]]:
    with failures_recorded(context, documents, postgres):
        chunks, metadata = chunk_parsed(documents, embedder.get_client(), parsed_document)
    return dg.Output(chunks, metadata=metadata)


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
    context: dg.AssetExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    embedder: EmbedderResource,
    document_chunks: list[Chunk],
) -> dg.Output[np.ndarray]:
    started = time.perf_counter()
    with failures_recorded(context, documents, postgres):
        model = embedder.get_client()
        texts, hashes = text_hashes(document_chunks)
        embedding = embed_missing(postgres, model, dict(zip(hashes, texts, strict=True)))
        vectors = vectors_of(hashes, embedding.known, model.dimension)
    metadata = embedding_metadata(
        model,
        document_chunks,
        vectors,
        embedding.embedded,
        embed_seconds=round(embedding.seconds, 3),
        turns=embedding.turns,
        seconds=round(time.perf_counter() - started, 3),
    )
    return dg.Output(vectors, metadata=metadata)


def check_results(checks: dict[str, tuple[bool, dict]]) -> list[dg.AssetCheckResult]:
    return [
        dg.AssetCheckResult(
            check_name=name, passed=passed, metadata=figures, severity=dg.AssetCheckSeverity.ERROR
        )
        for name, (passed, figures) in checks.items()
    ]


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
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    embedder: EmbedderResource,
    raw_file: RawFile,
    parsed_document: ParsedDocument,
    document_chunks: list[Chunk],
    chunk_embeddings: np.ndarray,
) -> dg.MaterializeResult:
    with failures_recorded(context, documents, postgres):
        metadata, checks = write_index(
            postgres,
            embedder.get_client(),
            raw_file,
            parsed_document,
            document_chunks,
            chunk_embeddings,
        )
    return dg.MaterializeResult(check_results=check_results(checks), metadata=metadata)


document_assets = [raw_file, parsed_document, document_chunks, chunk_embeddings, chunk_index]
