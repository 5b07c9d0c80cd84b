-- Which text-search configurations each document's chunks are in: hybrid search asks, for the
-- few documents its vector candidates come from, whether the document holds any text in the
-- query's language at all (a question in Russian about an English book: the full-text leg
-- cannot match that book, so it abstains there instead of counting as a miss).
CREATE INDEX chunks_document_language_idx ON chunks (document_id, mirage_text_config(lang));
