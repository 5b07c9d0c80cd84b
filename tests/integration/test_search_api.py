"""The search endpoint's contract: auth, 404, validation, threshold, ordering, isolation."""

from __future__ import annotations

from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
from mirage_pipeline.parsing import parse_document
from mirage_pipeline.store import prepare_database
from mirage_pipeline.store.connections import connect
from mirage_pipeline.store.documents import start_document
from mirage_pipeline.store.swap import replace_chunks
from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings

pytestmark = pytest.mark.integration

NOTES = b"""# Kitchen

## Bread

Knead the dough for ten minutes, then let it rise in a warm place for an hour.

## Coffee

Grind the beans just before brewing; water should be around ninety-three degrees.
"""


def index_markdown(url: str, embedder, project: str, path: str, data: bytes) -> None:
    doc = parse_document(data, path)
    # min_tokens=0: tiny test sections stay apart (the default merges small sections)
    policy = ChunkingPolicy(max_tokens=496, target_tokens=400, min_tokens=0)
    chunks = chunk_document(doc, embedder.count_tokens, policy)
    vectors = embedder.embed_passages([c.embed_text for c in chunks])
    index = prepare_database(url, embedder.name, embedder.dimension)
    with connect(url) as conn:
        project_id, document_id = start_document(
            conn, project=project, path=path, file_type="markdown", content_hash="h", size_bytes=1
        )
        replace_chunks(
            conn,
            index=index,
            document_id=document_id,
            project_id=project_id,
            chunks=chunks,
            embeddings=vectors,
            metadata={"title": doc.title},
        )


@pytest.fixture
async def client(database_url: str, local_embedder, tmp_path: Path):
    prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    index_markdown(database_url, local_embedder, "kitchen", "notes.md", NOTES)
    # no title of its own: its file name is its title, named in none of its words
    index_markdown(
        database_url,
        local_embedder,
        "kitchen",
        "sourdough-starter.md",
        b"## Feeding\n\nAdd equal weights of flour and water every morning.\n",
    )
    index_markdown(
        database_url,
        local_embedder,
        "garage",
        "car.md",
        b"# Car\n\nBread crumbs in the car seat.\n",
    )
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("key-one", "key-two")
    )
    app = create_app(settings, embedder=local_embedder)
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


def search(client, body, key="key-one", project="kitchen"):
    headers = {"X-API-Key": key} if key is not None else {}
    return client.post(f"/api/v1/projects/{project}/search", json=body, headers=headers)


async def test_health_needs_no_key(client):
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.parametrize("key", [None, "", "wrong", "key-one "])
async def test_search_without_the_right_key_is_401(client, key):
    response = await search(client, {"query": "bread"}, key=key)
    assert response.status_code == 401
    assert "X-API-Key" in response.json()["detail"]


async def test_every_configured_key_works(client):
    for key in ("key-one", "key-two"):
        assert (await search(client, {"query": "bread"}, key=key)).status_code == 200


async def test_unknown_project_is_404(client):
    response = await search(client, {"query": "bread"}, project="nope")
    assert response.status_code == 404
    assert "nope" in response.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": 42},
        {"query": "bread", "limit": 0},
        {"query": "bread", "limit": 101},
        {"query": "bread", "limit": "ten"},
        {"query": "bread", "threshold": 3},
        {"query": "bread", "colour": "red"},
        {"query": "x" * 100_000},
        ["bread"],
    ],
)
async def test_bad_bodies_are_400_with_a_reason(client, body):
    response = await search(client, body)
    assert response.status_code == 400, response.text
    assert response.json()["detail"]


async def test_malformed_json_is_400(client):
    response = await client.post(
        "/api/v1/projects/kitchen/search",
        content=b"{not json",
        headers={"X-API-Key": "key-one", "content-type": "application/json"},
    )
    assert response.status_code == 400


async def test_results_are_ranked_and_cited(client):
    response = await search(client, {"query": "what temperature for brewing coffee", "limit": 2})
    assert response.status_code == 200
    hits = response.json()
    assert len(hits) == 2
    assert hits[0]["structure"]["section"] == "Coffee"
    assert hits[0]["structure"]["heading_path"] == ["Kitchen", "Coffee"]
    assert hits[0]["document"] == {
        "id": hits[0]["document"]["id"],
        "filename": "notes.md",
        "title": "Kitchen",
    }
    assert hits[0]["score"] > hits[1]["score"]
    assert isinstance(hits[0]["chunk_id"], int)


async def test_threshold_drops_weak_matches(client):
    everything = (await search(client, {"query": "coffee beans", "limit": 10})).json()
    similarities = sorted(h["scores"]["vector"] for h in everything)
    cutoff = (similarities[0] + similarities[-1]) / 2
    kept = (await search(client, {"query": "coffee beans", "threshold": cutoff})).json()
    assert 0 < len(kept) < len(everything)
    assert all(h["scores"]["vector"] >= cutoff for h in kept)


async def test_odd_queries_do_not_break_the_service(client):
    for query in ["'; DROP TABLE chunks; --", "\u0000\u202e🙂", "хлеб & | ! ( ) :*", " "]:
        response = await search(client, {"query": query})
        assert response.status_code == 200, (query, response.text)
    assert (await search(client, {"query": "bread"})).status_code == 200


async def test_search_never_returns_another_projects_chunks(client):
    hits = (await search(client, {"query": "bread crumbs in the car", "limit": 100})).json()
    found = {h["document"]["filename"] for h in hits}
    assert hits and found <= {"notes.md", "sourdough-starter.md"}


async def test_a_validation_error_names_the_field(client):
    detail = (await search(client, {"query": "bread", "limit": 500})).json()["detail"]
    assert "limit" in detail and "100" in detail


async def test_a_passage_is_found_by_the_words_of_its_headings(client):
    # "Knead the dough …" never says "bread": its section's title does (migration 0014)
    hits = (await search(client, {"query": "bread", "mode": "text", "limit": 5})).json()
    assert [h["structure"]["section"] for h in hits] == ["Bread"]
    assert "bread" not in hits[0]["content"].lower()
    assert hits[0]["scores"]["text_rank"] == 1


async def test_a_passage_is_found_by_the_words_of_its_documents_title(client):
    # "Add equal weights of flour …" never says "sourdough": its document's title does (0015)
    hits = (await search(client, {"query": "sourdough", "mode": "text", "limit": 5})).json()
    assert [h["document"]["filename"] for h in hits] == ["sourdough-starter.md"]
    assert "sourdough" not in hits[0]["content"].lower()
