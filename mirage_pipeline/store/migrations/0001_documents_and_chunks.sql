-- Projects, documents, chunks and the embedding indexes.
--
-- Each embedding model gets its own index: a row in embedding_indexes, its chunks tagged with
-- its index_id, and a partial HNSW index over `embedding::vector(<dimension>)` for that id
-- (created by schema.bind_embedding_index once the embedder's dimension is known). Switching
-- MIRAGE_EMBEDDER builds a second index beside the first; vectors of two models never meet.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE embedding_indexes (
    id          smallint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model       text NOT NULL UNIQUE,
    dimension   integer NOT NULL CHECK (dimension > 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    path          text NOT NULL,            -- relative to the project folder, '/'-separated
    file_type     text NOT NULL,
    content_hash  text,                     -- sha256 of the file's bytes
    size_bytes    bigint,
    status        text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'indexing', 'ready', 'error')),
    error_message text,
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    chunk_count   integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    indexed_at    timestamptz,
    UNIQUE (project_id, path)
);

CREATE TABLE chunks (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    index_id      smallint NOT NULL REFERENCES embedding_indexes (id) ON DELETE CASCADE,
    document_id   uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    position      integer NOT NULL,
    content       text NOT NULL,
    structure     jsonb NOT NULL DEFAULT '{}'::jsonb,
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    content_hash  text NOT NULL,
    lang          text NOT NULL DEFAULT 'other',
    tsv           tsvector GENERATED ALWAYS AS (
                      to_tsvector(
                          CASE lang
                              WHEN 'ru' THEN 'russian'::regconfig
                              WHEN 'en' THEN 'english'::regconfig
                              ELSE 'simple'::regconfig
                          END,
                          content)
                  ) STORED,
    embedding     vector NOT NULL,          -- of embedding_indexes(index_id).dimension
    UNIQUE (document_id, index_id, position)
);

CREATE INDEX chunks_project_idx ON chunks (project_id, index_id);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX documents_project_idx ON documents (project_id, status);
