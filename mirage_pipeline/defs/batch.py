"""Batched indexing runs: one run indexes many documents, each keeping its own truth.

A run of `index_document` costs seconds before any work (a process that imports Dagster, the
code location and the embedder), which is most of the time a small note takes. The documents
sensor therefore launches `index_batch` runs: one step that parses and chunks each of its
documents, embeds their texts in batches that span documents, and writes each document's rows
as their vectors come in, committing the document with its last chunk (batch_writes.py).
Per document, the step reports what the five assets of `index_document` would: a
materialization of each asset's partition with the same metadata, the stage outputs in the
same Parquet files (so any stage can still be re-materialized alone), and the checks of
`chunk_index`. A document that fails ends `error` with its reason and the others go on; the
run then fails, naming each failed document. A failure of the machine (database or embedder
unreachable) retries the step; documents already written are kept.
"""

import hashlib
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import dagster as dg
import numpy as np

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.defs.batch_writes import BatchWriter, Checks, ChunkCursor
from mirage_pipeline.defs.document_steps import (
    Embedding,
    IndexWrite,
    Metadata,
    RawFile,
    chunk_parsed,
    embed_missing,
    embedding_metadata,
    parse_raw_file,
    start_raw_file,
    text_hashes,
    vectors_of,
)
from mirage_pipeline.defs.failures import (
    FILE_GONE,
    RETRY_POLICY,
    TRANSIENT,
    cause_of_exception,
    final_cause,
    record_failure,
)
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.defs.resources import (
    DocumentsFolderResource,
    EmbedderResource,
    PostgresResource,
)
from mirage_pipeline.embedders import Embedder
from mirage_pipeline.names import BATCH_JOB, BATCH_OP, BATCH_TAG, MAX_RUNTIME_TAG, PROJECT_TAG
from mirage_pipeline.parsing import ParsedDocument
from mirage_pipeline.settings import Settings
from mirage_pipeline.store.cache import cache_model


class BatchConfig(dg.Config):
    documents: list[str]  # document keys, "<project>/<path>"


@dataclass
class _Document:
    key: str
    raw: RawFile
    doc: ParsedDocument
    chunks: list[Chunk]
    texts: list[str]
    hashes: list[str]
    cursor: ChunkCursor
    metadata: dict[str, Metadata] = field(default_factory=dict)  # asset → its metadata
    write: IndexWrite | None = None


@dataclass
class _Progress:
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # key → reason


@contextmanager
def _document_failures(
    context: dg.OpExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    key: str,
    progress: _Progress,
) -> Iterator[None]:
    """A document's own failure ends that document `error` and lets the batch go on; a failure
    of the machine (TRANSIENT) propagates: the step is retried."""
    try:
        yield
    except TRANSIENT:
        raise
    except Exception as exc:
        cause = cause_of_exception(exc)
        outcome = record_failure(documents, postgres, key, cause.message, exc)
        progress.failed[key] = FILE_GONE if outcome == "vanished" else cause.message
        context.log.error(f"{key}: {progress.failed[key]}")


def _prepare(
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    embedder: Embedder,
    stages: ParquetIOManager,
    key: str,
) -> _Document:
    raw, raw_meta = start_raw_file(documents, postgres, key)
    doc, doc_meta = parse_raw_file(documents, raw)
    chunks, chunk_meta = chunk_parsed(documents, embedder, doc)
    texts, hashes = text_hashes(chunks)
    item = _Document(key, raw, doc, chunks, texts, hashes, ChunkCursor(chunks, hashes))
    for asset, value, metadata in (
        ("raw_file", raw, raw_meta),
        ("parsed_document", doc, doc_meta),
        ("document_chunks", chunks, chunk_meta),
    ):
        item.metadata[asset] = {**metadata, "path": str(stages.write_stage(asset, key, value))}
    return item


def _vectors(
    embedder: Embedder, stages: ParquetIOManager, item: _Document, embedding: Embedding
) -> np.ndarray:
    """The document's vectors, once all are in; their stage file and metadata."""
    vectors: np.ndarray = vectors_of(item.hashes, embedding.known, embedder.dimension)
    path = stages.write_stage("chunk_embeddings", item.key, vectors)
    embedded = sum(1 for h in set(item.hashes) if h not in embedding.cached)
    item.metadata["chunk_embeddings"] = {
        **embedding_metadata(embedder, item.chunks, vectors, embedded),
        "path": str(path),
    }
    return vectors


