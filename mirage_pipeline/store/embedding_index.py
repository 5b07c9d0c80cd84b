"""One embedding model's index: which chunk vectors belong to it and how they are stored."""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql


@dataclass(frozen=True)
class EmbeddingIndex:
    """One model's index: its chunks carry `id` in `chunks.index_id`."""

    id: int
    model: str
    dimension: int
    vector_form: str | None = None  # how stored vectors are transformed (store/vector_forms.py)

    @property
    def hnsw_name(self) -> str:
        return f"chunks_embedding_{self.id}_hnsw"

    @property
    def parts_hnsw_name(self) -> str:
        return f"chunk_parts_embedding_{self.id}_hnsw"

    def vector_type(self) -> sql.Composable:
        """`vector(<dimension>)`, the cast the partial HNSW index is built on."""
        return sql.SQL("vector({})").format(sql.Literal(self.dimension))

    def halfvec_type(self) -> sql.Composable:
        """`halfvec(<dimension>)`, the cast the windows' partial HNSW index is built on."""
        return sql.SQL("halfvec({})").format(sql.Literal(self.dimension))
