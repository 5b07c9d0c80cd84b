"""The query service's reads of projects, documents and their chunks (search has its own,
`search.py` and `search_sql.py`); every write goes through `mirage_pipeline.store`."""

from __future__ import annotations

from uuid import UUID

from psycopg import AsyncConnection

from mirage_query.schemas import ChunkInfo, ChunkPage, DocumentInfo, ProjectInfo

_DOCUMENT_COLUMNS = (
    "d.id, d.path, d.file_type, d.status, d.error_message, d.chunk_count, d.size_bytes,"
    " d.indexed_at, d.updated_at, d.metadata ->> 'title', d.metadata -> 'warnings'"
)
_PROJECTS = """
SELECT p.name, count(d.id), coalesce(sum(d.chunk_count), 0),
       count(d.id) FILTER (WHERE d.status = 'ready'),
       count(d.id) FILTER (WHERE d.status IN ('pending', 'indexing')),
       count(d.id) FILTER (WHERE d.status = 'error')
FROM projects p LEFT JOIN documents d ON d.project_id = p.id
{where}
GROUP BY p.name ORDER BY p.name
"""
_DOCUMENT = f"""
SELECT {_DOCUMENT_COLUMNS} FROM documents d JOIN projects p ON p.id = d.project_id
WHERE d.id = %s AND p.name = %s
"""
_DOCUMENTS = f"SELECT {_DOCUMENT_COLUMNS} FROM documents d WHERE d.project_id = %s ORDER BY d.path"
_CHUNK_COUNT = "SELECT count(*) FROM chunks WHERE document_id = %s AND index_id = %s"
_CHUNKS = """
SELECT id, position, content, structure, metadata, lang FROM chunks
WHERE document_id = %s AND index_id = %s ORDER BY position OFFSET %s LIMIT %s
"""


_PATHS = "SELECT id::text, path FROM documents WHERE project_id = %s"
_SIZES = """
SELECT d.path, d.size_bytes FROM documents d JOIN projects p ON p.id = d.project_id
WHERE p.name = %s
"""


async def document_paths(conn: AsyncConnection, project_id: UUID) -> list[tuple[str, str]]:
    """(id, path) of each document of the project."""
    return await (await conn.execute(_PATHS, (project_id,))).fetchall()


async def document_sizes(conn: AsyncConnection, project: str) -> dict[str, int | None]:
    """Each document of the project by path, with the size of the file it was indexed from."""
    return dict(await (await conn.execute(_SIZES, (project,))).fetchall())


def _document(row: tuple) -> DocumentInfo:
    return DocumentInfo(
        id=str(row[0]),
        filename=row[1],
        file_type=row[2],
        status=row[3],
        error=row[4],
        chunk_count=row[5],
        size_bytes=row[6],
        indexed_at=row[7],
        updated_at=row[8],
        title=row[9],
        warnings=row[10] if isinstance(row[10], list) else [],
    )


async def projects(conn: AsyncConnection) -> list[ProjectInfo]:
    """Every project with a row, with its document counts by status."""
    rows = await (await conn.execute(_PROJECTS.format(where=""))).fetchall()
    return [ProjectInfo(*row) for row in rows]


async def project(conn: AsyncConnection, name: str) -> ProjectInfo | None:
    """One project's document counts by status (None: no row)."""
    cur = await conn.execute(_PROJECTS.format(where="WHERE p.name = %s"), (name,))
    row = await cur.fetchone()
    return ProjectInfo(*row) if row else None


async def project_id(conn: AsyncConnection, name: str) -> UUID | None:
    row = await (await conn.execute("SELECT id FROM projects WHERE name = %s", (name,))).fetchone()
    return row[0] if row else None


async def document(conn: AsyncConnection, project: str, document_id: UUID) -> DocumentInfo | None:
    """One document of `project` (None if it has no such document: never another project's)."""
    row = await (await conn.execute(_DOCUMENT, (document_id, project))).fetchone()
    return _document(row) if row else None


async def documents(conn: AsyncConnection, project_id: UUID) -> list[DocumentInfo]:
    return [
        _document(row) for row in await (await conn.execute(_DOCUMENTS, (project_id,))).fetchall()
    ]


async def chunk_page(
    conn: AsyncConnection, document_id: UUID, index_id: int | None, offset: int, limit: int
) -> ChunkPage:
    """A page of a document's chunks in one index, in reading order."""
    (total,) = await (await conn.execute(_CHUNK_COUNT, (document_id, index_id))).fetchone()
    cur = await conn.execute(_CHUNKS, (document_id, index_id, offset, limit))
    items = [ChunkInfo(*row) for row in await cur.fetchall()]
    return ChunkPage(total=total, offset=offset, limit=limit, items=items)
