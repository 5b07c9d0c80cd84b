"""Re-index a whole project from the Dagster UI: launch `reindex_project` with the project's
name (and optionally one document's path). It records the same re-index request as the HTTP
API (`store/reindex.py`); the documents sensor then indexes the documents in batched runs."""

import dagster as dg

from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import PostgresResource
from mirage_pipeline.documents_folder import document_key
from mirage_pipeline.store.reindex import request_reindex


class ReindexConfig(dg.Config):
    project: str
    document: str | None = None  # a path inside the project folder; unset: all documents


@dg.op(description="Record a re-index request; the documents sensor launches the runs.")
def request_project_reindex(
    context: dg.OpExecutionContext, config: ReindexConfig, postgres: PostgresResource
) -> int:
    keys = context.instance.get_dynamic_partitions(documents_partitions.name)
    if config.document:
        wanted = [document_key(config.project, config.document)]
        if wanted[0] not in keys:
            raise dg.Failure(f"no document {config.document!r} in project {config.project!r}")
    else:
        wanted = [k for k in keys if k.startswith(f"{config.project}/")]
        if not wanted:
            raise dg.Failure(f"project {config.project!r} has no documents")
    paths = [key.partition("/")[2] for key in wanted]
    with postgres.store_connection() as conn:
        request = request_reindex(conn, config.project, config.document, documents=paths)
    context.log.info(f"re-index request {request.id}: {len(wanted)} document(s)")
    return request.id


@dg.job(
    description="Re-index every document of one project (or one of its documents).",
    executor_def=dg.in_process_executor,
)
def reindex_project() -> None:
    request_project_reindex()