def _report(context: dg.OpExecutionContext, item: _Document, checks: dict) -> None:
    """The document's materializations (one per asset) and check results, under its partition."""
    for asset, metadata in item.metadata.items():
        context.log_event(
            dg.AssetMaterialization(
                asset_key=asset,
                partition=item.key,
                metadata={**metadata, "partition_key": item.key},
            )
        )
    for name, (passed, figures) in checks.items():
        context.log_event(
            dg.AssetCheckEvaluation(
                asset_key=dg.AssetKey("chunk_index"),
                check_name=name,
                passed=passed,
                metadata=figures,
                severity=dg.AssetCheckSeverity.ERROR,
                partition=item.key,
            )
        )


def _in_order(hashes: list[str], texts: list[str], order: list[str]) -> list[tuple[str, str]]:
    by_hash = dict(zip(hashes, texts, strict=True))
    return [(h, by_hash[h]) for h in order]


def _hand_over(
    context: dg.OpExecutionContext,
    writer: BatchWriter,
    postgres: PostgresResource,
    embedder: Embedder,
    stages: ParquetIOManager,
    item: _Document,
    embedding: Embedding,
) -> Future | None:
    """Give the writer the document's chunks whose vectors are all in; once the last one is,
    write its embeddings' stage file and have the writer commit and report it. Returns the
    commit's future then."""
    item.cursor.advance(embedding.known)
    taken = item.cursor.take(embedding.known, embedder.dimension)
    if taken is not None:
        if item.write is None:
            item.write = IndexWrite(postgres, embedder, item.raw, item.doc, item.chunks)
        writer.add(item.write, *taken)
    if not item.cursor.complete:
        return None
    _vectors(embedder, stages, item, embedding)

    def report(metadata: Metadata, checks: Checks) -> None:
        item.metadata["chunk_index"] = metadata
        _report(context, item, checks)

    return writer.finish(item.write, report)


@dg.op(
    name=BATCH_OP,
    retry_policy=RETRY_POLICY,
    required_resource_keys={"documents", "postgres", "embedder", "io_manager"},
    description="Index each listed document: parse, chunk, embed (in batches across the"
    " documents) and write it; report each document's materializations and checks.",
)
def index_documents(context: dg.OpExecutionContext, config: BatchConfig) -> None:
    documents: DocumentsFolderResource = context.resources.documents
    postgres: PostgresResource = context.resources.postgres
    embedder_resource: EmbedderResource = context.resources.embedder
    stages: ParquetIOManager = context.resources.io_manager
    started = time.perf_counter()
    progress = _Progress()
    try:
        embedder = embedder_resource.get_client()
        prepared: list[_Document] = []
        for key in dict.fromkeys(config.documents):
            with _document_failures(context, documents, postgres, key, progress):
                prepared.append(_prepare(documents, postgres, embedder, stages, key))
        # the shortest documents first: a note dropped beside a book is searchable as soon
        # as its own texts are embedded, not after the book's
        prepared.sort(key=lambda item: len(item.texts))
        # each chunk, then its windows: a chunk's rows can be written once its own are in
        texts = {
            h: text
            for item in prepared
            for h, text in _in_order(item.hashes, item.texts, item.cursor.embedding_order())
        }
        waiting = list(prepared)
        committed: list[tuple[_Document, Future]] = []

        def harvest(wait: bool) -> None:
            for item, done in [c for c in committed if wait or c[1].done()]:
                committed.remove((item, done))
                with _document_failures(context, documents, postgres, item.key, progress):
                    done.result()
                    progress.done.append(item.key)

        writer = BatchWriter(postgres, cache_model(embedder))
        try:

            def write_ready(embedding: Embedding) -> None:
                for item in list(waiting):
                    with _document_failures(context, documents, postgres, item.key, progress):
                        try:
                            done = _hand_over(
                                context, writer, postgres, embedder, stages, item, embedding
                            )
                        except BaseException as exc:
                            waiting.remove(item)
                            if item.write is not None:
                                writer.abort(item.write, exc)
                            raise
                        if done is not None:
                            waiting.remove(item)
                            committed.append((item, done))
                harvest(wait=False)

            embedding = embed_missing(
                postgres, embedder, texts, on_batch=write_ready, keep=writer.cache
            )
        finally:
            writer.close()  # waits for what was handed over; rolls back what was left open
            harvest(wait=True)  # (documents committed before a failure stay `ready`)
    except Exception as exc:
        _give_up_or_retry(context, documents, postgres, config.documents, progress, exc)
        raise
    context.log.info(
        f"{len(progress.done)} of {len(config.documents)} document(s) indexed in"
        f" {time.perf_counter() - started:.1f} s; {embedding.embedded} text(s) embedded in"
        f" {embedding.turns} turn(s) ({embedding.seconds:.1f} s)"
    )
    if progress.failed:
        lines = [f"{k}: {reason}" for k, reason in progress.failed.items()]
        raise dg.Failure(
            description=f"{len(progress.failed)} of {len(config.documents)} document(s) failed: "
            + "; ".join(lines[:20]),
            allow_retries=False,
        )


