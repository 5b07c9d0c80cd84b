"""How the documents sensor groups documents into batched runs."""

from mirage_pipeline.defs.batch import Wanted, batch_requests
from mirage_pipeline.names import BATCH_JOB, BATCH_OP, BATCH_TAG, PROJECT_TAG
from mirage_pipeline.settings import Settings

MB = 1024 * 1024


def settings(documents: int = 50, megabytes: int = 16) -> Settings:
    return Settings.from_env(
        {"MIRAGE_BATCH_DOCUMENTS": str(documents), "MIRAGE_BATCH_MB": str(megabytes)}
    )


def keys(request) -> list[str]:
    return request.run_config["ops"][BATCH_OP]["config"]["documents"]


def test_a_folder_of_notes_becomes_even_runs_within_the_limit():
    wanted = [Wanted(f"vault/note{i:03}.md", f"t{i}", 2_000) for i in range(101)]
    requests = batch_requests(wanted, settings(documents=50))
    assert [len(keys(r)) for r in requests] == [34, 34, 33]
    assert [k for r in requests for k in keys(r)] == [w.key for w in wanted]  # each once, in order
    assert all(r.job_name == BATCH_JOB for r in requests)
    assert [r.tags[BATCH_TAG] for r in requests] == ["34", "34", "33"]
    assert len({r.run_key for r in requests}) == 3


def test_projects_never_share_a_run_and_a_big_file_runs_alone():
    wanted = [
        Wanted("books/a.pdf", "a", 20 * MB),
        Wanted("notes/x.md", "x", 1_000),
        Wanted("books/b.md", "b", 1_000),
        Wanted("books/c.md", "c", 1_000),
    ]
    requests = batch_requests(wanted, settings(megabytes=16))
    assert [keys(r) for r in requests] == [
        ["books/a.pdf"],
        ["books/b.md", "books/c.md"],
        ["notes/x.md"],
    ]
    assert [r.tags[PROJECT_TAG] for r in requests] == ["books", "books", "notes"]


def test_run_keys_change_with_what_is_asked_and_tags_say_why():
    first = batch_requests([Wanted("p/a.md", "p/a.md@1")], settings())
    same = batch_requests([Wanted("p/a.md", "p/a.md@1")], settings())
    edited = batch_requests([Wanted("p/a.md", "p/a.md@2", tags={"mirage/retry": "2"})], settings())
    assert first[0].run_key == same[0].run_key != edited[0].run_key
    assert edited[0].tags["mirage/retry"] == "2"
    assert batch_requests([], settings()) == []


def test_batch_limits_come_from_the_environment():
    s = settings(documents=7, megabytes=3)
    assert (s.batch_documents, s.batch_bytes) == (7, 3 * MB)
    default = Settings.from_env({})
    assert (default.batch_documents, default.batch_bytes) == (100, 16 * MB)
