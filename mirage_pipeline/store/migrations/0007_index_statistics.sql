-- When the pipeline last refreshed the planner statistics of `chunks` (store/statistics.py: an
-- ANALYZE in the transaction that makes a document `ready`, once enough of the table changed).
-- The query service weighs a question's words by those statistics (mirage_query/term_stats.py)
-- and reads them again as soon as `generation` moves, instead of keeping what it read for minutes.
CREATE TABLE index_statistics (
    only_row     boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    generation   bigint NOT NULL DEFAULT 0,
    analyzed_at  timestamptz
);
INSERT INTO index_statistics DEFAULT VALUES;
