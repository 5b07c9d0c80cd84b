"""What the documents folder holds: one sub-folder per project, any depth of files below it.

The folder is a boundary: a symbolic link anywhere below it — a project, a sub-folder or a
file — is never followed. Scans report links apart (so the sensor can say so), and reads go
through `open_inside`, which refuses a link at any step of the path, even one swapped in
after the scan.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

_TEMP_SUFFIXES = (".part", ".partial", ".crdownload", ".tmp", ".swp", "~")


class OutsideDocumentsFolder(ValueError):
    """A path leaves the documents folder, or goes through a symbolic link."""


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


@dataclass(frozen=True)
class FolderScan:
    """Regular files to index, and the symbolic links that were not followed."""

    files: list[DocumentFile] = field(default_factory=list)
    file_links: list[str] = field(default_factory=list)  # document keys of linked files
    folder_links: list[str] = field(default_factory=list)  # linked folders, relative to root


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


def _parts(relative: str | os.PathLike[str]) -> list[str]:
    parts = [p for p in PurePosixPath(os.fspath(relative)).parts if p not in ("", ".")]
    if not parts or PurePosixPath(os.fspath(relative)).is_absolute() or ".." in parts:
        raise OutsideDocumentsFolder(f"{os.fspath(relative)!r} is not a path inside the folder")
    return parts


def resolve_inside(root: Path, relative: str | os.PathLike[str]) -> Path:
    """`root/relative`, refused if it leaves `root` or any existing step of it is a symbolic
    link (links are refused outright, not resolved: nothing outside is ever reached)."""
    path = root
    for part in _parts(relative):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # not there (yet), or under a file: nothing to follow
        if stat.S_ISLNK(mode):
            raise OutsideDocumentsFolder(
                f"{path.relative_to(root).as_posix()!r} is a symbolic link; miRAGe does not "
                "follow links out of the documents folder"
            )
    return path


@contextlib.contextmanager
def open_inside(root: Path, relative: str) -> Iterator[int]:
    """A read-only file descriptor of `root/relative`, opened step by step without following
    any link (O_NOFOLLOW at each step), so a link swapped in after a scan is refused too."""
    parts = _parts(relative)
    fds: list[int] = []
    try:
        fds.append(os.open(root, os.O_RDONLY | os.O_DIRECTORY))
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            # a FIFO must not block the open: it is refused as not a regular file
            flags = os.O_RDONLY | os.O_NOFOLLOW | (os.O_NONBLOCK if last else os.O_DIRECTORY)
            try:
                fds.append(os.open(part, flags, dir_fd=fds[-1]))
            except OSError as exc:
                if os.path.islink(os.path.join(root, *parts[: i + 1])):
                    resolve_inside(root, "/".join(parts[: i + 1]))  # raises, with the name
                raise exc from None
        yield fds[-1]
    finally:
        for fd in fds:
            os.close(fd)


def read_inside(root: Path, relative: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file inside `root` (see `open_inside`); at most `limit` + 1."""
    with open_inside(root, relative) as fd:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(relative)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{relative!r} is not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read() if limit is None else fh.read(limit + 1)


def scan_folder(root: Path, project: str | None = None) -> FolderScan:
    """Every document file under `root/<project>/` (of every project, or of `project`), sorted by
    key, and every symbolic link met (not followed); hidden and temporary files skipped."""
    scan = FolderScan()
    if not root.is_dir():
        return scan
    for project_dir in sorted(root.iterdir()):
        if is_ignored(project_dir.name) or project not in (None, project_dir.name):
            continue
        if project_dir.is_symlink():
            scan.folder_links.append(project_dir.name)
            continue
        if not project_dir.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(project_dir):  # never descends into links
            here = Path(dirpath)
            for name in sorted(dirnames):
                if not is_ignored(name) and (here / name).is_symlink():
                    scan.folder_links.append((here / name).relative_to(root).as_posix())
            dirnames[:] = sorted(
                d for d in dirnames if not is_ignored(d) and not (here / d).is_symlink()
            )
            for name in sorted(filenames):
                if is_ignored(name):
                    continue
                full = here / name
                try:
                    info = full.lstat()
                except FileNotFoundError:
                    continue  # deleted while we walked
                rel = full.relative_to(project_dir).as_posix()
                if stat.S_ISLNK(info.st_mode):
                    scan.file_links.append(document_key(project_dir.name, rel))
                elif stat.S_ISREG(info.st_mode):
                    scan.files.append(
                        DocumentFile(project_dir.name, rel, info.st_size, info.st_mtime_ns)
                    )
    scan.files.sort(key=lambda f: f.key)
    scan.file_links.sort()
    return scan


def scan_documents(root: Path, project: str | None = None) -> list[DocumentFile]:
    """Every document file under `root/<project>/` (of every project, or of `project`), sorted
    by key; hidden and temp files and symbolic links skipped."""
    return scan_folder(root, project).files


def project_names(root: Path) -> list[str]:
    """Project folders (not links to folders) of the documents folder."""
    if not root.is_dir():
        return []
    return sorted(
        p.name
        for p in root.iterdir()
        if p.is_dir() and not p.is_symlink() and not is_ignored(p.name)
    )
