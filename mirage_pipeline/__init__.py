"""miRAGe ingestion: documents folder → parsed tree → chunks → embeddings → pgvector.

The modules at this level are plain Python (no Dagster) so the query service can import the
settings, the store and the embedders. The Dagster layer lives in `definitions` and `defs/`.
"""
