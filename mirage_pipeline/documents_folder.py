"""What the documents folder holds: one sub-folder per project, any depth of files below it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_TEMP_SUFFIXES = (".part", ".partial", ".crdownload", ".tmp", ".swp", "~")


@dataclass(frozen=True)
class DocumentFile:
    project: str
    path: str  # relative to the project folder, '/'-separated
    size: int
    mtime_ns: int

    @property
    def key(self) -> str:
        return document_key(self.project, self.path)

    @property
    def signature(self) -> str:
        return f"{self.size}:{self.mtime_ns}"


def document_key(project: str, path: str) -> str:
    """The Dagster partition key of a document: `<project>/<path inside the project folder>`."""
    return f"{project}/{path}"


def split_document_key(key: str) -> tuple[str, str]:
    project, sep, path = key.partition("/")
    if not sep or not project or not path:
        raise ValueError(f"not a document key (<project>/<path>): {key!r}")
    return project, path


def is_ignored(name: str) -> bool:
    """Dotfiles, Office lock files (~$x.docx) and files still being downloaded."""
    return name.startswith((".", "~$")) or name.lower().endswith(_TEMP_SUFFIXES)


def scan_documents(root: Path) -> list[DocumentFile]:
    """Every document file under `root/<project>/`, sorted by key; hidden and temp files skipped."""
    found: list[DocumentFile] = []
    if not root.is_dir():
        return found
    for project_dir in sorted(root.iterdir()):
        if not project_dir.is_dir() or is_ignored(project_dir.name):
            continue
        for dirpath, dirnames, filenames in os.walk(project_dir):
            dirnames[:] = sorted(d for d in dirnames if not is_ignored(d))
            for name in sorted(filenames):
                if is_ignored(name):
                    continue
                full = Path(dirpath, name)
                try:
                    stat = full.stat()
                except FileNotFoundError:
                    continue  # deleted while we walked
                if not full.is_file():
                    continue
                rel = full.relative_to(project_dir).as_posix()
                found.append(DocumentFile(project_dir.name, rel, stat.st_size, stat.st_mtime_ns))
    return found


def project_names(root: Path) -> list[str]:
    """Project folders under `root`; a symbolic link there is no project (resolve_inside)."""
    if not root.is_dir():
        return []
    return sorted(
        p.name
        for p in root.iterdir()
        if p.is_dir() and not p.is_symlink() and not is_ignored(p.name)
    )


class OutsideDocumentsFolder(ValueError):
    """A path that would leave the documents folder: absolute, `..`, or through a symbolic link."""


def resolve_inside(root: Path, relative: str | PurePosixPath) -> Path:
    """`root/relative`, refused if any part of it could lead out of `root`.

    miRAGe follows no symbolic links below the documents folder, at any depth (a project folder,
    a sub-folder or the file itself): refusing them outright is simpler to reason about than
    resolving them and checking where they land. `root` itself may be a link.
    """
    rel = PurePosixPath(relative)
    if rel.is_absolute() or not rel.parts or ".." in rel.parts:
        raise OutsideDocumentsFolder(f"{str(relative)!r} is not a path inside the documents folder")
    path = root
    for depth, part in enumerate(rel.parts, 1):
        path = path / part
        if path.is_symlink():
            link = PurePosixPath(*rel.parts[:depth]).as_posix()
            raise OutsideDocumentsFolder(
                f"{rel.as_posix()!r}: {link!r} is a symbolic link; miRAGe follows no links "
                "in the documents folder"
            )
    return path
