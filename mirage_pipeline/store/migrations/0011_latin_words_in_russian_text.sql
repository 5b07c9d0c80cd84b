-- In Russian text, a Latin word is a command, an option or a name, never grammar: keep it.
--
-- PostgreSQL's `russian` configuration stems Latin words with `english_stem`, whose stop words
-- (why, all, only, up, down, for, do, no, …) it drops. In a Russian manual those are the
-- telling words: `aptitude why`, `--all`, `docker compose up`, a `for` loop. "aptitude why
-- зачем установлен пакет" kept only `aptitud` and the Russian words, and the passage on
-- `why` was not among the first 40 of either leg. `mirage_russian` is `russian` with its
-- Latin words stemmed by a snowball English dictionary without stop words; Cyrillic words
-- keep Russian stemming and stop words. English text keeps `english` as it was: there, "why"
-- and "all" are mostly prose. A Russian question keeps its Latin words the same way
-- (mirage_query/search.py asks the question's own configuration which words it drops).
CREATE TEXT SEARCH DICTIONARY mirage_english_words (TEMPLATE = pg_catalog.snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION mirage_russian (COPY = pg_catalog.russian);
ALTER TEXT SEARCH CONFIGURATION mirage_russian
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart WITH mirage_english_words;

-- Named with its schema: ANALYZE and autovacuum evaluate the (document, configuration) index's
-- expression with a search_path of pg_catalog only.
DO $migration$ BEGIN EXECUTE format($function$
CREATE OR REPLACE FUNCTION mirage_text_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE lang
        WHEN 'ru' THEN %L::regconfig
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
$$$function$, quote_ident(current_schema()) || '.mirage_russian'); END $migration$;
-- The Russian chunks' `tsv` and their (document, configuration) index entries, computed again:
-- an UPDATE recomputes a stored generated column from the columns it reads. Other rows map
-- to the configuration they mapped to before.
UPDATE chunks SET lang = lang WHERE lang = 'ru';
ANALYZE chunks;
UPDATE index_statistics SET generation = generation + 1, analyzed_at = now()
WHERE EXISTS (SELECT 1 FROM chunks WHERE lang = 'ru');
