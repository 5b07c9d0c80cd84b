"""Stage outputs as Parquet (through Polars) under $MIRAGE_HOME/storage, one file per asset
and document, so each stage can be re-materialized alone from the Dagster UI."""

from __future__ import annotations

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

    def _path(self, context: dg.OutputContext | dg.InputContext) -> Path:
        base = Path(self.base_dir) if self.base_dir else Settings.from_env().home / "storage"
        key = "/".join(context.asset_key.path)
        partition = (
            quote(context.asset_partition_key, safe="") if context.has_asset_partitions else "all"
        )
        return base / key / f"{partition}.parquet"

    def handle_output(self, context: dg.OutputContext, obj: Any) -> None:
        if obj is None:
            return
        if isinstance(obj, ParsedDocument):
            frame = frames.document_to_frame(obj)
        elif isinstance(obj, list):
            frame = frames.chunks_to_frame(obj)
        elif isinstance(obj, np.ndarray):
            frame = frames.vectors_to_frame(obj)
        else:
            frame = frames.record_to_frame(obj)
        path = self._path(context)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".parquet.tmp")
        frame.write_parquet(tmp)
        tmp.replace(path)  # readers never see half a file
        context.add_output_metadata({"path": str(path), "rows": frame.height})

    def load_input(self, context: dg.InputContext) -> Any:
        path = self._path(context)
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
