-- Embeddings by (model, sha256 of the text as embedded): re-indexing an edited book embeds only
-- its changed chunks, and a document copied into a second project costs no embedding at all.
CREATE TABLE embedding_cache (
    model       text NOT NULL,
    text_hash   text NOT NULL,
    embedding   vector NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, text_hash)
);
