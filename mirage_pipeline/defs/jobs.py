"""The `index_document` job: one run indexes one document, within the time budget per run.

Its steps execute in the run's own process (the in-process executor): a step process each
would import Dagster and the code location again and load the embedder again, seconds per
document that dwarf the work on a small note. (On Kubernetes the run is still its own Job.)"""

import dagster as dg

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.names import INDEX_JOB, MAX_RUNTIME_TAG
from mirage_pipeline.settings import Settings

# Dagster's run monitoring ends a run that outlives MAX_RUNTIME_TAG (MIRAGE_MAX_RUN_MINUTES); the
# tag is the job's, so runs launched from the UI or the query service carry it too.

index_document_job = dg.define_asset_job(
    INDEX_JOB,
    selection=dg.AssetSelection.assets(*document_assets),
    partitions_def=documents_partitions,
    tags={MAX_RUNTIME_TAG: str(Settings.from_env().max_run_seconds)},
    executor_def=dg.in_process_executor,
    description="Index one document: parse, chunk, embed and write it to the index.",
)
