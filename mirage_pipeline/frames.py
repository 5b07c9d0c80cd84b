"""The pipeline's intermediate values as Polars frames (stored as Parquet between stages).

Each stage's output can be read back alone, so the Dagster UI can re-materialize one stage —
re-chunk without re-parsing, re-embed after a model change — from what is on disk.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import polars as pl

from mirage_pipeline.chunking import Chunk
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section


def _section_to_dict(section: Section) -> dict[str, Any]:
    return {
        "title": section.title,
        "level": section.level,
        "line_start": section.line_start,
        "page": section.page,
        "chunking": section.chunking,
        "blocks": [dataclasses.asdict(b) for b in section.blocks],
        "children": [_section_to_dict(c) for c in section.children],
    }


def _section_from_dict(data: dict[str, Any]) -> Section:
    return Section(
        title=data["title"],
        level=data["level"],
        line_start=data.get("line_start"),
        page=data.get("page"),
        chunking=data.get("chunking"),
        blocks=[Block(**b) for b in data["blocks"]],
        children=[_section_from_dict(c) for c in data["children"]],
    )


def document_to_frame(doc: ParsedDocument) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "format": [doc.format],
            "title": [doc.title],
            "metadata": [json.dumps(doc.metadata, ensure_ascii=False, default=str)],
            "warnings": [json.dumps(doc.warnings, ensure_ascii=False)],
            "pages": [doc.pages],
            "skipped": [doc.skipped],
            "tree": [json.dumps(_section_to_dict(doc.root), ensure_ascii=False)],
        },
        schema_overrides={"pages": pl.Int32, "skipped": pl.String},
    )


def document_from_frame(frame: pl.DataFrame) -> ParsedDocument:
    row = frame.row(0, named=True)
    return ParsedDocument(
        format=row["format"],
        title=row["title"],
        root=_section_from_dict(json.loads(row["tree"])),
        metadata=json.loads(row["metadata"]),
        warnings=json.loads(row["warnings"]),
        pages=row["pages"],
        skipped=row["skipped"],
    )


def chunks_to_frame(chunks: list[Chunk]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "position": [c.position for c in chunks],
            "content": [c.content for c in chunks],
            "embed_text": [c.embed_text for c in chunks],
            "structure": [json.dumps(c.structure, ensure_ascii=False) for c in chunks],
            "lang": [c.lang for c in chunks],
            "tokens": [c.tokens for c in chunks],
            "content_hash": [c.content_hash for c in chunks],
            "metadata": [json.dumps(c.metadata, ensure_ascii=False) for c in chunks],
            "lemmas": [c.lemmas for c in chunks],
            "parts": [list(c.parts) for c in chunks],
        },
        schema={
            "position": pl.Int32,
            "content": pl.String,
            "embed_text": pl.String,
            "structure": pl.String,
            "lang": pl.String,
            "tokens": pl.Int32,
            "content_hash": pl.String,
            "metadata": pl.String,
            "lemmas": pl.String,
            "parts": pl.List(pl.String),
        },
    )


def chunks_from_frame(frame: pl.DataFrame) -> list[Chunk]:
    return [
        Chunk(
            position=row["position"],
            content=row["content"],
            embed_text=row["embed_text"],
            structure=json.loads(row["structure"]),
            lang=row["lang"],
            tokens=row["tokens"],
            content_hash=row["content_hash"],
            metadata=json.loads(row["metadata"]),
            lemmas=row.get("lemmas") or "",
            parts=tuple(row.get("parts") or ()),
        )
        for row in frame.iter_rows(named=True)
    ]


def vectors_to_frame(vectors: np.ndarray) -> pl.DataFrame:
    dim = int(vectors.shape[1]) if vectors.ndim == 2 else 0
    return pl.DataFrame(
        {"embedding": vectors.astype(np.float32).tolist()},
        schema={"embedding": pl.Array(pl.Float32, dim) if dim else pl.List(pl.Float32)},
    )


def vectors_from_frame(frame: pl.DataFrame) -> np.ndarray:
    if frame.height == 0:
        return np.empty((0, 0), dtype=np.float32)
    return np.asarray(frame["embedding"].to_list(), dtype=np.float32)


def record_to_frame(record: Any) -> pl.DataFrame:
    """A small dataclass (RawFile) as a one-row frame; UUIDs as text."""
    data = {
        k: [str(v) if not isinstance(v, int | str) else v]
        for k, v in dataclasses.asdict(record).items()
    }
    return pl.DataFrame(data)


def record_from_frame(frame: pl.DataFrame, cls: type) -> Any:
    row = frame.row(0, named=True)
    hints = {f.name: f.type for f in dataclasses.fields(cls)}
    values = {}
    for name, value in row.items():
        if "UUID" in str(hints.get(name)):
            import uuid

            value = uuid.UUID(value)
        values[name] = value
    return cls(**values)
