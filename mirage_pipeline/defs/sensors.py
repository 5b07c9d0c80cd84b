"""The documents-folder sensor: new or changed files become partitions and runs, deleted files
take their rows and their partition with them (the documents to index go in batched runs,
`batch.py`), symbolic links are refused, and each tick heals
what a crash left behind (`healing.py`).

Its cursor remembers, per document key, the file's size:mtime signature and content hash, so a
restart resumes where it was, a `touch` costs no run, and only a real change re-indexes. A file
is picked up once it is stable: unchanged for `settle_seconds` (0.5 s) — by its mtime, by waiting
out the rest of that window within the tick, or since the previous tick.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from mirage_pipeline.defs.batch import Wanted, batch_requests, index_batch
from mirage_pipeline.defs.healing import heal
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import DocumentsFolderResource, PostgresResource
from mirage_pipeline.documents_folder import (
    DocumentFile,
    open_inside,
    project_names,
    scan_folder,
    split_document_key,
)
from mirage_pipeline.names import REINDEX_TAG
from mirage_pipeline.parsing import file_type_of
from mirage_pipeline.store.documents import (
    delete_document,
    mark_document_error,
    mark_document_pending,
    upsert_project,
)
from mirage_pipeline.store.reindex import close_requests, open_requests

LINK_REFUSED = (
    "a symbolic link: miRAGe does not follow links out of the documents folder "
    "(copy the file in instead)"
)
FOLDER_LINK_REFUSED = (
    "a symbolic link to a folder: skipped, miRAGe does not follow links out of the documents "
    "folder (move or copy the folder in instead)"
)


@dataclass
class FolderState:
    """What the sensor knew at its last tick (its cursor)."""

    files: dict[str, dict[str, str]] = field(default_factory=dict)  # key → {sig, sha}
    unstable: dict[str, str] = field(default_factory=dict)  # key → sig seen changing
    projects: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # linked files (each has an `error` row)
    folder_links: list[str] = field(default_factory=list)  # linked folders, logged once
    retries: dict[str, list[float]] = field(default_factory=dict)  # key → [attempts, not before]

    @classmethod
    def load(cls, cursor: str | None) -> FolderState:
        if not cursor:
            return cls()
        raw = json.loads(cursor)
        files = {
            key: value if isinstance(value, dict) else {"sig": value, "sha": ""}
            for key, value in raw.get("files", {}).items()
        }
        return cls(
            files,
            raw.get("unstable", {}),
            raw.get("projects", []),
            raw.get("links", []),
            raw.get("folder_links", []),
            raw.get("retries", {}),
        )

    def dump(self) -> str:
        return json.dumps(
            {
                "v": 3,
                "files": self.files,
                "unstable": self.unstable,
                "projects": self.projects,
                "links": self.links,
                "folder_links": self.folder_links,
                "retries": self.retries,
            },
            sort_keys=True,
        )


def file_sha256(root: Path, key: str) -> str:
    """The content hash of a document's file, read without following any link."""
    digest = hashlib.sha256()
    with open_inside(root, key) as fd:
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


