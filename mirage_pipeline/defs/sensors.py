"""The documents-folder sensor: new or changed files become partitions and runs, deleted files
take their rows and their partition with them.

Its cursor remembers, per document key, the file's size:mtime signature and content hash, so a
restart resumes where it was, a `touch` costs no run, and only a real change re-indexes. A file
is picked up once it is stable: unchanged since the previous tick, or older than a few seconds.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import MirageResource
from mirage_pipeline.documents_folder import (
    DocumentFile,
    project_names,
    scan_documents,
    split_document_key,
)
from mirage_pipeline.parsing import file_type_of
from mirage_pipeline.store.documents import delete_document, mark_document_pending, upsert_project
from mirage_pipeline.store.reindex import close_requests, open_requests

index_document_job = dg.define_asset_job(
    "index_document",
    selection=dg.AssetSelection.assets(*document_assets),
    partitions_def=documents_partitions,
    description="Index one document: parse, chunk, embed and write it to the index.",
)


@dataclass
class FolderState:
    """What the sensor knew at its last tick (its cursor)."""

    files: dict[str, dict[str, str]] = field(default_factory=dict)  # key → {sig, sha}
    unstable: dict[str, str] = field(default_factory=dict)  # key → sig seen changing
    projects: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, cursor: str | None) -> FolderState:
        if not cursor:
            return cls()
        raw = json.loads(cursor)
        files = {
            key: value if isinstance(value, dict) else {"sig": value, "sha": ""}
            for key, value in raw.get("files", {}).items()
        }
        return cls(files, raw.get("unstable", {}), raw.get("projects", []))

    def dump(self) -> str:
        return json.dumps(
            {"v": 2, "files": self.files, "unstable": self.unstable, "projects": self.projects},
            sort_keys=True,
        )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dg.sensor(
    job=index_document_job,
    minimum_interval_seconds=5,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches $MIRAGE_DOCUMENTS_DIR/<project>/** for new, changed and deleted files.",
)
def documents_sensor(
    context: dg.SensorEvaluationContext, mirage: MirageResource
) -> dg.SensorResult:
    root = mirage.settings().documents_dir
    before = FolderState.load(context.cursor)
    after = FolderState()
    known = set(context.instance.get_dynamic_partitions(documents_partitions.name))
    files = scan_documents(root)
    now = time.time()
    runs: list[dg.RunRequest] = []
    to_add: list[str] = []
    pending: list[DocumentFile] = []
    for f in files:
        previous = before.files.get(f.key)
        if previous and previous["sig"] == f.signature and f.key in known:
            after.files[f.key] = previous
            continue
        settled = before.unstable.get(f.key) == f.signature or (
            now - f.mtime_ns / 1e9 >= mirage.settle_seconds
        )
        if not settled:  # still being written (or just copied): look again next tick
            after.unstable[f.key] = f.signature
            if previous:
                after.files[f.key] = previous
            continue
        try:
            sha = file_sha256(root / f.project / f.path)
        except OSError:
            continue  # vanished or unreadable right now; the next tick sees what happened
        after.files[f.key] = {"sig": f.signature, "sha": sha}
        if previous and previous.get("sha") == sha and f.key in known:
            continue  # touched, not changed
        if f.key not in known:
            to_add.append(f.key)
        pending.append(f)
        runs.append(
            dg.RunRequest(
                run_key=f"{f.key}@{sha[:16]}@{f.mtime_ns}",
                partition_key=f.key,
                tags={"mirage/project": f.project},
            )
        )
    present = {f.key for f in files}
    runs += _requested_reindexes(mirage, known & present, {r.partition_key for r in runs})
    deleted = sorted((known | set(before.files)) - present)
    projects = project_names(root)
    if pending or deleted or set(projects) - set(before.projects):
        with mirage.store_connection() as conn:
            for name in sorted(set(projects) - set(before.projects)):
                upsert_project(conn, name)
            for f in pending:
                mark_document_pending(
                    conn, project=f.project, path=f.path, file_type=file_type_of(f.path)
                )
            for key in deleted:
                project, path = split_document_key(key)
                delete_document(conn, project=project, path=path)
    after.projects = projects
    if runs or deleted:
        context.log.info(
            f"{len(runs)} document(s) to index, {len(deleted)} deleted: "
            + ", ".join([r.partition_key for r in runs][:10] + deleted[:10])
        )
    requests: list = []
    if to_add:
        requests.append(documents_partitions.build_add_request(to_add))
    if set(deleted) & known:
        requests.append(documents_partitions.build_delete_request(sorted(set(deleted) & known)))
    return dg.SensorResult(
        run_requests=runs, dynamic_partitions_requests=requests, cursor=after.dump()
    )


def _requested_reindexes(
    mirage: MirageResource, keys: set[str], already: set[str]
) -> list[dg.RunRequest]:
    """One run per document named by the open `reindex_project` requests."""
    with mirage.store_connection() as conn:
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
                    dg.RunRequest(
                        run_key=f"reindex-{request_id}-{key}",
                        partition_key=key,
                        tags={"mirage/project": project, "mirage/reindex": str(request_id)},
                    )
                )
        close_requests(conn, [r[0] for r in requests])
    return runs
