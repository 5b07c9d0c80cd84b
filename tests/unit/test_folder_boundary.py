"""resolve_inside refuses any symbolic link below the documents folder; upload names are
accepted exactly when a file system takes them (control characters aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirage_pipeline.documents_folder import (
    OutsideDocumentsFolder,
    project_names,
    resolve_inside,
)
from mirage_query.uploads import BadName, safe_document_path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "passwd").write_text("root:x:0:0\n")
    docs = tmp_path / "docs"
    (docs / "p" / "books").mkdir(parents=True)
    (docs / "p" / "books" / "a.md").write_text("# A\n")
    (docs / "p" / "dir-link").symlink_to(outside, target_is_directory=True)
    (docs / "p" / "books" / "file-link.md").symlink_to(outside / "passwd")
    (docs / "p" / "inner-link").symlink_to(docs / "p" / "books", target_is_directory=True)
    (docs / "linked-project").symlink_to(outside, target_is_directory=True)
    return docs


@pytest.mark.parametrize("relative", ["p", "p/books/a.md", "p/books/new/deeper.md", "p/./books"])
def test_paths_without_links_resolve_under_the_root(root: Path, relative: str) -> None:
    path = resolve_inside(root, relative)
    assert path == root.joinpath(*[part for part in relative.split("/") if part != "."])


@pytest.mark.parametrize(
    ("relative", "link"),
    [
        ("p/dir-link/passwd", "p/dir-link"),
        ("p/dir-link/sub/new.md", "p/dir-link"),
        ("p/books/file-link.md", "p/books/file-link.md"),
        ("linked-project/passwd", "linked-project"),
        ("linked-project", "linked-project"),
        ("p/inner-link/a.md", "p/inner-link"),  # even a link that stays inside
    ],
)
def test_any_link_on_the_path_is_refused_and_named(root: Path, relative: str, link: str) -> None:
    with pytest.raises(OutsideDocumentsFolder, match=f"'{link}' is a symbolic link"):
        resolve_inside(root, relative)


@pytest.mark.parametrize("relative", ["../outside/passwd", "p/../../x", "/etc/passwd", ""])
def test_paths_leaving_the_root_are_refused(root: Path, relative: str) -> None:
    with pytest.raises(OutsideDocumentsFolder, match="not a path inside"):
        resolve_inside(root, relative)


def test_a_linked_folder_at_the_root_is_no_project(root: Path) -> None:
    assert project_names(root) == ["p"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Михаил Булгаков — Записки юного врача (сборник).fb2", None),
        ("я" * 125 + ".md", None),
        ("books\\part 1\\a.md", "books/part 1/a.md"),
        ("./a//b.md", "a/b.md"),
    ],
)
def test_names_a_file_system_takes_are_accepted(raw: str, expected: str | None) -> None:
    assert safe_document_path(raw) == (expected or raw)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("я" * 127 + ".md", "257 bytes long in UTF-8"),
        ("a\x00b.md", "NUL character"),
        ("a\udc80.md", "control characters"),
        ("../a.md", "leaves the project folder"),
        ("/", "absolute"),
        (".git/config", "ignored by the indexer"),
    ],
)
def test_names_a_file_system_refuses_say_why(raw: str, reason: str) -> None:
    with pytest.raises(BadName) as refused:
        safe_document_path(raw)
    assert reason in refused.value.detail
