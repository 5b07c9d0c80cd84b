"""What the documents folder holds: one sub-folder per project, any depth of files below it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

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
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not is_ignored(p.name))
