"""The document and project API: uploads through the folder, 409/413/400, delete, isolation."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.store.reindex import open_requests
from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
KEY = {"X-API-Key": "k"}


@pytest.fixture
async def api(database_url: str, local_embedder, tmp_path: Path):
    docs = tmp_path / "documents"
    (docs / "library").mkdir(parents=True)
    (docs / "library" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (docs / "other").mkdir()
    ids = {
        "guide": write_document(
            database_url,
            local_embedder,
            "library",
            "guide.md",
            [Passage(f"Passage number {i} about installing.", "Install") for i in range(5)],
        ),
        "secret": write_document(
            database_url, local_embedder, "other", "secret.md", [Passage("Secret.", "S")]
        ),
    }
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url,
        api_keys=("k",),
        documents_dir=docs,
        max_upload_bytes=4096,
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        yield client, docs, ids


def upload(client, project, name, data=b"# Note\n\nhello\n", params=None, path=None):
    files = {"file": (name, data, "text/markdown")}
    return client.post(
        f"/api/v1/projects/{project}/documents",
        files=files,
        data={"path": path} if path else None,
        params=params or {},
        headers=KEY,
    )


async def test_projects_create_list_delete(api):
    client, docs, _ = api
    created = await client.post("/api/v1/projects", json={"name": "fresh"}, headers=KEY)
    assert created.status_code == 201 and created.json()["name"] == "fresh"
    assert (docs / "fresh").is_dir()
    again = await client.post("/api/v1/projects", json={"name": "fresh"}, headers=KEY)
    assert again.status_code == 409 and "exists" in again.json()["detail"]
    for bad in ["../x", "", "a b", ".hidden", "x" * 65]:
        response = await client.post("/api/v1/projects", json={"name": bad}, headers=KEY)
        assert response.status_code == 400, bad
    listing = {p["name"]: p for p in (await client.get("/api/v1/projects", headers=KEY)).json()}
    assert set(listing) >= {"fresh", "library", "other"}
    assert listing["library"]["documents"] == 1 and listing["library"]["chunks"] == 5
    # an empty project searches to nothing rather than 404
    hits = await client.post("/api/v1/projects/fresh/search", json={"query": "x"}, headers=KEY)
    assert hits.status_code == 200 and hits.json() == []

    refused = await client.delete("/api/v1/projects/library", headers=KEY)
    assert refused.status_code == 409 and "confirm=true" in refused.json()["detail"]
    assert (docs / "library").is_dir()
    gone = await client.delete("/api/v1/projects/library?confirm=true", headers=KEY)
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert not (docs / "library").exists()
    search = await client.post("/api/v1/projects/library/search", json={"query": "x"}, headers=KEY)
    assert search.status_code == 404
    assert (
        await client.delete("/api/v1/projects/nope?confirm=true", headers=KEY)
    ).status_code == 404


async def test_upload_is_written_atomically_and_pending(api):
    client, docs, _ = api
    response = await upload(client, "library", "notes.md")
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "pending" and body["filename"] == "notes.md"
    assert (docs / "library" / "notes.md").read_bytes() == b"# Note\n\nhello\n"
    assert not [p for p in (docs / "library").iterdir() if p.name.startswith(".")]
    listing = (await client.get("/api/v1/projects/library/documents", headers=KEY)).json()
    row = next(d for d in listing if d["filename"] == "notes.md")
    assert row["id"] == body["id"] and row["status"] == "pending" and row["file_type"] == "markdown"
    one = (await client.get(f"/api/v1/projects/library/documents/{body['id']}", headers=KEY)).json()
    assert one["filename"] == "notes.md" and one["chunk_count"] == 0

    exists = await upload(client, "library", "notes.md", b"other")
    assert exists.status_code == 409 and "replace=true" in exists.json()["detail"]
    assert (docs / "library" / "notes.md").read_bytes() == b"# Note\n\nhello\n"
    replaced = await upload(client, "library", "notes.md", b"# New\n", params={"replace": "true"})
    assert replaced.status_code == 202 and replaced.json()["id"] == body["id"]
    assert (docs / "library" / "notes.md").read_bytes() == b"# New\n"

    nested = await upload(client, "newproject", "ignored.md", path="books/part 1/книга.md")
    assert nested.status_code == 202, nested.text
    assert (docs / "newproject" / "books" / "part 1" / "книга.md").is_file()


@pytest.mark.parametrize(
    "name",
    [
        "../escape.md",
        "../../etc/passwd",
        "/etc/passwd",
        "a/../../b.md",
        "bad\x01name.md",
        "rtl\u202efdp.md",
        ".hidden.md",
        "~$lock.docx",
        "file.md.part",
        "C:\\windows\\x.md",
    ],
)
async def test_unsafe_names_are_refused(api, name, tmp_path):
    client, docs, _ = api
    response = await upload(client, "library", "ok.md", path=name)
    assert response.status_code == 400, response.text
    assert response.json()["detail"]
    inside = {p.relative_to(docs).as_posix() for p in docs.rglob("*")}
    assert inside == {"library", "library/guide.md", "other"}
    assert not list(tmp_path.glob("**/passwd")) and not list(tmp_path.glob("**/escape.md"))


async def test_uploads_over_the_limit_are_413_and_leave_nothing(api):
    client, docs, _ = api
    response = await upload(client, "library", "big.md", b"x" * 5000)
    assert response.status_code == 413, response.text
    assert "limit" in response.json()["detail"]
    assert sorted(p.name for p in (docs / "library").iterdir()) == ["guide.md"]
    # a body far over the limit is refused from its Content-Length alone
    response = await upload(client, "library", "huge.md", b"x" * 200_000)
    assert response.status_code == 413


async def test_unsupported_file_types_are_422(api):
    client, docs, _ = api
    response = await upload(client, "library", "table.xlsx", b"PK\x03\x04")
    assert response.status_code == 422, response.text
    assert "unsupported file type '.xlsx'" in response.json()["detail"]
    assert sorted(p.name for p in (docs / "library").iterdir()) == ["guide.md"]


async def test_bad_multipart_bodies_are_400(api):
    client, _, _ = api
    no_file = await client.post(
        "/api/v1/projects/library/documents", data={"path": "x.md"}, headers=KEY
    )
    assert no_file.status_code == 400
    json_body = await client.post("/api/v1/projects/library/documents", json={}, headers=KEY)
    assert json_body.status_code == 400 and "multipart" in json_body.json()["detail"]


async def test_chunks_paging_and_delete(api):
    client, docs, ids = api
    base = f"/api/v1/projects/library/documents/{ids['guide']}"
    page = (await client.get(f"{base}/chunks?offset=1&limit=2", headers=KEY)).json()
    assert page["total"] == 5 and [c["position"] for c in page["items"]] == [1, 2]
    assert page["items"][0]["metadata"]["tokens"] > 0
    assert (await client.get(f"{base}/chunks?limit=0", headers=KEY)).status_code == 400
    deleted = await client.delete(base, headers=KEY)
    assert deleted.status_code == 200 and deleted.json()["deleted"] is True
    assert not (docs / "library" / "guide.md").exists()
    assert (await client.get(base, headers=KEY)).status_code == 404
    hits = await client.post(
        "/api/v1/projects/library/search", json={"query": "installing"}, headers=KEY
    )
    assert hits.json() == []


async def test_no_route_reaches_another_projects_documents(api):
    client, _, ids = api
    secret = ids["secret"]
    for method, path in [
        ("GET", f"/api/v1/projects/library/documents/{secret}"),
        ("GET", f"/api/v1/projects/library/documents/{secret}/chunks"),
        ("DELETE", f"/api/v1/projects/library/documents/{secret}"),
        ("POST", f"/api/v1/projects/library/documents/{secret}/reindex"),
        ("GET", "/api/v1/projects/library/documents/not-a-uuid"),
    ]:
        response = await client.request(method, path, headers=KEY)
        assert response.status_code == 404, (method, path)
    listing = (await client.get("/api/v1/projects/library/documents", headers=KEY)).json()
    assert [d["filename"] for d in listing] == ["guide.md"]
    hits = await client.post(
        "/api/v1/projects/library/search", json={"query": "Secret", "limit": 100}, headers=KEY
    )
    assert all(h["document"]["filename"] == "guide.md" for h in hits.json())


async def test_reindex_records_one_request_and_marks_the_documents_pending(api, database_url):
    """No Dagster needed: a re-index is a request in the index's database (the documents sensor
    turns it into runs), and asking again before it is taken adds nothing."""
    client, _, ids = api
    one = f"/api/v1/projects/library/documents/{ids['guide']}/reindex"
    first = await client.post(one, headers=KEY)
    assert first.status_code == 202, first.text
    body = first.json()
    assert body["documents"] == [
        {"id": str(ids["guide"]), "filename": "guide.md", "status": "pending"}
    ]
    assert body["already_requested"] is False
    status = await client.get(f"/api/v1/projects/library/documents/{ids['guide']}", headers=KEY)
    assert status.json()["status"] == "pending"
    again = (await client.post(one, headers=KEY)).json()
    assert again["request_id"] == body["request_id"] and again["already_requested"] is True
    project = (await client.post("/api/v1/projects/library/reindex", headers=KEY)).json()
    assert project["request_id"] != body["request_id"]
    assert [d["filename"] for d in project["documents"]] == ["guide.md"]
    with psycopg.connect(database_url) as conn:
        assert open_requests(conn) == [
            (body["request_id"], "library", "guide.md"),
            (project["request_id"], "library", None),
        ]


async def test_reindex_of_a_document_whose_file_is_gone_marks_nothing(api, database_url):
    client, docs, ids = api
    (docs / "library" / "guide.md").unlink()
    response = await client.post(
        f"/api/v1/projects/library/documents/{ids['guide']}/reindex", headers=KEY
    )
    assert response.status_code == 202 and response.json()["documents"] == []
    status = await client.get(f"/api/v1/projects/library/documents/{ids['guide']}", headers=KEY)
    assert status.json()["status"] == "ready"


ROUTES = [
    ("GET", "/api/v1/projects"),
    ("POST", "/api/v1/projects"),
    ("DELETE", "/api/v1/projects/library?confirm=true"),
    ("POST", "/api/v1/projects/library/reindex"),
    ("GET", "/api/v1/projects/library/documents"),
    ("POST", "/api/v1/projects/library/documents"),
    ("GET", "/api/v1/projects/library/documents/x"),
    ("DELETE", "/api/v1/projects/library/documents/x"),
    ("POST", "/api/v1/projects/library/documents/x/reindex"),
    ("GET", "/api/v1/projects/library/documents/x/chunks"),
    ("POST", "/api/v1/projects/library/search"),
    ("POST", "/api/v1/projects/library/search/batch"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_api_route_needs_the_key(api, method, path):
    client, docs, _ = api
    for headers in ({}, {"X-API-Key": "wrong"}):
        response = await client.request(method, path, headers=headers)
        assert response.status_code == 401, (method, path, response.text)
        assert response.json()["detail"] == "missing or wrong X-API-Key"
    assert (docs / "library" / "guide.md").exists()


async def test_request_ids_and_metrics(api):
    client, _, _ = api
    response = await client.get("/api/v1/projects", headers={**KEY, "X-Request-ID": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"
    generated = await client.get("/api/v1/projects", headers=KEY)
    assert len(generated.headers["x-request-id"]) == 32
    await client.post("/api/v1/projects/library/search", json={"query": "x"}, headers=KEY)
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert (
        'mirage_http_requests_total{method="GET",route="/api/v1/projects",status="200"} 2' in text
    )
    assert (
        'mirage_http_request_duration_seconds_count{method="POST",'
        'route="/api/v1/projects/{project}/search"} 1'
    ) in text
    assert 'le="+Inf"' in text


async def test_openapi_schema_lists_every_route(api):
    client, _, _ = api
    schema = (await client.get("/schema/openapi.json")).json()
    paths = set(schema["paths"])
    assert {
        "/api/v1/projects",
        "/api/v1/projects/{project}",
        "/api/v1/projects/{project}/reindex",
        "/api/v1/projects/{project}/documents",
        "/api/v1/projects/{project}/documents/{document_id}",
        "/api/v1/projects/{project}/documents/{document_id}/chunks",
        "/api/v1/projects/{project}/documents/{document_id}/reindex",
        "/api/v1/projects/{project}/search",
        "/api/v1/projects/{project}/search/batch",
        "/health",
        "/ready",
        "/metrics",
    } <= paths, paths