def _give_up_or_retry(
    context: dg.OpExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    keys: list[str],
    progress: _Progress,
    exc: Exception,
) -> None:
    """A failure of the machine is retried (the step raises again); once retries are spent, or
    for anything else, every document not yet done ends `error` with the cause."""
    cause = final_cause(context, exc)
    if cause is None:
        return
    for key in keys:
        if key not in progress.done and key not in progress.failed:
            record_failure(documents, postgres, key, cause.message, exc)
    raise dg.Failure(description=cause.message, allow_retries=False) from exc


@dg.job(
    name=BATCH_JOB,
    executor_def=dg.in_process_executor,
    tags={MAX_RUNTIME_TAG: str(Settings.from_env().max_run_seconds)},
    description="Index many documents in one run (what the documents sensor launches); each"
    " document keeps its own materializations, checks and status.",
)
def index_batch() -> None:
    index_documents()


def batch_documents(run: dg.DagsterRun) -> list[str]:
    """The document keys a batched run indexes (from its config)."""
    return config_documents(run.run_config)


def config_documents(run_config: Mapping[str, Any] | None) -> list[str]:
    """The document keys a run config of `index_batch` lists (none for another job's)."""
    ops = (run_config or {}).get("ops", {})
    return list(ops.get(BATCH_OP, {}).get("config", {}).get("documents", []))


@dataclass(frozen=True)
class Wanted:
    """A document the sensor wants indexed, and why (`token` makes the request's run key)."""

    key: str
    token: str
    size: int = 0
    tags: dict[str, str] = field(default_factory=dict)


def batch_requests(wanted: list[Wanted], settings: Settings) -> list[dg.RunRequest]:
    """`index_batch` runs for `wanted`: per project, at most `batch_documents` documents and
    `batch_bytes` of files each (a bigger file runs alone), split evenly."""
    by_project: dict[str, list[Wanted]] = {}
    for item in wanted:
        by_project.setdefault(item.key.partition("/")[0], []).append(item)
    requests = []
    for project, items in by_project.items():
        for group in _groups(items, settings.batch_documents, settings.batch_bytes):
            tags = {PROJECT_TAG: project, BATCH_TAG: str(len(group))}
            for item in group:
                tags.update(item.tags)
            token = hashlib.sha256("\n".join(i.token for i in group).encode()).hexdigest()
            requests.append(
                dg.RunRequest(
                    job_name=BATCH_JOB,
                    run_key=f"batch-{token[:32]}",
                    run_config={
                        "ops": {BATCH_OP: {"config": {"documents": [i.key for i in group]}}}
                    },
                    tags=tags,
                )
            )
    return requests


def _groups(items: list[Wanted], most: int, budget: int) -> list[list[Wanted]]:
    """Consecutive groups within both limits, of even sizes."""
    groups: list[list[Wanted]] = []
    current: list[Wanted] = []
    size = 0
    for item in items:
        if current and (len(current) >= most or size + item.size > budget):
            groups.append(current)
            current, size = [], 0
        current.append(item)
        size += item.size
    if current:
        groups.append(current)
    if len(groups) > 1:  # the same number of runs, evened out: 101 notes → 34, 34, 33
        per = -(-len(items) // len(groups))
        even = [items[i : i + per] for i in range(0, len(items), per)]
        if len(even) == len(groups) and all(sum(i.size for i in g) <= budget for g in even):
            return even
    return groups
