"""`mirage reindex` through the query service and a real Dagster webserver (GraphQL)."""

from __future__ import annotations

import json
import re

import pytest

from mirage_pipeline.settings import Settings
from mirage_query.cli.client import Api
from mirage_query.cli.progress import wait_for_documents
from tests.integration.test_reindex_through_dagster import dagster  # noqa: F401 (fixture)
from tests.support.live_service import live_service
from tests.support.live_service import run_cli as run

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_reindex_prints_run_ids_and_the_run_indexes(
    dagster,  # noqa: F811
    database_url,
    local_embedder,
    tmp_path,
):
    dagster_url, docs = dagster
    settings = Settings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("secret",), documents_dir=docs, dagster_url=dagster_url
    )
    note = tmp_path / "bees.md"
    note.write_text("# Bees\n\n## Hive\n\nOpen the hive on a warm, windless afternoon.\n")
    with live_service(settings, local_embedder) as url:
        added = run(["documents", "add", "-p", "garden", str(note), "--json"], url)
        assert added.exit_code == 0, added.output
        (accepted,) = json.loads(added.stdout)

        one = run(["reindex", "-p", "garden", "--document", "bees.md"], url)
        assert one.exit_code == 0, one.output
        header, row = one.output.splitlines()[:2]
        assert header.split() == ["DOCUMENT", "RUN", "ID"]
        assert row.split()[0] == "garden/bees.md"
        assert re.fullmatch(r"[0-9a-f-]{36}", row.split()[1]), row
        assert "1 run launched" in one.output

        # wait through the same code path as `add --wait`
        (final,) = wait_for_documents(
            Api(url, "secret"), "garden", [accepted], timeout=240, quiet=True
        )
        assert final["status"] == "ready", final

        project = run(["reindex", "-p", "garden", "--json"], url)
        assert project.exit_code == 0, project.output
        runs = json.loads(project.stdout)["runs"]
        assert [(r["partition"], r["document_id"]) for r in runs] == [
            ("garden/bees.md", accepted["id"])
        ]
        assert runs[0]["run_id"]
