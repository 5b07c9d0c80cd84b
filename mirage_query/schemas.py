"""Request and response shapes of the HTTP API (msgspec, so validation errors read well)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from mirage_pipeline.names import PROJECT_NAME_PATTERN

Query = Annotated[str, msgspec.Meta(min_length=1, max_length=8000)]
Limit = Annotated[int, msgspec.Meta(ge=1, le=100)]
Threshold = Annotated[float, msgspec.Meta(ge=-1.0, le=1.0)]
Expand = Annotated[int, msgspec.Meta(ge=0, le=3)]
Mode = Literal["hybrid", "vector", "text"]
Names = Annotated[list[Annotated[str, msgspec.Meta(max_length=1000)]], msgspec.Meta(max_length=100)]
ProjectName = Annotated[str, msgspec.Meta(pattern=PROJECT_NAME_PATTERN, max_length=64)]


class Filters(msgspec.Struct, forbid_unknown_fields=True):
    """AND between keys, OR inside one list."""

    documents: Names | None = None  # document ids or filenames (paths in the project)
    file_types: Names | None = None  # documents.file_type: markdown, pdf, epub, fb2, text
    tags: Names | None = None  # chunks.metadata->'tags' (front matter)
    types: Names | None = None  # chunks.metadata->>'type' (front matter)

    def __post_init__(self) -> None:
        for field in self.__struct_fields__:
            if any("\x00" in value for value in getattr(self, field) or ()):
                raise ValueError(
                    f"filters.{field}: a value holds a NUL character, which no name has"
                )


class SearchRequest(msgspec.Struct, forbid_unknown_fields=True):
    query: Query
    limit: Limit = 10
    threshold: Threshold | None = None
    mode: Mode = "hybrid"
    filters: Filters | None = None
    expand: Expand = 0


class BatchQuery(msgspec.Struct, forbid_unknown_fields=True):
    """One query of a batch; a field left out takes the batch's value."""

    query: Query
    limit: Limit | None = None
    threshold: Threshold | None = None
    mode: Mode | None = None
    filters: Filters | None = None
    expand: Expand | None = None


class BatchRequest(msgspec.Struct, forbid_unknown_fields=True):
    queries: Annotated[list[BatchQuery], msgspec.Meta(min_length=1, max_length=8)]
    limit: Limit = 10
    threshold: Threshold | None = None
    mode: Mode = "hybrid"
    filters: Filters | None = None
    expand: Expand = 0


class DocumentRef(msgspec.Struct):
    id: str
    filename: str
    title: str | None = None


class Scores(msgspec.Struct):
    # cosine similarity to the query: the chunk's own or its nearest sentence window's (in a
    # glossed hybrid search, the higher of that and the similarity with the gloss: gloss.py)
    vector: float | None = None
    text: float | None = None  # ts_rank_cd of the full-text leg
    vector_rank: int | None = None  # 1-based rank in the vector candidates
    text_rank: int | None = None  # 1-based rank in the full-text candidates


class SearchResult(msgspec.Struct):
    chunk_id: int
    content: str
    score: float
    scores: Scores
    structure: dict[str, Any]
    highlights: list[str]
    document: DocumentRef
    context: bool = False  # a neighbour added by `expand`, not a hit itself
    context_for: int | None = None  # the hit's chunk_id


class UnionResult(SearchResult):
    queries: list[int] = msgspec.field(default_factory=list)


class BatchResponse(msgspec.Struct):
    results: list[list[SearchResult]]
    union: list[UnionResult]


class Health(msgspec.Struct):
    status: str


class ProjectCreate(msgspec.Struct, forbid_unknown_fields=True):
    name: ProjectName


class ProjectInfo(msgspec.Struct):
    name: str
    documents: int = 0
    chunks: int = 0
    ready: int = 0
    pending: int = 0
    errors: int = 0


class ProjectState(ProjectInfo, kw_only=True):
    """A project's counts and how far its index is behind its folder: files the pipeline has
    not picked up yet (`unseen`), files whose size is not the size their row was indexed at
    (`changed`), rows whose file is gone (`gone`), and how long ago the newest file was
    written (None: no file). An edit that keeps the size shows in none of the lists until the
    documents sensor marks it `pending` once it has settled."""

    unseen: list[str] = msgspec.field(default_factory=list)
    changed: list[str] = msgspec.field(default_factory=list)
    gone: list[str] = msgspec.field(default_factory=list)
    seconds_since_last_write: float | None = None


class Deleted(msgspec.Struct):
    deleted: bool
    name: str | None = None
    id: str | None = None


class DocumentInfo(msgspec.Struct):
    id: str
    filename: str
    file_type: str
    status: str
    error: str | None
    chunk_count: int
    size_bytes: int | None
    indexed_at: datetime | None
    updated_at: datetime | None
    title: str | None = None
    # what its parser warned about (text re-decoded from T2A, pages left out, no headings)
    warnings: list[str] = msgspec.field(default_factory=list)


class Accepted(msgspec.Struct):
    id: str
    filename: str
    status: str


class ReindexedDocument(msgspec.Struct):
    id: str
    filename: str
    status: str = "pending"


class ReindexRequested(msgspec.Struct):
    """A re-index request recorded; the documents sensor indexes them at its next tick."""

    request_id: int
    documents: list[ReindexedDocument]
    already_requested: bool = False  # an identical request was still open: none was added


class ChunkInfo(msgspec.Struct):
    chunk_id: int
    position: int
    content: str
    structure: dict[str, Any]
    metadata: dict[str, Any]
    lang: str


class ChunkPage(msgspec.Struct):
    total: int
    offset: int
    limit: int
    items: list[ChunkInfo]
