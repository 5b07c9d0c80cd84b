-- Re-indexing a changed document keeps its unchanged chunks in place and moves the others to
-- their new positions in one statement; positions may collide until that statement ends.
ALTER TABLE chunks DROP CONSTRAINT chunks_document_id_index_id_position_key;
ALTER TABLE chunks ADD CONSTRAINT chunks_document_id_index_id_position_key
    UNIQUE (document_id, index_id, position) DEFERRABLE INITIALLY IMMEDIATE;
