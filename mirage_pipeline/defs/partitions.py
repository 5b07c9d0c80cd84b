"""One dynamic partition per document, keyed `<project>/<path inside the project folder>`."""

import dagster as dg

from mirage_pipeline.names import PARTITIONS

documents_partitions = dg.DynamicPartitionsDefinition(name=PARTITIONS)
