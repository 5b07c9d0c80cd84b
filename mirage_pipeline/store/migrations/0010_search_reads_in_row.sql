-- Two things a full-text search does on every chunk it matches, made cheap.
--
-- 1. `mirage_text_config` again, with the same mapping, its results written as regconfig
--    constants. The old body cast text to regconfig on each call, a cast PostgreSQL does not
--    count as immutable, so the function was never inlined and ran as a SQL function per row:
--    about 6 µs each (measured on 1,300 matches at 100 000 chunks: 18 ms against 10 ms).
--    Inlined, it is a CASE expression. Stored `tsv` values and the (document, language) index
--    stay valid: every language maps to the configuration it mapped to before.
CREATE OR REPLACE FUNCTION mirage_text_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE lang
        WHEN 'ru' THEN 'pg_catalog.russian'::regconfig
        WHEN 'en' THEN 'pg_catalog.english'::regconfig
        WHEN 'de' THEN 'pg_catalog.german'::regconfig
        WHEN 'fr' THEN 'pg_catalog.french'::regconfig
        WHEN 'es' THEN 'pg_catalog.spanish'::regconfig
        WHEN 'pt' THEN 'pg_catalog.portuguese'::regconfig
        WHEN 'it' THEN 'pg_catalog.italian'::regconfig
        WHEN 'nl' THEN 'pg_catalog.dutch'::regconfig
        WHEN 'sv' THEN 'pg_catalog.swedish'::regconfig
        WHEN 'no' THEN 'pg_catalog.norwegian'::regconfig
        WHEN 'nb' THEN 'pg_catalog.norwegian'::regconfig
        WHEN 'da' THEN 'pg_catalog.danish'::regconfig
        WHEN 'fi' THEN 'pg_catalog.finnish'::regconfig
        WHEN 'hu' THEN 'pg_catalog.hungarian'::regconfig
        WHEN 'ro' THEN 'pg_catalog.romanian'::regconfig
        WHEN 'tr' THEN 'pg_catalog.turkish'::regconfig
        WHEN 'ca' THEN 'pg_catalog.catalan'::regconfig
        WHEN 'eu' THEN 'pg_catalog.basque'::regconfig
        WHEN 'el' THEN 'pg_catalog.greek'::regconfig
        WHEN 'lt' THEN 'pg_catalog.lithuanian'::regconfig
        WHEN 'id' THEN 'pg_catalog.indonesian'::regconfig
        WHEN 'ga' THEN 'pg_catalog.irish'::regconfig
        WHEN 'sr' THEN 'pg_catalog.serbian'::regconfig
        WHEN 'hy' THEN 'pg_catalog.armenian'::regconfig
        WHEN 'ar' THEN 'pg_catalog.arabic'::regconfig
        WHEN 'hi' THEN 'pg_catalog.hindi'::regconfig
        WHEN 'ne' THEN 'pg_catalog.nepali'::regconfig
        WHEN 'ta' THEN 'pg_catalog.tamil'::regconfig
        WHEN 'yi' THEN 'pg_catalog.yiddish'::regconfig
        ELSE 'pg_catalog.simple'::regconfig
    END)
$$;
-- 2. The tsvectors stay in the row (MAIN: compressed if need be, moved out of line only when a
--    row would not fit a page). Out of line (TOAST, where PostgreSQL put most of them beside a
--    long chunk's text), each `@@` and `ts_rank` on a candidate fetched and copied the value
--    again: the text leg runs ~20 per candidate. The chunk's text, read for the few results
--    only, is what moves out of line instead. CLUSTER rewrites the table once, so the rows
--    already indexed are stored so too (it rebuilds the table's indexes: on 100 000 chunks,
--    about 1.5 minutes; searches wait for it).
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE MAIN, ALTER COLUMN lemma_tsv SET STORAGE MAIN;
CLUSTER chunks USING chunks_pkey;
