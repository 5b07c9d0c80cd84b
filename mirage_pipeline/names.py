"""Names the pipeline and the query service share — jobs, partitions, run tags, the bundled
model, the config file — defined once, in plain Python, so the query service and the CLI can
import them without importing Dagster."""

INDEX_JOB = "index_document"  # one document: its five assets, one partition
BATCH_JOB = "index_batch"  # many documents in one run (what the documents sensor launches)
BATCH_OP = "index_documents"  # the batch job's one step; its config lists the documents
REINDEX_JOB = "reindex_project"
PARTITIONS = "documents"  # the dynamic partitions: one per document, "<project>/<path>"

PARTITION_TAG = "dagster/partition"
MAX_RUNTIME_TAG = "dagster/max_runtime"  # Dagster's run monitoring ends a run that outlives it
PROJECT_TAG = "mirage/project"
BATCH_TAG = "mirage/batch"  # how many documents a batched run indexes
RETRY_TAG = "mirage/retry"  # the automatic retry a run is (healing.py)
REINDEX_TAG = "mirage/reindex"  # the re-index request a run answers

# `mirage up` starts the daemon with this flag: it shares the documents folder with the code
# location that scans it, so its sensor loop may wait for the folder's changes
# (dagster_wakeup.py); the Helm chart's daemon, on a pod of its own, ticks every second.
DAEMON_WATCH_FLAG = "--watch-documents"

# The bundled embedder (MIRAGE_EMBEDDER's default) and the size of its vectors.
BUNDLED_EMBEDDER = "local:multilingual-e5-small"
BUNDLED_DIMENSION = 384

# One file, one schema (README, "`.mirage.yaml`"): `project_id` tells the CLI which project a
# working folder belongs to; `indexing` in a project's documents folder sets its policy.
CONFIG_FILE = ".mirage.yaml"

# A project name miRAGe creates a folder for (the API, `mirage init`); folders made by hand may
# have other names and are indexed all the same.
PROJECT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
PROJECT_NAME_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit, up to 64"
