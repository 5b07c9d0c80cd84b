-- Full-text search in each chunk's own language and on Russian lemmas beside the stems;
-- sentence windows of each chunk for the vector leg.
--
-- `mirage_text_config` maps a chunk's language code (ISO 639-1) to PostgreSQL's snowball
-- configuration for it ('simple' for a language PostgreSQL has none for); `tsv` is rebuilt on
-- it. `lemmas` holds the dictionary forms of a chunk's Cyrillic words (mirage_pipeline.morphology:
-- люди → человек, шёл → идти), written by the pipeline; `lemma_tsv` indexes them as they are.
CREATE FUNCTION mirage_text_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE lang
        WHEN 'ru' THEN 'pg_catalog.russian'
        WHEN 'en' THEN 'pg_catalog.english'
        WHEN 'de' THEN 'pg_catalog.german'
        WHEN 'fr' THEN 'pg_catalog.french'
        WHEN 'es' THEN 'pg_catalog.spanish'
        WHEN 'pt' THEN 'pg_catalog.portuguese'
        WHEN 'it' THEN 'pg_catalog.italian'
        WHEN 'nl' THEN 'pg_catalog.dutch'
        WHEN 'sv' THEN 'pg_catalog.swedish'
        WHEN 'no' THEN 'pg_catalog.norwegian'
        WHEN 'nb' THEN 'pg_catalog.norwegian'
        WHEN 'da' THEN 'pg_catalog.danish'
        WHEN 'fi' THEN 'pg_catalog.finnish'
        WHEN 'hu' THEN 'pg_catalog.hungarian'
        WHEN 'ro' THEN 'pg_catalog.romanian'
        WHEN 'tr' THEN 'pg_catalog.turkish'
        WHEN 'ca' THEN 'pg_catalog.catalan'
        WHEN 'eu' THEN 'pg_catalog.basque'
        WHEN 'el' THEN 'pg_catalog.greek'
        WHEN 'lt' THEN 'pg_catalog.lithuanian'
        WHEN 'id' THEN 'pg_catalog.indonesian'
        WHEN 'ga' THEN 'pg_catalog.irish'
        WHEN 'sr' THEN 'pg_catalog.serbian'
        WHEN 'hy' THEN 'pg_catalog.armenian'
        WHEN 'ar' THEN 'pg_catalog.arabic'
        WHEN 'hi' THEN 'pg_catalog.hindi'
        WHEN 'ne' THEN 'pg_catalog.nepali'
        WHEN 'ta' THEN 'pg_catalog.tamil'
        WHEN 'yi' THEN 'pg_catalog.yiddish'
        ELSE 'pg_catalog.simple'
    END)::regconfig
$$;

DROP INDEX chunks_tsv_idx;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN lemmas text;
ALTER TABLE chunks ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector(mirage_text_config(lang), content)) STORED;
ALTER TABLE chunks ADD COLUMN lemma_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('pg_catalog.simple'::regconfig, coalesce(lemmas, ''))) STORED;
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX chunks_lemma_tsv_idx ON chunks USING gin (lemma_tsv);
-- The full-text leg weighs lexemes by how many chunks hold them (pg_stats.most_common_elems):
-- keep ten thousand of them, not a thousand.
ALTER TABLE chunks ALTER COLUMN tsv SET STATISTICS 1000;
ALTER TABLE chunks ALTER COLUMN lemma_tsv SET STATISTICS 1000;

-- Sentence windows of each chunk (mirage_pipeline.chunk_parts), embedded beside it in the same
-- model's index: search matches them and returns their chunk. Half precision is plenty for
-- ranking and halves their size; each model's windows get a partial HNSW index over
-- `embedding::halfvec(<dimension>)` (schema.bind_embedding_index).
CREATE TABLE chunk_parts (
    chunk_id    bigint NOT NULL REFERENCES chunks (id) ON DELETE CASCADE,
    part        smallint NOT NULL,
    index_id    smallint NOT NULL REFERENCES embedding_indexes (id) ON DELETE CASCADE,
    project_id  uuid NOT NULL,
    embedding   halfvec NOT NULL,
    PRIMARY KEY (chunk_id, part)
);

-- Chunks written before have no lemmas and no windows: re-index every project that has
-- chunks (the documents sensor turns each request into runs; embeddings of unchanged text come
-- from the cache).
INSERT INTO reindex_requests (project)
SELECT p.name FROM projects p WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = p.id);

-- How an index's vectors are stored (embedders/centering.py): NULL is as the model gives them.
ALTER TABLE embedding_indexes ADD COLUMN vector_form text;
