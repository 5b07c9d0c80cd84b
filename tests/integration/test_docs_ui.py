"""/schema works offline: every script, style and icon of the docs pages comes from the service."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from urllib.parse import urljoin, urlparse

import httpx
import lxml.html
import pytest

from mirage_query.settings import ServiceSettings
from tests.support.live_service import live_service

pytestmark = pytest.mark.integration

PAGES = ["/schema", "/schema/", "/schema/swagger"]
# what each kind of asset must be to count as served (the Swagger UI bundle is ~1.5 MB)
KINDS = {
    ".js": ("javascript", 100_000),
    ".css": ("text/css", 20_000),
    ".png": ("image/png", 200),
}


@pytest.fixture
def service(database_url, local_embedder, tmp_path) -> Iterator[str]:
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("secret",)
    )
    with live_service(settings, local_embedder) as api_url:
        yield api_url.removesuffix("/api/v1")


def assets_of(html: str) -> list[str]:
    page = lxml.html.fromstring(html)
    return [*page.xpath("//script/@src"), *page.xpath("//link/@href"), *page.xpath("//img/@src")]


def test_docs_pages_load_everything_from_the_service(service: str) -> None:
    origin = urlparse(service).netloc
    for path in PAGES:
        page = httpx.get(f"{service}{path}", timeout=10)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assets = assets_of(page.text)
        assert len(assets) >= 4, assets  # bundle, preset, styles, icon
        for ref in assets:
            url = urljoin(f"{service}{path}", ref)
            assert urlparse(url).netloc == origin, f"{path} loads {ref} from another site"
            kind, size = KINDS[next(k for k in KINDS if url.endswith(k))]
            asset = httpx.get(url, timeout=10)
            assert asset.status_code == 200, url
            assert kind in asset.headers["content-type"], (url, asset.headers["content-type"])
            assert len(asset.content) >= size, url
    # the schema the page renders: OpenAPI 3.1, which Swagger UI 5 reads (4.x could not)
    schema = httpx.get(f"{service}/schema/openapi.json", timeout=10).json()
    assert (
        schema["openapi"].startswith("3.1")
        and "/api/v1/projects/{project}/search" in (schema["paths"])
    )
    assert httpx.get(f"{service}/schema/openapi.yaml", timeout=10).status_code == 200


@pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="chromium is not installed (the same-origin check above covers CI; see README)",
)
def test_docs_page_renders_in_headless_chromium_without_network(service: str, tmp_path) -> None:
    offline = [
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # no name resolves
        "--proxy-server=http://127.0.0.1:9",  # and no address is reachable but loopback
    ]
    done = subprocess.run(
        [
            "chromium",
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp_path / 'chromium'}",
            *offline,
            "--virtual-time-budget=15000",
            "--dump-dom",
            f"{service}/schema",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rendered = lxml.html.fromstring(done.stdout)
    paths = rendered.xpath("//*[contains(@class, 'opblock-summary-path')]/@data-path")
    assert "/api/v1/projects/{project}/search" in paths, done.stdout[:2000]
    assert "miRAGe" in rendered.xpath("string(//*[@class='title'])")
