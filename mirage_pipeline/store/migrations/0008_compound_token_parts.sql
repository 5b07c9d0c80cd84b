-- PostgreSQL's text parser keeps a file name, a path, a host or an e-mail address whole:
-- `changelog.Debian`, `/etc/apt/sources.list`, `debian/control` are one lexeme each, so a
-- question about "the changelog" or "sources.list" never matched the passage naming
-- `changelog.Debian` or `/etc/apt/sources.list`. `tsv` now also holds the words inside such
-- tokens (`mirage_compound_parts`: the parser's host, file, url_path and email tokens cut at
-- every non-alphanumeric character, in order; pieces of one character or without a letter
-- dropped), stemmed in the chunk's own configuration, after the text's own lexemes. The whole
-- token is still there (websearch syntax written with it matches it; a dotted word of a
-- question, `sources.list`, is looked for whole and by its words: mirage_query/search.py).
-- A word inside a path counts as a word for websearch syntax too (`-apt` excludes
-- `/etc/apt/…`), and the pieces follow the text, so a quoted phrase may join the text's last
-- word with a path's first piece.
-- 3722 is the built-in `default` parser: by its oid, ts_parse and ts_token_type are immutable.
CREATE FUNCTION mirage_compound_parts(content text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(p.part, ' ' ORDER BY t.n, p.m), '')
    FROM ts_parse(3722, content) WITH ORDINALITY AS t(tokid, token, n)
    JOIN ts_token_type(3722) AS k ON k.tokid = t.tokid
    CROSS JOIN LATERAL regexp_split_to_table(t.token, '[^[:alnum:]]+') WITH ORDINALITY AS p(part, m)
    WHERE k.alias IN ('host', 'file', 'url_path', 'email')
      AND length(p.part) > 1 AND p.part ~ '[[:alpha:]]'
$$;

DROP INDEX chunks_tsv_idx;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (
        to_tsvector(mirage_text_config(lang), content)
        || to_tsvector(mirage_text_config(lang), mirage_compound_parts(content))
    ) STORED;
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
ALTER TABLE chunks ALTER COLUMN tsv SET STATISTICS 1000;
-- the column is new: its statistics (the query service's term weights) are taken now, and the
-- service reads them at once (0007); an empty index has none to take
ANALYZE chunks;
UPDATE index_statistics SET generation = generation + 1, analyzed_at = now()
WHERE EXISTS (SELECT 1 FROM chunks);
