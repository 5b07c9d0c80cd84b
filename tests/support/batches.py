"""Running what the documents sensor requests, in process: its batched `index_batch` runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import dagster as dg

from mirage_pipeline.defs.batch import config_documents, index_batch
from mirage_pipeline.defs.io_managers import ParquetIOManager
from tests.support.resources import Resources


def documents_of(request: dg.RunRequest) -> list[str]:
    """The document keys one run request indexes."""
    if request.partition_key:
        return [request.partition_key]
    return config_documents(request.run_config)


def requested_keys(requests: Sequence[dg.RunRequest] | dg.SensorResult) -> list[str]:
    """Every document key the requests index, in request order."""
    if isinstance(requests, dg.SensorResult):
        requests = requests.run_requests or []
    return [key for request in requests for key in documents_of(request)]


def run_batch(
    instance: dg.DagsterInstance,
    mirage: Resources,
    request: dg.RunRequest,
    storage: Path | None = None,
) -> tuple[dg.ExecuteInProcessResult, dict[str, bool]]:
    """Execute one batched run request; returns the result and, per document, whether it was
    materialized (its `chunk_index` partition has a materialization from this run)."""
    io = ParquetIOManager(base_dir=str(storage)) if storage else ParquetIOManager()
    result = index_batch.execute_in_process(
        run_config=request.run_config,
        instance=instance,
        resources={**mirage, "io_manager": io},
        tags=request.tags,
        raise_on_error=False,
    )
    events = instance.all_logs(result.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
    indexed = {
        entry.dagster_event.partition
        for entry in events
        if entry.dagster_event.asset_key == dg.AssetKey("chunk_index")
    }
    return result, {key: key in indexed for key in documents_of(request)}


def run_all(
    instance: dg.DagsterInstance,
    mirage: Resources,
    requests: Sequence[dg.RunRequest],
    storage: Path | None = None,
) -> dict[str, bool]:
    """Execute every request; per document key, whether it was indexed."""
    outcome: dict[str, bool] = {}
    for request in requests:
        outcome.update(run_batch(instance, mirage, request, storage)[1])
    return outcome
