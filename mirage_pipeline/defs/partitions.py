"""One dynamic partition per document, keyed `<project>/<path inside the project folder>`."""

import dagster as dg

documents_partitions = dg.DynamicPartitionsDefinition(name="documents")
