"""The atomic swap of a document's chunks and windows, written as their vectors arrive.

A search sees either all of a document's old rows or all of its new ones: the swap is one
transaction. `replace_chunks` writes a document whose vectors are all in. `DocumentSwap` opens
the same transaction before they are: the rows that go are deleted and the ones that stay moved
first, then each chunk's row and its windows' rows are copied in as soon as their vectors exist
(`add`), so PostgreSQL's upkeep of the HNSW and full-text indexes — seconds for a long book —
runs while the embedder works on the rest, instead of after it. The document turns `ready`, and
the checks run, when the swap ends; a failure anywhere rolls all of it back.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.store.checks import ChecksFailed, document_checks
from mirage_pipeline.store.parts import copy_windows, write_parts
from mirage_pipeline.store.schema import EmbeddingIndex
from mirage_pipeline.store.statistics import refresh_statistics
from mirage_pipeline.store.vector_forms import stored_vectors

_CHUNK_COLUMNS = (
    "index_id",
    "document_id",
    "project_id",
    "position",
    "content",
    "structure",
    "metadata",
    "content_hash",
    "lang",
    "lemmas",
    "embedding",
)
_CHUNK_TYPES = ["int2", "uuid", "uuid", "int4", "text", "jsonb", "jsonb", "text", "text", "text"]


@dataclass(frozen=True)
class ChunkWrite:
    """What a swap did to the document's rows."""

    kept: int
    moved: int
    inserted: int
    deleted: int
    checks: dict[str, tuple[bool, dict[str, Any]]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.kept + self.moved + self.inserted


@dataclass
class _WritePlan:
    delete: list[int] = field(default_factory=list)
    move: list[tuple[int, Chunk]] = field(default_factory=list)
    insert: list[int] = field(default_factory=list)  # indexes into the new chunks


class DocumentSwap:
    """One document's new chunks, swapped in by one transaction (a context manager).

    Entering reads the document's rows and matches them to the new chunks by text (see
    `_plan_write`): rows no chunk keeps are deleted, rows whose chunk moved are updated. `add`
    gives chunks their vectors; a new chunk's row and windows are written then. Leaving without
    an error writes what the kept rows still lack, marks the document `ready`, runs the checks
    (`checked_window`: with this token window; `ChecksFailed` rolls back) and commits.
    """

    def __init__(
        self,
        conn: psycopg.Connection,
        *,
        index: EmbeddingIndex,
        document_id: uuid.UUID,
        project_id: uuid.UUID,
        chunks: Sequence[Chunk],
        metadata: dict[str, Any],
        checked_window: int | None = None,
    ) -> None:
        self._conn, self._index = conn, index
        self._document_id, self._project_id = document_id, project_id
        self._chunks, self._metadata, self._window = list(chunks), metadata, checked_window
        self._transaction: psycopg.Transaction | None = None
        self._plan = _WritePlan()
        self._new: set[int] = set()  # chunks whose rows the swap inserts
        self._added: set[int] = set()
        self._windows: bool | None = None  # whether `add` brings window vectors
        # vectors of the chunks whose rows stay: their windows may be missing (write_parts)
        self._kept: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}
        self.result: ChunkWrite | None = None

    def __enter__(self) -> DocumentSwap:
        self._transaction = self._conn.transaction()
        self._transaction.__enter__()
        try:
            self._begin()
        except BaseException as exc:
            self._transaction.__exit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._transaction is not None
        if exc_type is None:
            try:
                self._finish()
            except BaseException as error:
                self._transaction.__exit__(type(error), error, error.__traceback__)
                raise
        return self._transaction.__exit__(exc_type, exc, tb)

    @property
    def waiting(self) -> int:
        """Chunks not given their vectors yet."""
        return len(self._chunks) - len(self._added)

    def _begin(self) -> None:
        conn = self._conn
        conn.execute("SET CONSTRAINTS chunks_document_id_index_id_position_key DEFERRED")
        rows = conn.execute(
            "SELECT id, position, content_hash, structure, metadata, lang, coalesce(lemmas, '')"
            " FROM chunks"
            " WHERE document_id = %s AND index_id = %s",
            (self._document_id, self._index.id),
        ).fetchall()
        plan = self._plan = _plan_write(rows, self._chunks)
        self._new = set(plan.insert)
        if plan.delete:
            conn.execute("DELETE FROM chunks WHERE id = ANY(%s)", (plan.delete,))
        if plan.move:
            with conn.cursor() as cur:
                cur.executemany(
                    "UPDATE chunks SET position = %s, structure = %s, metadata = %s, lang = %s,"
                    " lemmas = %s WHERE id = %s",
                    [
                        (
                            c.position,
                            Jsonb(c.structure),
                            Jsonb(_chunk_metadata(c)),
                            c.lang,
                            c.lemmas or None,
                            row_id,
                        )
                        for row_id, c in plan.move
                    ],
                )

    def add(
        self,
        which: Sequence[int],
        embeddings: np.ndarray,
        part_embeddings: np.ndarray | None = None,
    ) -> int:
        """Give the chunks `which` (indexes into the swap's chunks) their vectors: `embeddings`
        one per chunk, `part_embeddings` their windows' in the same order (None: no window
        vectors, each chunk is its own one window). Writes the new ones' rows; returns how many."""
        which = list(which)
        if len(embeddings) != len(which):
            raise ValueError(f"{len(which)} chunks but {len(embeddings)} embeddings")
        if len(embeddings) and np.shape(embeddings)[1] != self._index.dimension:
            raise ValueError(
                f"{np.shape(embeddings)[1]}-d embeddings for the {self._index.dimension}-d index"
                f" of {self._index.model}"
            )
        windows = part_embeddings is not None
        if self._windows is not None and windows != self._windows:
            raise ValueError("window vectors must come with every chunk or with none")
        self._windows = windows
        counts = [len(self._chunks[i].parts) if windows else 0 for i in which]
        offsets = np.cumsum([0, *counts])
        if windows and offsets[-1] != len(part_embeddings):
            raise ValueError(f"{len(part_embeddings)} window vectors for {offsets[-1]} windows")
        fresh: list[int] = []  # positions in `which` of new rows to write
        for k, i in enumerate(which):
            if i in self._added:
                raise ValueError(f"chunk {i} was given its vectors twice")
            self._added.add(i)
            own = part_embeddings[offsets[k] : offsets[k + 1]] if windows else None
            if i in self._new:
                fresh.append(k)
            else:
                self._kept[i] = (embeddings[k], own)
        if not fresh:
            return 0
        new = [which[k] for k in fresh]
        copy_windows(
            self._conn,
            index=self._index,
            project_id=self._project_id,
            row_ids=self._copy_chunks(new, embeddings[fresh]),
            chunks=[self._chunks[i] for i in new],
            embeddings=embeddings[fresh],
            part_embeddings=(
                np.vstack([part_embeddings[offsets[k] : offsets[k + 1]] for k in fresh])
                if windows
                else None
            ),
        )
        return len(new)

    def _copy_chunks(self, new: list[int], embeddings: np.ndarray) -> list[int]:
        """Copy the rows of the chunks `new`; their ids, in the same order."""
        chunks = [self._chunks[i] for i in new]
        stored = stored_vectors(self._index, embeddings, [c.lang for c in chunks])
        with self._conn.cursor().copy(
            f"COPY chunks ({', '.join(_CHUNK_COLUMNS)}) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types([*_CHUNK_TYPES, "vector"])
            for chunk, vector in zip(chunks, stored, strict=True):
                copy.write_row(
                    (
                        self._index.id,
                        self._document_id,
                        self._project_id,
                        chunk.position,
                        chunk.content,
                        Jsonb(chunk.structure),
                        Jsonb(_chunk_metadata(chunk)),
                        chunk.content_hash,
                        chunk.lang,
                        chunk.lemmas or None,
                        vector,
                    )
                )
        # every other row of the document already holds its final position
        by_position = dict(
            self._conn.execute(
                "SELECT position, id FROM chunks"
                " WHERE document_id = %s AND index_id = %s AND position = ANY(%s)",
                (self._document_id, self._index.id, [c.position for c in chunks]),
            ).fetchall()
        )
        return [by_position[c.position] for c in chunks]

    def _finish(self) -> None:
        if self.waiting:
            raise ValueError(f"{self.waiting} of {len(self._chunks)} chunks got no vectors")
        if self._kept:  # rows that stay get the windows they lack
            order = sorted(self._kept)
            windows = [self._kept[i][1] for i in order]
            write_parts(
                self._conn,
                index=self._index,
                document_id=self._document_id,
                project_id=self._project_id,
                chunks=[self._chunks[i] for i in order],
                embeddings=np.vstack([self._kept[i][0] for i in order]),
                part_embeddings=np.vstack(windows) if self._windows else None,
            )
        plan = self._plan
        # the full-text weights count this document's words as soon as it is `ready`
        refresh_statistics(self._conn, len(plan.insert) + len(plan.delete))
        self._conn.execute(
            "UPDATE documents SET status = 'ready', error_message = NULL, chunk_count = %s,"
            " metadata = %s, indexed_at = now(), updated_at = now() WHERE id = %s",
            (len(self._chunks), Jsonb(self._metadata), self._document_id),
        )
        checks = (
            document_checks(self._conn, self._index, self._document_id, self._window)
            if self._window is not None
            else {}
        )
        self.result = ChunkWrite(
            kept=len(self._chunks) - len(plan.move) - len(plan.insert),
            moved=len(plan.move),
            inserted=len(plan.insert),
            deleted=len(plan.delete),
            checks=checks,
        )
        if not all(passed for passed, _ in checks.values()):
            raise ChecksFailed(checks)  # leaves the transaction: rolled back


def replace_chunks(
    conn: psycopg.Connection,
    *,
    index: EmbeddingIndex,
    document_id: uuid.UUID,
    project_id: uuid.UUID,
    chunks: Sequence[Chunk],
    embeddings: np.ndarray,
    metadata: dict[str, Any],
    part_embeddings: np.ndarray | None = None,
    checked_window: int | None = None,
) -> ChunkWrite:
    """Make the document's chunks in `index` the given ones and mark it `ready`, in one
    transaction: a search sees either all of the old chunks or all of the new ones.

    A chunk whose text (content hash) the document already has keeps its row and its id: it is
    left alone when nothing about it changed, else moved to its new position and structure.
    Only new texts are inserted and only vanished ones deleted, so re-indexing an edited book
    rewrites a few rows, not all of them (and the HNSW and full-text indexes with them).
    `part_embeddings`: the vectors of the chunks' sentence windows (store.parts), if embedded.
    `checked_window`: run the checks of `store.checks` (with this token window) before the
    transaction commits; if one fails, raise `ChecksFailed` and roll back, so the rows search
    reads are never ones that failed a check. The results are on the returned `ChunkWrite`.
    """
    if len(chunks) != len(embeddings):
        raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
    swap = DocumentSwap(
        conn,
        index=index,
        document_id=document_id,
        project_id=project_id,
        chunks=chunks,
        metadata=metadata,
        checked_window=checked_window,
    )
    with swap:
        swap.add(range(len(chunks)), embeddings, part_embeddings)
    assert swap.result is not None
    return swap.result


def _plan_write(rows: list[tuple], chunks: Sequence[Chunk]) -> _WritePlan:
    """Match the document's rows to the new chunks by text: same place and structure → keep,
    elsewhere → move, no row with that text → insert; rows left over are deleted."""
    plan = _WritePlan()
    by_position = {row[1]: row for row in rows}
    used: set[int] = set()
    waiting: list[int] = []
    for i, chunk in enumerate(chunks):
        row = by_position.get(chunk.position)
        if (
            row is not None
            and row[2] == chunk.content_hash
            and row[3] == chunk.structure
            and row[4] == _chunk_metadata(chunk)
            and row[5] == chunk.lang
            and row[6] == chunk.lemmas
        ):
            used.add(row[0])
        else:
            waiting.append(i)
    # a row is reused for the same text in the same language (its vector is stored in the
    # form of its language: store/vector_forms.py)
    free: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        if row[0] not in used:
            free.setdefault((row[2], row[5]), []).append(row[0])
    for i in waiting:
        chunk = chunks[i]
        same_text = free.get((chunk.content_hash, chunk.lang))
        if same_text:
            row_id = same_text.pop()
            used.add(row_id)
            plan.move.append((row_id, chunk))
        else:
            plan.insert.append(i)
    plan.delete = [row[0] for row in rows if row[0] not in used]
    return plan


def _chunk_metadata(chunk: Chunk) -> dict[str, Any]:
    return {"tokens": chunk.tokens, **chunk.metadata}
