"""The real query service in-process (Litestar's test client) and a full-text search through
it: what the full-text tests ask over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar.testing import AsyncTestClient

from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings

API_KEY = "k"


def service_client(database_url: str, embedder, home: Path, **overrides: Any) -> AsyncTestClient:
    """A test client of the service on `database_url`, its API key `API_KEY`."""
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(home)}).with_overrides(
        database_url=database_url, api_keys=(API_KEY,), **overrides
    )
    return AsyncTestClient(app=create_app(settings, embedder=embedder))


async def text_search(client: AsyncTestClient, project: str, query: str) -> list[str]:
    """The contents of a text-mode search's hits, best first."""
    response = await client.post(
        f"/api/v1/projects/{project}/search",
        json={"query": query, "mode": "text"},
        headers={"X-API-Key": API_KEY},
    )
    assert response.status_code == 200, response.text
    return [hit["content"] for hit in response.json()]
