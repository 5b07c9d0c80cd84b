"""Every format through the real Dagster assets: PDF pages, FB2 sections, a policy skip, and a
broken file that fails with its reason while the others become ready."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import psycopg
import pymupdf
import pytest

from tests.integration.test_pipeline_to_search import age, materialize_all, run_sensor
from tests.support.resources import indexing_resources
from tests.unit.test_parsers import _fb2

pytestmark = pytest.mark.integration

PATTERN = """---
type: pattern
tags: [chunking]
---
# Split by headings

## Problem

Fixed windows cut thoughts in half.

## Steps

1. Parse the headings.
"""


def _pdf() -> bytes:
    doc = pymupdf.open()
    for number, (heading, body) in enumerate(
        [
            ("Chapter 1. Soil", "Tomatoes like loose soil rich in compost and a little sand."),
            ("Chapter 2. Water", "Water the beds deeply twice a week rather than a little daily."),
        ],
        start=1,
    ):
        page = doc.new_page(width=420, height=600)
        page.insert_text((40, 60), heading, fontsize=16)
        page.insert_text((40, 100), body, fontsize=10)
        page.insert_text((200, 580), str(number), fontsize=8)
    doc.set_toc([[1, "Chapter 1. Soil", 1], [1, "Chapter 2. Water", 2]])
    return doc.tobytes()


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    project = tmp_path / "documents" / "garden"
    project.mkdir(parents=True)
    (project / "guide.pdf").write_bytes(_pdf())
    (project / "stories.fb2").write_bytes(_fb2("windows-1251"))
    (project / "scan.pdf").write_bytes(b"%PDF-1.4 broken")
    plain = pymupdf.open()
    plain.new_page().insert_text((40, 60), "Sow beans after the last frost.", fontsize=10)
    (project / "plain.pdf").write_bytes(plain.tobytes())
    (project / "notes.txt").write_text("Mulch keeps the soil moist.\n\nPrune in spring.\n")
    kb = tmp_path / "documents" / "kb"
    kb.mkdir()
    (kb / ".mirage.yaml").write_text("indexing:\n  markdown:\n    preset: rag-indexing-v0.1\n")
    (kb / "pattern.md").write_text(PATTERN, encoding="utf-8")
    (kb / "story.md").write_text("---\ntype: story-node\ntags: [x]\n---\n# S\n\nText.\n")
    age(tmp_path / "documents")
    return tmp_path / "documents"


def test_formats_through_the_pipeline(documents: Path, database_url: str) -> None:
    mirage = indexing_resources(
        documents_dir=str(documents),
        database_url=database_url,
        embedder="local:multilingual-e5-small",
    )
    instance = dg.DagsterInstance.ephemeral()
    requests = run_sensor(instance, mirage, cursor=None).run_requests
    outcome = materialize_all(instance, mirage, requests)
    assert not outcome["garden/scan.pdf"]
    assert all(ok for key, ok in outcome.items() if key != "garden/scan.pdf")
    with psycopg.connect(database_url) as conn:
        docs = {
            path: (status, error, count, meta)
            for path, status, error, count, meta in conn.execute(
                "SELECT path, status, error_message, chunk_count, metadata FROM documents"
            )
        }
        structures = {
            path: [
                s
                for (s,) in conn.execute(
                    "SELECT c.structure FROM chunks c JOIN documents d ON d.id = c.document_id"
                    " WHERE d.path = %s ORDER BY c.position",
                    (path,),
                )
            ]
            for path in docs
        }
        tags = conn.execute(
            "SELECT DISTINCT c.metadata -> 'tags', c.metadata ->> 'type' FROM chunks c"
            " JOIN documents d ON d.id = c.document_id WHERE d.path = 'pattern.md'"
        ).fetchall()
    assert docs["scan.pdf"][0] == "error" and "corrupt PDF" in docs["scan.pdf"][1]
    assert docs["guide.pdf"][:2] == ("ready", None) and docs["guide.pdf"][3]["pages"] == 2
    assert "warnings" not in docs["guide.pdf"][3]
    assert docs["plain.pdf"][0] == "ready"  # its parser's warnings kept for `documents status`
    assert docs["plain.pdf"][3]["warnings"] == [
        "no outline and no headings found: the document is one section"
    ]
    assert [(s["chapter"], s["page"]) for s in structures["guide.pdf"]] == [
        ("Chapter 1. Soil", 1),
        ("Chapter 2. Water", 2),
    ]
    assert {s["chapter"] for s in structures["stories.fb2"]} >= {"Толстый и тонкий", "Хамелеон"}
    assert structures["notes.txt"][0]["line_start"] == 1
    assert docs["story.md"][0] == "ready" and docs["story.md"][2] == 0
    assert "story-node" in docs["story.md"][3]["skipped"]
    assert [s["section"] for s in structures["pattern.md"]] == ["Problem", "Steps"]
    assert tags == [(["chunking"], "pattern")]
