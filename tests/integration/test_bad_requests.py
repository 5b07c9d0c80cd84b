"""Bad input answers 4xx with a reason, never 500: each request found to crash the service once,
and a body that stops arriving, which the service times out itself."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.live_service import live_service
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
KEY = {"X-API-Key": "k"}
JSON = {**KEY, "content-type": "application/json"}
SEARCH = "/api/v1/projects/library/search"
DEEP = b"[" * 5000 + b"]" * 5000


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> ServiceSettings:
    docs = tmp_path / "documents"
    (docs / "library").mkdir(parents=True)
    (docs / "library" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    return ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",), documents_dir=docs
    )


@pytest.fixture
async def api(settings: ServiceSettings, database_url: str, local_embedder):
    doc = write_document(
        database_url, local_embedder, "library", "guide.md", [Passage("About installing.", "I")]
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        yield client, settings.documents_dir, str(doc)


@pytest.mark.parametrize(
    ("path", "body", "reason"),
    [
        (SEARCH, b'{"query": "\xff\xfe"}', "not valid UTF-8"),
        (SEARCH, b'{"query": "x", "filters": {"tags": ["a\\u0000b"]}}', "NUL"),
        (SEARCH, b'{"query": "x", "filters": {"documents": ["a\\u0000b"]}}', "NUL"),
        (
            SEARCH + "/batch",
            b'{"queries": [{"query": "x", "filters": {"tags": ["\\u0000"]}}]}',
            "NUL",
        ),
        (SEARCH, DEEP, "nested too deeply"),
        (SEARCH, b'{"query": "x", "filters": {"tags": ' + DEEP + b"}}", "nested too deeply"),
        ("/api/v1/projects", b'{"name": ' + DEEP + b"}", "nested too deeply"),
        ("/api/v1/projects", b'{"name": "\xc3"}', "not valid UTF-8"),
    ],
)
async def test_undecodable_json_bodies_are_400(api, path, body, reason):
    client, _, _ = api
    response = await client.post(path, content=body, headers=JSON)
    assert response.status_code == 400, response.text
    assert reason in response.json()["detail"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a" * 5000, "5000 bytes long"),
        ("a%00b", "NUL"),
        ("%2E%2E", "not a folder name"),
        ("я" * 200, "400 bytes long"),
    ],
)
@pytest.mark.parametrize(
    ("method", "route"),
    [
        ("POST", "/search"),
        ("POST", "/search/batch"),
        ("GET", "/documents"),
        ("POST", "/documents"),
        ("GET", "/documents/x"),
        ("GET", "/documents/x/chunks"),
        ("DELETE", ""),
        ("POST", "/reindex"),
    ],
)
async def test_impossible_project_names_in_the_path_are_400(api, name, reason, method, route):
    client, docs, _ = api
    body = b'{"query": "x", "queries": [{"query": "x"}]}' if "search" in route else None
    response = await client.request(
        method, f"/api/v1/projects/{name}{route}", content=body, headers=JSON
    )
    assert response.status_code == 400, response.text
    assert reason in response.json()["detail"]
    assert sorted(p.name for p in docs.iterdir()) == ["library"]


@pytest.mark.parametrize("offset", [2**31, 2**63, 2**64, -1])
async def test_chunk_offsets_out_of_range_are_400(api, offset):
    client, _, doc = api
    response = await client.get(
        f"/api/v1/projects/library/documents/{doc}/chunks?offset={offset}", headers=KEY
    )
    assert response.status_code == 400, response.text
    assert "offset" in response.json()["detail"]


async def test_an_upload_onto_a_folder_or_under_a_file_is_409(api):
    client, docs, _ = api
    (docs / "library" / "notes.md").mkdir()
    for params in ({"replace": "true"}, {}):
        response = await client.post(
            "/api/v1/projects/library/documents",
            params=params,
            files={"file": ("notes.md", b"# Notes\n", "text/markdown")},
            headers=KEY,
        )
        assert response.status_code == 409, response.text
        assert "folder" in response.json()["detail"]
    under_a_file = await client.post(
        "/api/v1/projects/library/documents",
        files={"file": ("x.md", b"# X\n", "text/markdown")},
        data={"path": "guide.md/x.md"},
        headers=KEY,
    )
    assert under_a_file.status_code == 409, under_a_file.text
    assert "is a file" in under_a_file.json()["detail"]
    assert (docs / "library" / "notes.md").is_dir()
    assert not [p for p in (docs / "library").iterdir() if p.name.startswith(".")]


def send_short_body(port: int, path: str, headers: str, body: bytes, declared: int) -> bytes:
    """A request whose Content-Length promises more than it sends; the answer, or b''."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: k\r\n{headers}"
            f"Content-Length: {declared}\r\n\r\n"
        )
        sock.sendall(head.encode() + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    ("path", "headers", "body"),
    [
        (SEARCH, "Content-Type: application/json\r\n", b'{"query": "x"'),
        (
            "/api/v1/projects/library/documents",
            "Content-Type: multipart/form-data; boundary=XyZ\r\n",
            b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n\r\n# A',
        ),
    ],
)
def test_a_body_shorter_than_its_content_length_times_out_with_408(
    settings, local_embedder, path, headers, body
):
    quick = settings.with_overrides(request_body_timeout=1.0)
    with live_service(quick, local_embedder) as api_url:
        port = int(api_url.split(":")[2].split("/")[0])
        started = time.monotonic()
        answer = send_short_body(port, path, headers, body, declared=len(body) + 1000)
        took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"stopped arriving" in answer
    assert 0.9 < took < 10, took
    assert sorted(p.name for p in (settings.documents_dir / "library").iterdir()) == ["guide.md"]
