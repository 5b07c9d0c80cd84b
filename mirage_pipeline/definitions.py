"""The Dagster code location of miRAGe (workspace.yaml points here)."""

import dagster as dg

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.batch import index_batch
from mirage_pipeline.defs.deployment import pipeline_resources
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_pipeline.defs.jobs import index_document_job
from mirage_pipeline.defs.reindex import reindex_project
from mirage_pipeline.defs.run_failures import run_failure_sensors
from mirage_pipeline.defs.sensors import documents_sensor

defs = dg.Definitions(
    assets=document_assets,
    jobs=[index_batch, index_document_job, reindex_project],
    sensors=[documents_sensor, *run_failure_sensors],
    resources={**pipeline_resources(), "io_manager": ParquetIOManager()},
)
