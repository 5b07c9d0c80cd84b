"""miRAGe's query side: the Litestar search service and the `mirage` CLI. Never imports Dagster."""
