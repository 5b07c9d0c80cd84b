-- Projects, documents and chunks. The embedding column is added by bind_embedding_index(),
-- once the configured embedder's dimension is known (see schema.py).
CREATE EXTENSION IF NOT EXISTS vector;

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
    UNIQUE (document_id, position)
);

CREATE INDEX chunks_project_idx ON chunks (project_id);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX documents_project_idx ON documents (project_id, status);

-- Which embedding model filled the `embedding` column; one row, written once.
CREATE TABLE embedding_index (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    model       text NOT NULL,
    dimension   integer NOT NULL CHECK (dimension > 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);
