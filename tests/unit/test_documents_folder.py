"""The documents folder is a boundary: symbolic links are refused at any depth, never followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mirage_pipeline.documents_folder import (
    OutsideDocumentsFolder,
    project_names,
    read_inside,
    resolve_inside,
    scan_documents,
    scan_folder,
)


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "documents"
    outside = tmp_path / "outside"
    (root / "demo" / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (outside / "book.md").write_text("# Outside\n\nNot ours.\n")
    (root / "demo" / "notes.md").write_text("# Notes\n")
    (root / "demo" / "sub" / "deep.md").write_text("# Deep\n")
    return root, outside


def test_links_to_files_and_folders_are_reported_never_followed(folders) -> None:
    root, outside = folders
    (root / "demo" / "passwd.md").symlink_to(outside / "passwd")
    (root / "demo" / "sub" / "linked").symlink_to(outside)
    (root / "demo" / "sub" / "inside-link.md").symlink_to(root / "demo" / "notes.md")
    (root / "stolen").symlink_to(outside)  # a link at the root would make a project
    scan = scan_folder(root)
    assert [f.key for f in scan.files] == ["demo/notes.md", "demo/sub/deep.md"]
    # even a link that stays inside is refused: links are refused outright, not resolved
    assert scan.file_links == ["demo/passwd.md", "demo/sub/inside-link.md"]
    assert sorted(scan.folder_links) == ["demo/sub/linked", "stolen"]
    assert project_names(root) == ["demo"]
    assert [f.key for f in scan_documents(root)] == ["demo/notes.md", "demo/sub/deep.md"]


def test_resolve_inside_refuses_links_and_escapes(folders) -> None:
    root, outside = folders
    (root / "demo" / "linked").symlink_to(outside)
    assert resolve_inside(root, "demo/notes.md") == root / "demo" / "notes.md"
    assert resolve_inside(root, "demo/new/file.md") == root / "demo" / "new" / "file.md"
    with pytest.raises(OutsideDocumentsFolder, match="'demo/linked' is a symbolic link"):
        resolve_inside(root, "demo/linked/book.md")
    for bad in ("../outside/passwd", "demo/../../outside/passwd", "/etc/passwd", ""):
        with pytest.raises(OutsideDocumentsFolder):
            resolve_inside(root, bad)


def test_read_inside_refuses_a_link_at_any_step_even_swapped_in_after_a_scan(folders) -> None:
    root, outside = folders
    assert read_inside(root, "demo/sub/deep.md") == b"# Deep\n"
    # the scan saw a real folder; a link is put in its place before the read
    assert [f.key for f in scan_folder(root).files][-1] == "demo/sub/deep.md"
    os.rename(root / "demo" / "sub", root / "demo" / "sub-moved")
    (root / "demo" / "sub").symlink_to(outside)
    (outside / "deep.md").write_text("outside text")
    with pytest.raises(OutsideDocumentsFolder, match="symbolic link"):
        read_inside(root, "demo/sub/deep.md")
    (root / "demo" / "notes.md").unlink()
    (root / "demo" / "notes.md").symlink_to(outside / "passwd")
    with pytest.raises(OutsideDocumentsFolder, match="symbolic link"):
        read_inside(root, "demo/notes.md")


def test_read_inside_never_blocks_on_a_fifo_and_bounds_what_it_reads(folders) -> None:
    root, _ = folders
    os.mkfifo(root / "demo" / "pipe.md")
    with pytest.raises(OSError, match="not a regular file"):
        read_inside(root, "demo/pipe.md")
    (root / "demo" / "big.md").write_bytes(b"x" * 1000)
    assert len(read_inside(root, "demo/big.md", limit=10)) == 11
    with pytest.raises(FileNotFoundError):
        read_inside(root, "demo/missing.md")