@dg.sensor(
    job=index_batch,
    minimum_interval_seconds=1,  # a settled note is requested within ~2 s of being written
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches $MIRAGE_DOCUMENTS_DIR/<project>/** for new, changed and deleted files;"
    " refuses symbolic links; retries what a crash or an outage left unfinished.",
)
def documents_sensor(
    context: dg.SensorEvaluationContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
) -> dg.SensorResult:
    settings = documents.settings()
    root = settings.documents_dir
    before = FolderState.load(context.cursor)
    after = FolderState()
    known = set(context.instance.get_dynamic_partitions(documents_partitions.name))
    scan = scan_folder(root)
    files = scan.files
    quiet = _quiet_files(root, files, before, known, documents.settle_seconds)
    wanted: list[Wanted] = []
    to_add: list[str] = []
    pending: list[DocumentFile] = []
    for f in files:
        previous = before.files.get(f.key)
        if _unchanged(f, before, known):
            after.files[f.key] = previous
            continue
        settled = before.unstable.get(f.key) == f.signature or f.key in quiet
        if not settled:  # still being written (or just copied): look again next tick
            after.unstable[f.key] = f.signature
            if previous:
                after.files[f.key] = previous
            continue
        try:
            sha = file_sha256(root, f.key)
        except (OSError, ValueError):
            continue  # vanished, unreadable or swapped for a link: the next tick sees which
        after.files[f.key] = {"sig": f.signature, "sha": sha}
        if previous and previous.get("sha") == sha and f.key in known:
            continue  # touched, not changed
        if f.key not in known:
            to_add.append(f.key)
        pending.append(f)
        wanted.append(Wanted(f.key, f"{f.key}@{sha[:16]}@{f.mtime_ns}", f.size))
    present = {f.key for f in files}
    wanted += _requested_reindexes(postgres, known & present, {w.key for w in wanted})
    deleted = sorted((known | set(before.files)) - present)
    links = set(scan.file_links)
    new_links = sorted(links - (set(before.links) - set(deleted)))
    gone_links = sorted(set(before.links) - links - present)
    projects = project_names(root)
    for folder in sorted(set(scan.folder_links) - set(before.folder_links)):
        context.log.warning(f"{folder}: {FOLDER_LINK_REFUSED}")
    with postgres.store_connection() as conn:
        for name in sorted(set(projects) - set(before.projects)):
            upsert_project(conn, name)
        for key in [*deleted, *gone_links]:
            project, path = split_document_key(key)
            delete_document(conn, project=project, path=path)
        for f in pending:
            mark_document_pending(
                conn, project=f.project, path=f.path, file_type=file_type_of(f.path)
            )
        for key in new_links:
            project, path = split_document_key(key)
            context.log.warning(f"{key}: {LINK_REFUSED}")
            mark_document_error(
                conn, project=project, path=path, file_type=file_type_of(path), message=LINK_REFUSED
            )
        healing = heal(
            context.instance,
            postgres,
            conn,
            present=(present - set(deleted)) | links,
            requested={w.key for w in wanted} | set(to_add),
            retries=before.retries,
            folder_readable=root.is_dir(),
        )
    wanted += [w for w in healing.wanted if w.key in known]
    sizes = {f.key: f.size for f in files}
    wanted = [Wanted(w.key, w.token, sizes.get(w.key, 0), w.tags) for w in wanted]
    runs = batch_requests(wanted, settings)
    after.projects = projects
    after.links = sorted(links)
    after.folder_links = sorted(scan.folder_links)
    after.retries = healing.retries
    if wanted or deleted:
        context.log.info(
            f"{len(wanted)} document(s) to index in {len(runs)} run(s), {len(deleted)} deleted: "
            + ", ".join([w.key for w in wanted][:10] + deleted[:10])
        )
    for line in healing.log:
        context.log.info(line)
    requests: list = []
    if to_add:
        requests.append(documents_partitions.build_add_request(to_add))
    if set(deleted) & known:
        requests.append(documents_partitions.build_delete_request(sorted(set(deleted) & known)))
    return dg.SensorResult(
        run_requests=runs, dynamic_partitions_requests=requests, cursor=after.dump()
    )


def _unchanged(f: DocumentFile, before: FolderState, known: set[str]) -> bool:
    """The file has the signature the cursor knows, and its partition: nothing to do."""
    previous = before.files.get(f.key)
    return bool(previous and previous["sig"] == f.signature and f.key in known)


def _quiet_files(
    root: Path,
    files: list[DocumentFile],
    before: FolderState,
    known: set[str],
    settle_seconds: float,
) -> set[str]:
    """Keys of the new or changed files that have been unchanged for `settle_seconds`: by
    their mtime, or — for a file younger than that — by waiting out the rest of the window in
    this tick and finding its size and mtime the same (a note saved a moment ago is requested
    now, not a tick later; a file still being copied keeps changing and waits)."""
    now = time.time()
    fresh = [
        f
        for f in files
        if not _unchanged(f, before, known) and before.unstable.get(f.key) != f.signature
    ]
    quiet = {f.key for f in fresh if now - f.mtime_ns / 1e9 >= settle_seconds}
    young = [f for f in fresh if f.key not in quiet]
    if not young:
        return quiet
    oldest_wait = max(settle_seconds - (now - f.mtime_ns / 1e9) for f in young)
    time.sleep(min(settle_seconds, max(0.0, oldest_wait)) + 0.05)
    for f in young:
        try:
            st = os.lstat(root / f.key)
        except OSError:
            continue
        if f"{st.st_size}:{st.st_mtime_ns}" == f.signature:
            quiet.add(f.key)
    return quiet


def _requested_reindexes(
    postgres: PostgresResource, keys: set[str], already: set[str]
) -> list[Wanted]:
    """The documents named by the open `reindex_project` requests."""
    with postgres.store_connection() as conn:
        requests = open_requests(conn)
        if not requests:
            return []
        runs = []
        for request_id, project, path in requests:
            for key in sorted(keys):
                name, _, rest = key.partition("/")
                if name != project or (path and rest != path) or key in already:
                    continue
                already.add(key)
                runs.append(
                    Wanted(key, f"reindex-{request_id}-{key}", tags={REINDEX_TAG: str(request_id)})
                )
        close_requests(conn, [r[0] for r in requests])
    return runs


__all__ = ["documents_sensor"]
