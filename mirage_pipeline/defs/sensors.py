"""The documents-folder sensor: new or changed files become partitions and runs."""

import json

import dagster as dg

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.partitions import documents_partitions
from mirage_pipeline.defs.resources import MirageResource
from mirage_pipeline.documents_folder import scan_documents

index_document_job = dg.define_asset_job(
    "index_document",
    selection=dg.AssetSelection.assets(*document_assets),
    partitions_def=documents_partitions,
    description="Index one document: parse, chunk, embed and write it to the index.",
)


@dg.sensor(
    job=index_document_job,
    minimum_interval_seconds=5,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches $MIRAGE_DOCUMENTS_DIR/<project>/** for new and changed files.",
)
def documents_sensor(
    context: dg.SensorEvaluationContext, mirage: MirageResource
) -> dg.SensorResult:
    seen: dict[str, str] = json.loads(context.cursor)["files"] if context.cursor else {}
    files = scan_documents(mirage.settings().documents_dir)
    known = set(context.instance.get_dynamic_partitions(documents_partitions.name))
    new_keys = [f.key for f in files if f.key not in known]
    runs = [
        dg.RunRequest(
            run_key=f"{f.key}@{f.signature}",
            partition_key=f.key,
            tags={"mirage/project": f.project},
        )
        for f in files
        if seen.get(f.key) != f.signature
    ]
    cursor = json.dumps({"files": {f.key: f.signature for f in files}}, sort_keys=True)
    return dg.SensorResult(
        run_requests=runs,
        dynamic_partitions_requests=(
            [documents_partitions.build_add_request(new_keys)] if new_keys else []
        ),
        cursor=cursor,
    )
