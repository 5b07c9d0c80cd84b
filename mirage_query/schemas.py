"""Request and response shapes of the HTTP API (msgspec, so validation errors read well)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

Query = Annotated[str, msgspec.Meta(min_length=1, max_length=8000)]
Limit = Annotated[int, msgspec.Meta(ge=1, le=100)]
Threshold = Annotated[float, msgspec.Meta(ge=-1.0, le=1.0)]


class SearchRequest(msgspec.Struct, forbid_unknown_fields=True):
    query: Query
    limit: Limit = 10
    threshold: Threshold | None = None


class DocumentRef(msgspec.Struct):
    id: str
    filename: str
    title: str | None = None


class SearchResult(msgspec.Struct):
    chunk_id: int
    content: str
    score: float
    structure: dict[str, Any]
    document: DocumentRef


class Health(msgspec.Struct):
    status: str
