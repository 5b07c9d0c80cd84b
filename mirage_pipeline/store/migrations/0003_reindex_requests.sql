-- Re-index requests for a whole project (or one document), made from the Dagster UI's
-- `reindex_project` job; the documents sensor turns each into one run per document.
CREATE TABLE reindex_requests (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project       text NOT NULL,
    path          text,                      -- NULL: every document of the project
    requested_at  timestamptz NOT NULL DEFAULT now(),
    done_at       timestamptz
);
CREATE INDEX reindex_requests_open ON reindex_requests (id) WHERE done_at IS NULL;
