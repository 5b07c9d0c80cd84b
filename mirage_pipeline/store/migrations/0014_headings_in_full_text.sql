-- A passage's headings are words of it for full-text search (the title field of BM25F). A
-- chunk under "Подготовка файлов для загрузки по TFTP › Настройка DHCP сервера" answering
-- "which TFTP server should I install" says "tftpd-hpa" and never "TFTP": its section's title
-- says what it is about, and the vector leg reads it already (a chunk is embedded with its
-- heading path before its text: chunking.py), the full-text leg did not. `tsv` now also holds
-- the lexemes of the chunk's heading path (`structure -> 'heading_path'`, its JSON text: the
-- parser skips the brackets and quotes), in the chunk's own configuration, after its text's,
-- at the text's weight: a heading word counts as one more occurrence, and a word in the title
-- of a chapter of hundreds of chunks is as common as that makes it (its idf says so).
-- Dev eval (2026-12-02, 536 questions), hybrid recall@5 / @10 / MRR@10: all 0.875 / 0.942 /
-- 0.762 → 0.886 / 0.948 / 0.765, Russian 0.857 / 0.930 / 0.734 → 0.864 / 0.934 / 0.735,
-- English 0.898 / 0.957 / 0.798 → 0.915 / 0.966 / 0.805; text-only 0.771 / 0.836 / 0.633 →
-- 0.782 / 0.840 / 0.644. At twice the text's weight ('C'), hybrid MRR@10 fell (0.753): a
-- section's every chunk outranked the one the question is about.
--
-- The column is rebuilt as 0008 did (portable: no ALTER … SET EXPRESSION before PostgreSQL
-- 17), kept in the row as 0010 made it (the table rewritten once more), and its statistics
-- taken again for the service's term weights (0007). At 100 000 chunks: minutes; searches wait.
DROP INDEX chunks_tsv_idx;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (
        to_tsvector(mirage_text_config(lang), content)
        || to_tsvector(mirage_text_config(lang), mirage_compound_parts(content))
        || to_tsvector(mirage_text_config(lang), coalesce(structure ->> 'heading_path', ''))
    ) STORED;
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE MAIN, ALTER COLUMN tsv SET STATISTICS 1000;
CLUSTER chunks USING chunks_pkey;
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv) WITH (gin_pending_list_limit = 256);  -- 0012
ANALYZE chunks;
UPDATE index_statistics SET generation = generation + 1, analyzed_at = now()
WHERE EXISTS (SELECT 1 FROM chunks);
