"""The upload and delete API never follow a symbolic link out of the documents folder, and take
any name a file system takes (long, Cyrillic), refusing with a reason the ones it does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from mirage_query.app import create_app
from mirage_query.settings import ServiceSettings
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration
KEY = {"X-API-Key": "k"}


@pytest.fixture
async def api(database_url: str, local_embedder, tmp_path: Path):
    """library/ holds a link to a folder outside and a link to a file outside; evil/ is a
    project folder that is itself a link to a folder outside."""
    docs = tmp_path / "documents"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n", encoding="utf-8")
    (docs / "library").mkdir(parents=True)
    (docs / "library" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (docs / "library" / "linked").symlink_to(outside, target_is_directory=True)
    (docs / "library" / "passwd.md").symlink_to(outside / "secret.md")
    (docs / "evil").symlink_to(outside, target_is_directory=True)
    ids = {
        path: str(write_document(database_url, local_embedder, "library", path, [Passage(p, "S")]))
        for path, p in [("linked/secret.md", "Through a link."), ("passwd.md", "A file link.")]
    }
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",), documents_dir=docs
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        yield client, docs, outside, ids


def upload(client, project, path, data=b"# Note\n", params=None):
    return client.post(
        f"/api/v1/projects/{project}/documents",
        files={"file": ("note.md", data, "text/markdown")},
        data={"path": path},
        params=params or {},
        headers=KEY,
    )


def outside_files(outside: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in outside.iterdir()}


async def test_an_upload_through_a_linked_folder_writes_nothing_outside(api):
    client, docs, outside, _ = api
    for path, params in [
        ("linked/x.md", None),
        ("linked/deeper/x.md", None),
        ("linked/secret.md", {"replace": "true"}),
        ("passwd.md", {"replace": "true"}),
    ]:
        response = await upload(client, "library", path, params=params)
        assert response.status_code == 409, (path, response.text)
        assert "is a symbolic link" in response.json()["detail"], path
    assert outside_files(outside) == {"secret.md": b"# Secret\n"}
    assert (docs / "library" / "passwd.md").is_symlink()
    assert not [p for p in (docs / "library").iterdir() if p.name.startswith(".")]


async def test_a_project_that_is_a_link_is_refused(api):
    client, _, outside, _ = api
    response = await upload(client, "evil", "x.md")
    assert response.status_code == 409 and "'evil' is a symbolic link" in response.json()["detail"]
    names = [p["name"] for p in (await client.get("/api/v1/projects", headers=KEY)).json()]
    assert "evil" not in names and "library" in names
    listing = await client.get("/api/v1/projects/evil/documents", headers=KEY)
    assert listing.status_code == 404
    search = await client.post("/api/v1/projects/evil/search", json={"query": "x"}, headers=KEY)
    assert search.status_code == 404
    reindex = await client.post("/api/v1/projects/evil/reindex", headers=KEY)
    assert reindex.status_code == 409 and "symbolic link" in reindex.json()["detail"]
    assert outside_files(outside) == {"secret.md": b"# Secret\n"}
    # deleting it removes the link, never the folder it points to
    gone = await client.delete("/api/v1/projects/evil?confirm=true", headers=KEY)
    assert gone.status_code == 200, gone.text
    assert outside_files(outside) == {"secret.md": b"# Secret\n"}


async def test_deleting_never_unlinks_a_file_outside(api):
    client, docs, outside, ids = api
    through = await client.delete(
        f"/api/v1/projects/library/documents/{ids['linked/secret.md']}", headers=KEY
    )
    assert through.status_code == 409, through.text
    assert (
        "not deleted" in through.json()["detail"]
        and "'library/linked'" in (through.json()["detail"])
    )
    still = await client.get(
        f"/api/v1/projects/library/documents/{ids['linked/secret.md']}", headers=KEY
    )
    assert still.status_code == 200
    # a document that is itself a link: the link goes, its target stays
    link = await client.delete(
        f"/api/v1/projects/library/documents/{ids['passwd.md']}", headers=KEY
    )
    assert link.status_code == 200, link.text
    assert not (docs / "library" / "passwd.md").is_symlink()
    assert outside_files(outside) == {"secret.md": b"# Secret\n"}


async def test_long_and_cyrillic_names_a_file_system_takes_are_accepted(api):
    client, docs, _, _ = api
    book = "Михаил Булгаков — Записки юного врача (сборник).md"
    longest = "я" * 125 + ".md"  # 253 bytes in UTF-8
    ascii_max = "a" * 252 + ".md"  # 255 bytes
    for name in (book, longest, ascii_max, f"{('папка ' * 20).strip()}/{longest}"):
        response = await upload(client, "library", name)
        assert response.status_code == 202, (name, response.text)
        assert response.json()["filename"] == name
        assert (docs / "library" / name).read_bytes() == b"# Note\n"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("я" * 127 + ".md", "257 bytes long"),
        ("a" * 253 + ".md", "256 bytes long"),
        # 4,096 bytes: as long as the field may be, too long with any folder in front
        ("/".join(["d" * 250] * 16) + "/" + "x" * 77 + ".md", "path too long"),
        ("x" * 4097, "over 4096 bytes"),
        ("bad\x00name.md", "NUL"),
        ("a/../../b.md", "'..'"),
    ],
)
async def test_names_a_file_system_refuses_are_400_with_the_reason(api, path, reason):
    client, docs, _, _ = api
    response = await upload(client, "library", path)
    assert response.status_code == 400, response.text
    assert reason in response.json()["detail"]
    assert not [p for p in (docs / "library").iterdir() if p.name.startswith(".")]
