-- A document's title is words of each of its passages for full-text search, as its headings
-- are (0014): a question naming the product a README is about ("what must be installed for
-- documents on disser to build") matches that README's answer passage, which never repeats the
-- name, while every other passage of it does; before, the full-text leg's pool never held it.
-- `tsv` also holds the lexemes of the chunk's `structure -> 'book'` (the document's title, or
-- its file name without one), in the chunk's own configuration, at the text's weight: the title
-- is in every chunk of its document, and its idf says how common that makes its words. The
-- vector leg read it already: a chunk is embedded behind its book's title and heading path.
-- Dev eval (2026-12-04, 664 questions), hybrid recall@1 / @5 / @10 / MRR@10: all 0.664 / 0.886 /
-- 0.929 / 0.759 → 0.664 / 0.890 / 0.934 / 0.760; Russian 0.655 / 0.869 / 0.911 / 0.744 → 0.658
-- / 0.872 / 0.919 / 0.747; English 0.678 / 0.911 / 0.957 / 0.782 → 0.674 / 0.919 / 0.957 /
-- 0.782; recall@5 and @10 up or the same on each of the five held-out sets (recall@1 of the
-- first 0.669 → 0.661), the tuning set's recall@5 0.867 → 0.859. 27 questions moved, 14 up.
--
-- Rebuilt as 0014 did; at 100 000 chunks: minutes, searches wait.
DROP INDEX chunks_tsv_idx;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (
        to_tsvector(mirage_text_config(lang), content)
        || to_tsvector(mirage_text_config(lang), mirage_compound_parts(content))
        || to_tsvector(mirage_text_config(lang), coalesce(structure ->> 'heading_path', ''))
        || to_tsvector(mirage_text_config(lang), coalesce(structure ->> 'book', ''))
    ) STORED;
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE MAIN, ALTER COLUMN tsv SET STATISTICS 1000;
CLUSTER chunks USING chunks_pkey;
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv) WITH (gin_pending_list_limit = 256);  -- 0012
ANALYZE chunks;
UPDATE index_statistics SET generation = generation + 1, analyzed_at = now()
WHERE EXISTS (SELECT 1 FROM chunks);
