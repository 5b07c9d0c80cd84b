-- The full-text indexes' pending lists kept short, so a search does not read through megabytes
-- of them.
--
-- A GIN index with fastupdate (the default) appends new entries to a pending list and merges
-- them into its tree when the list passes gin_pending_list_limit (4 MB) or a vacuum runs; until
-- then every search reads the whole list. Indexing fills it between merges, and a search's
-- full-text leg read up to ~4 MB of it in each of the two indexes: at 100 000 chunks, the
-- leg's bitmap index scans took 8–18 ms of its ~24 (EXPLAIN ANALYZE), ~9 ms for the whole leg
-- once the lists were merged. At 256 kB the inserting run merges sixteen times as often, each
-- merge a sixteenth as long, and a search reads at most that much.
ALTER INDEX chunks_tsv_idx SET (gin_pending_list_limit = 256);
ALTER INDEX chunks_lemma_tsv_idx SET (gin_pending_list_limit = 256);
SELECT gin_clean_pending_list('chunks_tsv_idx'::regclass);
SELECT gin_clean_pending_list('chunks_lemma_tsv_idx'::regclass);
