"""The whole first path: files in a folder → sensor → materialized partitions → HTTP search."""

from __future__ import annotations

import os
import time
from pathlib import Path

import dagster as dg
import psycopg
import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.defs.sensors import documents_sensor
from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.batches import documents_of, requested_keys, run_all
from tests.support.resources import Resources, indexing_resources

pytestmark = pytest.mark.integration

GARDENING = """---
title: Gardening notes
tags: [garden]
---
# Gardening notes

## Tomatoes

Tomatoes need at least six hours of direct sunlight every day. Water them deeply twice a
week rather than a little every day, so that the roots grow down into the soil.

## Compost

A compost heap needs a balance of green material, such as grass clippings, and brown
material, such as dry leaves. Turn the heap every two weeks to let air in.
"""

SPACE = """# Космос

## Луна

Луна — единственный естественный спутник Земли. Расстояние до Луны составляет около
384 тысяч километров, свет проходит его чуть больше чем за секунду.

## Марс

Марс называют красной планетой из-за оксида железа на его поверхности. Сутки на Марсе
длятся примерно двадцать четыре часа и сорок минут.
"""


def run_sensor(instance: dg.DagsterInstance, mirage: Resources, cursor: str | None):
    context = dg.build_sensor_context(instance=instance, cursor=cursor, resources=mirage)
    result = documents_sensor(context)
    for request in result.dynamic_partitions_requests or []:
        if isinstance(request, dg.DeleteDynamicPartitionsRequest):
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)
        else:
            instance.add_dynamic_partitions(
                request.partitions_def_name, list(request.partition_keys)
            )
    return result


def age(root: Path, seconds: float = 30) -> None:
    """Make every file under `root` look settled (written `seconds` ago)."""
    then = time.time() - seconds
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (then, then))


def materialize_all(instance, mirage, run_requests) -> dict[str, bool]:
    """Run what the sensor requested (batched runs); per document, whether it was indexed."""
    return run_all(instance, mirage, run_requests)


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    root = tmp_path / "documents"
    (root / "demo" / "nested").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "demo" / "gardening.md").write_text(GARDENING, encoding="utf-8")
    (root / "demo" / "nested" / "space.md").write_text(SPACE, encoding="utf-8")
    (root / "demo" / "empty.md").write_bytes(b"")
    (root / "demo" / "table.xlsx").write_bytes(b"PK\x03\x04 not really")
    (root / "demo" / ".hidden.md").write_text("# hidden", encoding="utf-8")
    (root / "other" / "secret.md").write_text(
        "# Secret\n\nTomatoes are grown on the other project too.\n", encoding="utf-8"
    )
    age(root)
    return root


@pytest.fixture
def mirage(documents: Path, database_url: str) -> Resources:
    return indexing_resources(
        documents_dir=str(documents),
        database_url=database_url,
        embedder="local:multilingual-e5-small",
    )


async def test_dropped_files_become_searchable(documents, mirage, database_url, tmp_path):
    instance = dg.DagsterInstance.ephemeral()
    first = run_sensor(instance, mirage, cursor=None)

    keys = sorted(requested_keys(first))
    assert keys == [
        "demo/empty.md",
        "demo/gardening.md",
        "demo/nested/space.md",
        "demo/table.xlsx",
        "other/secret.md",
    ]
    assert sorted(instance.get_dynamic_partitions("documents")) == keys
    # one batched run per project, each with its own run key
    assert sorted(len(documents_of(r)) for r in first.run_requests) == [1, 4]
    assert len({r.run_key for r in first.run_requests}) == 2

    outcome = materialize_all(instance, mirage, first.run_requests)
    assert outcome["demo/gardening.md"] and outcome["demo/nested/space.md"]
    assert not outcome["demo/empty.md"] and not outcome["demo/table.xlsx"]

    with psycopg.connect(database_url) as conn:
        rows = dict(
            (path, (status, error, count))
            for path, status, error, count in conn.execute(
                "SELECT path, status, error_message, chunk_count FROM documents"
            )
        )
    assert rows["gardening.md"][0] == "ready" and rows["gardening.md"][2] >= 1
    assert rows["nested/space.md"][0] == "ready"
    assert rows["empty.md"][:2] == ("error", "empty file")
    assert (
        rows["table.xlsx"][0] == "error"
        and "unsupported file type '.xlsx'" in rows["table.xlsx"][1]
    )

    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path / "home")}).with_overrides(
        database_url=database_url, api_keys=("k",)
    )
    async with AsyncTestClient(app=create_app(settings)) as client:
        response = await client.post(
            "/api/v1/projects/demo/search",
            json={"query": "how much sun do tomato plants need", "limit": 5},
            headers={"X-API-Key": "k"},
        )
        assert response.status_code == 200, response.text
        hits = response.json()
        assert hits[0]["document"]["filename"] == "gardening.md"
        assert hits[0]["structure"]["heading_path"] == ["Gardening notes", "Tomatoes"]
        # the note's one `#` heading is its title, not a chapter to cite (chunking.py)
        assert hits[0]["structure"]["chapter"] == "Tomatoes"
        assert "six hours" in hits[0]["content"]
        assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
        # project isolation: the other project's tomato note never shows up here
        assert all(h["document"]["filename"] != "secret.md" for h in hits)

        response = await client.post(
            "/api/v1/projects/demo/search",
            json={"query": "сколько длятся сутки на красной планете", "limit": 3},
            headers={"X-API-Key": "k"},
        )
        top = response.json()[0]
        assert top["document"]["filename"] == "nested/space.md"
        assert "Марс" in top["structure"].get("sections", [top["structure"]["section"]])
        assert "красной планетой" in top["content"]

    # A second tick with the cursor asks for nothing; an edited file is asked for again.
    second = run_sensor(instance, mirage, cursor=first.cursor)
    assert second.run_requests == []
    edited = documents / "demo" / "gardening.md"
    edited.write_text(GARDENING.replace("six hours", "eight hours"), encoding="utf-8")
    age(edited.parent, seconds=10)  # settled, and another mtime than before
    third = run_sensor(instance, mirage, cursor=second.cursor)
    assert requested_keys(third) == ["demo/gardening.md"]
    assert materialize_all(instance, mirage, third.run_requests) == {"demo/gardening.md": True}
    with psycopg.connect(database_url) as conn:
        contents = [
            row[0]
            for row in conn.execute(
                "SELECT c.content FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE d.path = 'gardening.md'"
            )
        ]
    assert any("eight hours" in c for c in contents)
    assert not any("six hours" in c for c in contents)
