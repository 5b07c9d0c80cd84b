-- A level-1 section that holds the whole book is no longer cited as every passage's chapter
-- (chunking.py, `_book_wrapper`): re-index every project that has chunks, so documents indexed
-- before cite the heading below it too. The documents sensor turns each request into runs;
-- embeddings of unchanged text come from the cache, and unchanged chunk rows only take their
-- new `structure`.
INSERT INTO reindex_requests (project)
SELECT p.name FROM projects p WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.project_id = p.id);
