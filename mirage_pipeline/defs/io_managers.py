"""Stage outputs as Parquet (through Polars) under $MIRAGE_HOME/storage, one file per asset
and document, so each stage can be re-materialized alone from the Dagster UI.

A file is named by a hash of the document's partition key, not the key itself: any name a
filesystem accepts for the document (255 bytes of Cyrillic, say) must fit as a stage file name
too. The readable key is in the output's metadata.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dagster as dg
import numpy as np
import polars as pl

from mirage_pipeline import frames
from mirage_pipeline.parsing.model import ParsedDocument
from mirage_pipeline.settings import Settings


class ParquetIOManager(dg.ConfigurableIOManager):
    """`base_dir` unset → $MIRAGE_HOME/storage."""

    base_dir: str | None = None

    def _root(self) -> Path:
        return Path(self.base_dir) if self.base_dir else Settings.from_env().home / "storage"

    def _base(self, context: dg.OutputContext | dg.InputContext) -> Path:
        return self._root() / "/".join(context.asset_key.path)

    def _path(self, context: dg.OutputContext | dg.InputContext) -> Path:
        if not context.has_asset_partitions:
            return self._base(context) / "all.parquet"
        return self._base(context) / f"{storage_name(context.asset_partition_key)}.parquet"

    def _legacy_path(self, context: dg.InputContext) -> Path | None:
        """Where stages were written before names were hashed (read once, then rewritten)."""
        if not context.has_asset_partitions:
            return None
        name = f"{quote(context.asset_partition_key, safe='')}.parquet"
        return self._base(context) / name if len(name.encode()) <= 255 else None

    def handle_output(self, context: dg.OutputContext, obj: Any) -> None:
        if obj is None:
            return
        path = self._path(context)
        metadata: dict[str, Any] = {"path": str(path), "rows": write_frame(path, obj)}
        if context.has_asset_partitions:
            metadata["partition_key"] = context.asset_partition_key
        context.add_output_metadata(metadata)

    def write_stage(self, asset: str, partition_key: str, obj: Any) -> Path:
        """Write one document's stage output where `load_input` reads it (batched runs write
        their stages this way, so any stage can then be re-materialized alone)."""
        path = self._root() / asset / f"{storage_name(partition_key)}.parquet"
        write_frame(path, obj)
        return path

    def load_input(self, context: dg.InputContext) -> Any:
        path = self._path(context)
        legacy = self._legacy_path(context)
        if not path.exists() and legacy is not None and legacy.exists():
            path = legacy
        if not path.exists():
            raise FileNotFoundError(
                f"{path} is missing: materialize {'/'.join(context.asset_key.path)} for this "
                "document first"
            )
        frame = pl.read_parquet(path)
        kind = context.dagster_type.typing_type
        name = getattr(kind, "__name__", str(kind))
        if kind is ParsedDocument:
            return frames.document_from_frame(frame)
        if "list" in str(kind).lower() or name == "list":
            return frames.chunks_from_frame(frame)
        if kind is np.ndarray:
            return frames.vectors_from_frame(frame)
        return frames.record_from_frame(frame, kind)


def write_frame(path: Path, obj: Any) -> int:
    """Write a stage output as Parquet, atomically; returns its row count."""
    if isinstance(obj, ParsedDocument):
        frame = frames.document_to_frame(obj)
    elif isinstance(obj, list):
        frame = frames.chunks_to_frame(obj)
    elif isinstance(obj, np.ndarray):
        frame = frames.vectors_to_frame(obj)
    else:
        frame = frames.record_to_frame(obj)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".parquet.tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)  # readers never see half a file
    return frame.height


def storage_name(partition_key: str) -> str:
    """A bounded, filesystem-safe file name for a partition key (64 hex characters)."""
    return hashlib.sha256(partition_key.encode()).hexdigest()
