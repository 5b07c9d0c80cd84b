"""One writer: the pipeline's store functions make every change the API causes, the query service
holds no SQL that writes, and it refuses — never migrates — a database behind its schema."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import psycopg
import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.store import apply_migrations
from mirage_pipeline.store.connections import connect
from mirage_pipeline.store.documents import (
    delete_document,
    delete_project,
    mark_document_pending,
)
from mirage_pipeline.store.reindex import open_requests, request_reindex
from mirage_pipeline.store.schema import (
    MIGRATE_COMMAND,
    SchemaBehind,
    expected_schema_version,
    schema_version,
)
from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
QUERY_PACKAGE = Path(__file__).resolve().parents[2] / "mirage_query"
WRITES = re.compile(
    r"\b(INSERT\s+INTO|UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|EXTENSION)"
    r"|ALTER\s+TABLE|DROP\s+(TABLE|INDEX)|TRUNCATE)\b",
    re.IGNORECASE,
)


def test_the_query_service_holds_no_sql_that_writes():
    found = []
    for path in QUERY_PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and WRITES.search(text):
                found.append(f"{path.relative_to(QUERY_PACKAGE)}:{node.lineno}")
    assert found == []
    assert WRITES.search("UPDATE documents d SET status = 'x'")  # the pattern itself works


async def refusal(url: str, local_embedder, tmp_path: Path) -> SchemaBehind:
    """Why the service would not start on `url` (the lifespan wraps it in exception groups)."""
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=url, api_keys=("k",)
    )
    try:
        async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)):
            pass
    except BaseException as exc:
        found: list[BaseException] = [exc]
        while found:
            error = found.pop()
            if isinstance(error, SchemaBehind):
                return error
            found += [*getattr(error, "exceptions", ()), *filter(None, [error.__cause__])]
        raise
    raise AssertionError("the service started")


async def test_the_service_refuses_a_database_without_the_schema_and_leaves_it(
    empty_database_url, local_embedder, tmp_path
):
    message = str(await refusal(empty_database_url, local_embedder, tmp_path))
    assert "has no miRAGe schema" in message and MIGRATE_COMMAND in message
    assert f"needs version {expected_schema_version()}" in message
    with psycopg.connect(empty_database_url) as conn:
        assert schema_version(conn) == 0  # not migrated behind anyone's back


async def test_the_service_refuses_an_older_schema(empty_database_url, local_embedder, tmp_path):
    newest = expected_schema_version()
    with psycopg.connect(empty_database_url) as conn:
        apply_migrations(conn)
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (newest,))
        conn.commit()
    refused = await refusal(empty_database_url, local_embedder, tmp_path)
    assert f"has schema version {newest - 1}" in str(refused)
    with psycopg.connect(empty_database_url) as conn:
        assert schema_version(conn) == newest - 1


def test_an_upload_marks_pending_with_its_size_and_the_sensor_keeps_it(database_url):
    with connect(database_url) as conn:
        first = mark_document_pending(
            conn, project="p", path="a.md", file_type="markdown", size_bytes=42
        )
        again = mark_document_pending(conn, project="p", path="a.md", file_type="markdown")
        row = conn.execute("SELECT status, size_bytes FROM documents WHERE id = %s", (first,))
        assert first == again and row.fetchone() == ("pending", 42)


def test_deleting_a_project_or_a_document_leaves_no_chunk(database_url, local_embedder):
    a = write_document(database_url, local_embedder, "p", "a.md", [Passage("Alpha.", "A")])
    write_document(database_url, local_embedder, "p", "b.md", [Passage("Beta.", "B")])
    write_document(database_url, local_embedder, "q", "c.md", [Passage("Gamma.", "C")])
    with connect(database_url) as conn:

        def count(sql: str) -> int:
            return conn.execute(sql).fetchone()[0]

        assert delete_document(conn, project="p", path="a.md") == 1
        assert count(f"SELECT count(*) FROM chunks WHERE document_id = '{a}'") == 0
        assert delete_project(conn, "p") == 1
        assert count("SELECT count(*) FROM documents") == 1
        assert count("SELECT count(*) FROM chunks c JOIN chunk_parts p ON p.chunk_id = c.id") >= 1
        assert count("SELECT count(*) FROM chunks") == count(
            "SELECT count(*) FROM chunks WHERE project_id = (SELECT id FROM projects"
            " WHERE name = 'q')"
        )
        assert delete_project(conn, "p") == 0


def test_a_reindex_request_marks_only_the_named_documents_and_is_not_doubled(
    database_url, local_embedder
):
    write_document(database_url, local_embedder, "p", "a.md", [Passage("Alpha.", "A")])
    write_document(database_url, local_embedder, "p", "b.md", [Passage("Beta.", "B")])
    with connect(database_url) as conn:
        first = request_reindex(conn, "p", documents=["a.md"])
        again = request_reindex(conn, "p", documents=["a.md"])
        other = request_reindex(conn, "p", "b.md", documents=[])
        statuses = dict(conn.execute("SELECT path, status FROM documents").fetchall())
        assert first.new and not again.new and first.id == again.id and other.id != first.id
        assert [p for _, p in first.documents] == ["a.md"] and other.documents == []
        assert statuses == {"a.md": "pending", "b.md": "ready"}
        assert open_requests(conn) == [(first.id, "p", None), (other.id, "p", "b.md")]
