"""What the Dagster UI shows per document: its language, and its own check results."""

from __future__ import annotations

import dagster as dg
import pytest

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.store.checks import CHECKS
from tests.support.resources import indexing_resources

pytestmark = pytest.mark.integration

NOTES = {
    "demo/sun.md": "# Солнце\n\nСолнце — ближайшая к Земле звезда, вокруг которой обращаются "
    "планеты. Его свет идёт до Земли около восьми минут.\n",
    "demo/moon.txt": "The Moon is the only natural satellite of the Earth. It is about "
    "three hundred and eighty thousand kilometres away, and its light takes a second.\n",
}


def test_each_document_shows_its_language_and_its_checks(
    tmp_path, database_url, local_embedder
) -> None:
    docs = tmp_path / "documents"
    for key, text in NOTES.items():
        (docs / key).parent.mkdir(parents=True, exist_ok=True)
        (docs / key).write_text(text, encoding="utf-8")
    mirage = indexing_resources(
        documents_dir=str(docs), database_url=database_url, embedder=local_embedder.name
    )
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("documents", list(NOTES))
    io = ParquetIOManager(base_dir=str(tmp_path / "storage"))
    languages = {}
    for key in NOTES:
        result = dg.materialize(
            document_assets,
            partition_key=key,
            instance=instance,
            resources={**mirage, "io_manager": io},
        )
        assert result.success
        (parsed,) = result.asset_materializations_for_node("parsed_document")
        languages[key] = parsed.metadata["language"].value
    assert languages == {"demo/sun.md": "ru", "demo/moon.txt": "en"}

    for name in CHECKS:  # one result per document, each under its document's partition
        key = dg.AssetCheckKey(dg.AssetKey("chunk_index"), name)
        history = instance.event_log_storage.get_asset_check_execution_history(key, limit=10)
        assert sorted(r.partition for r in history) == sorted(NOTES), name
        assert all(r.status.value == "SUCCEEDED" for r in history)
