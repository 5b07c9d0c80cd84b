"""Hybrid search against a real PostgreSQL: modes, fusion, lemmas, windows, filters, expand,
batch, isolation."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient
from psycopg import sql

from mirage_pipeline.chunk_parts import chunk_parts
from mirage_pipeline.embedders.centering import FORM, center_passages, center_query
from mirage_pipeline.store import prepare_database
from mirage_pipeline.store.connections import connect
from mirage_query.app import create_app
from mirage_query.schemas import Filters
from mirage_query.search import (
    VECTOR_FLOOR,
    VECTOR_SPREAD,
    QueryTerms,
    SearchPlan,
    search_params,
)
from mirage_query.search_run import _array
from mirage_query.search_sql import build_leg_sql
from mirage_query.settings import ServiceSettings
from tests.support.dictionary import write_dictionary
from tests.support.seed import Passage, write_document

pytestmark = pytest.mark.integration

CODE = "ERR_CONN_RESET_4471"
RUNBOOK = {"tags": ["ops", "network"], "type": "runbook"}
GUIDE = [
    Passage(
        "Download the installer from the releases page and verify its checksum.",
        "Install",
        metadata=RUNBOOK,
    ),
    Passage(
        "Run the installer as an ordinary user; it never needs root privileges.",
        "Install",
        metadata=RUNBOOK,
    ),
    Passage(
        "After installing, start the daemon and open the dashboard in a browser.",
        "Install",
        metadata=RUNBOOK,
    ),
    Passage(
        f"When the proxy drops idle sockets the client logs {CODE}; raise the keepalive.",
        "Errors",
        metadata=RUNBOOK,
    ),
]
SPACE = [
    Passage(
        "Сутки на Марсе длятся примерно двадцать четыре часа и сорок минут.",
        "Марс",
        "ru",
        {"tags": ["space"], "type": "note"},
    ),
    Passage(
        "Луна — единственный естественный спутник Земли, до неё около 384 тысяч километров.",
        "Луна",
        "ru",
        {"tags": ["space"], "type": "note"},
    ),
]
GARDEN = [Passage("Tomatoes need at least six hours of direct sunlight every day.", "Tomatoes")]
PEOPLE = Passage("Каждый человек шёл домой по мокрой дороге.", "Дорога", "ru")
# a long passage about one thing, with one sentence about another at its end
LONG = Passage(
    " ".join(
        f"Step {i} of the harbour survey measures the depth of the channel with a weighted line"
        " and records it in the logbook together with the tide."
        for i in range(1, 9)
    )
    + " The old lighthouse at the end of the pier was painted bright red in 1923.",
    "Harbour survey",
)


@pytest.fixture
async def seeded(database_url: str, local_embedder, tmp_path: Path):
    ids = {
        "guide": write_document(
            database_url, local_embedder, "library", "guide.md", [*GUIDE, LONG]
        ),
        "space": write_document(
            database_url, local_embedder, "library", "space.md", [*SPACE, PEOPLE]
        ),
        "garden": write_document(
            database_url, local_embedder, "library", "garden.pdf", GARDEN, file_type="pdf"
        ),
        "other": write_document(
            database_url,
            local_embedder,
            "other",
            "secret.md",
            [Passage(f"The secret project also logs {CODE} about tomatoes and Mars.", "Secret")],
        ),
    }
    # a dictionary without these words: the fusion's arithmetic here is without translated
    # terms (test_cross_language.py covers those)
    dictionary = write_dictionary(tmp_path / "empty.dict", "")
    # an odd query of 8,000 characters is 4 windows of the float32 graph: ~4.5 s on a slow
    # hour's machine, over the service's 4 s default; the seeded tests check answers, not speed
    env = {"MIRAGE_HOME": str(tmp_path), "MIRAGE_QUERY_EMBED_TIMEOUT": "60"}
    settings = ServiceSettings.from_env(env).with_overrides(
        database_url=database_url, api_keys=("k",), dictionary=dictionary
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        yield client, ids


def vector_scaled(similarity: float, sims: list[float], minimum: float = VECTOR_SPREAD) -> float:
    """The vector leg's share in the fusion: scaled from its last candidate (VECTOR_FLOOR /
    (1 + VECTOR_FLOOR)) to its best (1), over a spread of at least `minimum`."""
    low, spread = min(sims), max(max(sims) - min(sims), minimum)
    return (similarity - low + VECTOR_FLOOR * spread) / ((1 + VECTOR_FLOOR) * spread)


async def project_id(conn, name: str) -> uuid.UUID:
    (found,) = await (
        await conn.execute("SELECT id FROM projects WHERE name = %s", (name,))
    ).fetchone()
    return found


async def search(client, body, project="library", status=200):
    response = await client.post(
        f"/api/v1/projects/{project}/search", json=body, headers={"X-API-Key": "k"}
    )
    assert response.status_code == status, response.text
    return response.json()


async def test_text_mode_finds_an_exact_code_and_highlights_it(seeded):
    client, _ = seeded
    hits = await search(client, {"query": CODE, "mode": "text"})
    assert hits[0]["content"].endswith("raise the keepalive.")
    assert hits[0]["scores"]["text_rank"] == 1 and hits[0]["scores"]["vector_rank"] is None
    assert hits[0]["scores"]["vector"] is None
    assert any("<b>" in h for h in hits[0]["highlights"])
    assert all(h["document"]["filename"] != "secret.md" for h in hits)


async def test_text_mode_stems_russian_word_forms(seeded):
    client, _ = seeded
    hits = await search(
        client, {"query": "сколько длится марсианские сутки на Марсе", "mode": "text"}
    )
    assert hits and "Марсе" in hits[0]["content"]


async def test_a_question_with_or_and_flags_is_still_a_question(seeded):
    """'or' and '-v' in a question are words, not operators that empty the full-text leg (as
    websearch_to_tsquery alone would: no passage holds 'want' and 'admin')."""
    client, _ = seeded
    hits = await search(
        client, {"query": "does the installer want root or admin rights -v", "mode": "text"}
    )
    assert hits and hits[0]["content"].startswith("Run the installer as an ordinary user")


async def test_what_matches_the_syntax_as_written_ranks_first_and_the_rest_stays(seeded):
    """websearch syntax re-ranks: the passages matching `installer -root` come first, the
    one about root stays in the result."""
    client, _ = seeded
    plain = await search(client, {"query": "installer root", "mode": "text"})
    assert plain[0]["content"].startswith("Run the installer as an ordinary user")
    excluded = await search(client, {"query": "installer -root", "mode": "text"})
    assert "root" not in excluded[0]["content"] and "install" in excluded[0]["content"]
    assert any(h["content"].startswith("Run the installer") for h in excluded[1:])
    phrase = await search(client, {"query": '"the releases page" installer', "mode": "text"})
    assert phrase[0]["content"].startswith("Download the installer from the releases page")


async def test_hybrid_fuses_the_legs_scores(seeded):
    """Score-aware fusion: each leg's score scaled to its best candidate, weighted 0.6/0.4."""
    client, _ = seeded
    hits = await search(client, {"query": f"proxy keepalive {CODE}", "limit": 5})
    top = hits[0]
    assert CODE in top["content"]
    s = top["scores"]
    assert s["vector_rank"] == 1 and s["text_rank"] == 1  # the best of both legs: 0.6 + 0.4
    assert top["score"] == pytest.approx(1.0)
    assert all(0 <= h["score"] <= 1 for h in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


async def test_a_vector_leg_whose_candidates_are_all_about_as_near_weighs_less(seeded, monkeypatch):
    """The vector leg is scaled over its candidates' spread of similarity, but never a spread
    below VECTOR_SPREAD: when they are all about as near, its best is not stretched to its full
    weight. (The few passages here spread wider than the bundled model's usual minimum: the
    minimum is raised for the test.)"""
    from mirage_query import search as search_module

    client, ids = seeded
    query = {"query": "history of ancient Rome", "limit": 10}  # no passage is about it
    before = await search(client, query)
    monkeypatch.setattr(search_module, "VECTOR_SPREAD", 0.5)
    after = await search(client, query)
    english = [h for h in after if h["document"]["id"] != str(ids["space"])]
    assert all(h["scores"]["text_rank"] is None for h in after)
    sims = [h["scores"]["vector"] for h in after]
    spread = max(sims) - min(sims)
    assert spread < 0.5
    for hit in english:  # 0.6 × the vector leg's scaled share, nothing from the text leg
        scaled = vector_scaled(hit["scores"]["vector"], sims, minimum=0.5)
        assert hit["score"] == pytest.approx(0.6 * scaled, abs=1e-6)
    assert max(h["score"] for h in english) < 0.6 * (spread + 0.25) / 0.75 + 1e-6 < 0.6
    assert [h["chunk_id"] for h in after] == [h["chunk_id"] for h in before]  # same order


async def test_a_text_match_of_few_query_words_counts_for_less(seeded):
    """A full-text candidate holding little of the query's term weight (a question asked in
    another language matches a word or two) is scaled down in the fusion; one holding most of
    it is scaled to the best text candidate alone, as before."""
    client, _ = seeded
    hits = await search(client, {"query": "idle proxy sockets keepalive tomatoes", "limit": 10})
    assert len(hits) == 9  # every chunk of the project: all of them are vector candidates
    sims = [h["scores"]["vector"] for h in hits]
    best_text = max(h["scores"]["text"] or 0 for h in hits)

    def text_share(hit: dict) -> float:
        """What the text leg added, over what 0.4 × its score scaled to the best would be."""
        s = hit["scores"]
        vector = 0.6 * vector_scaled(s["vector"], sims)
        return (hit["score"] - vector) / (0.4 * s["text"] / best_text)

    errors = next(h for h in hits if CODE in h["content"])
    tomatoes = next(h for h in hits if h["content"].startswith("Tomatoes"))
    assert errors["scores"]["text_rank"] == 1 and tomatoes["scores"]["text_rank"] == 2
    assert text_share(errors) == pytest.approx(1.0)
    assert 0.2 < text_share(tomatoes) < 0.8


async def test_the_text_leg_abstains_on_documents_without_the_questions_language(seeded):
    """A Russian question about an English book: the full-text leg cannot match that book, so
    its chunks are fused on their similarity alone instead of counting a text miss as a zero,
    and a Russian passage matching a word or two of the question no longer outranks them; a
    document holding the question's language is fused from both legs as before."""
    client, ids = seeded
    hits = await search(client, {"query": "Сколько часов в сутки помидорам нужно солнца?"})
    assert len(hits) == 9  # every chunk of the project is a vector candidate
    sims = [h["scores"]["vector"] for h in hits]

    def scaled(hit: dict) -> float:
        return vector_scaled(hit["scores"]["vector"], sims)

    english = [h for h in hits if h["document"]["id"] != str(ids["space"])]
    russian = [h for h in hits if h["document"]["id"] == str(ids["space"])]
    assert len(english) == 6 and all(h["scores"]["text_rank"] is None for h in english)
    for hit in english:
        assert hit["score"] == pytest.approx(scaled(hit), abs=1e-6)
    unmatched = [h for h in russian if h["scores"]["text_rank"] is None]
    assert unmatched and any(h["scores"]["text_rank"] for h in russian)
    for hit in unmatched:
        assert hit["score"] == pytest.approx(0.6 * scaled(hit), abs=1e-6)
    assert hits[0]["content"].startswith("Tomatoes")


async def test_a_question_whose_language_is_unknown_puts_no_document_out_of_reach(seeded):
    """Words that do not tell a language (a name, an error code) are no reason to think the
    text leg blind anywhere: a Russian passage it does not match gets nothing from it."""
    client, ids = seeded
    hits = await search(client, {"query": f"Mars {CODE}"})
    assert CODE in hits[0]["content"]
    sims = [h["scores"]["vector"] for h in hits]
    russian = [h for h in hits if h["document"]["id"] == str(ids["space"])]
    assert russian and all(h["scores"]["text_rank"] is None for h in russian)
    for hit in russian:
        assert hit["score"] == pytest.approx(
            0.6 * vector_scaled(hit["scores"]["vector"], sims), abs=1e-6
        )


async def test_rrf_fusion_on_request(seeded, database_url, local_embedder, tmp_path):
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path), "MIRAGE_FUSION": "rrf"})
    settings = settings.with_overrides(database_url=database_url, api_keys=("k",))
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        hits = await search(client, {"query": f"proxy keepalive {CODE}", "limit": 5})
    s = hits[0]["scores"]
    assert CODE in hits[0]["content"] and s["vector_rank"] and s["text_rank"]
    assert hits[0]["score"] == pytest.approx(
        1 / (60 + s["vector_rank"]) + 0.4 / (60 + s["text_rank"])
    )


async def test_russian_lemmas_match_suppletive_forms(seeded):
    """Stems cannot match люди/человек or шёл/идти; lemmas (pymorphy3) can."""
    client, _ = seeded
    hits = await search(client, {"query": "куда идут люди", "mode": "text"})
    assert hits and hits[0]["content"].startswith("Каждый человек шёл")


async def test_a_sentence_inside_a_long_passage_is_matched_by_its_window(seeded, local_embedder):
    """The vector leg scores a chunk as near as its nearest part: the chunk itself or its best
    sentence window (small-to-big)."""
    client, _ = seeded
    query = "what colour was the lighthouse painted"
    hits = await search(client, {"query": query, "mode": "vector", "limit": 1})
    assert hits[0]["content"] == LONG.content
    model = local_embedder.name
    prefix = f"guide.md > {LONG.section}\n\n"
    texts = [prefix + LONG.content] + [prefix + w for w in chunk_parts(LONG.content)]
    vectors = local_embedder.embed_passages(texts)
    vectors = center_passages(vectors, ["en"] * len(texts), model, FORM)
    chunk_only, *windows = (
        center_query(local_embedder.embed_query(query), query, model, FORM) @ vectors.T
    ).tolist()
    assert len(windows) > 1 and max(windows) > chunk_only + 0.02
    # the window's similarity, not a blend with the chunk's (windows are stored as halfvec)
    assert hits[0]["scores"]["vector"] == pytest.approx(max(windows), abs=2e-3)
    # no word of the query to highlight in vector mode: the snippet is the matched window
    (window,) = hits[0]["highlights"]
    assert window in chunk_parts(LONG.content) and "painted bright red in 1923" in window
    assert not LONG.content.startswith(window)


async def test_vector_mode_scores_are_similarities(seeded):
    client, _ = seeded
    hits = await search(client, {"query": "how much sun do tomato plants need", "mode": "vector"})
    assert hits[0]["document"]["filename"] == "garden.pdf"
    assert all(
        h["score"] == h["scores"]["vector"] and h["scores"]["text_rank"] is None for h in hits
    )


async def test_threshold_applies_to_vector_similarity_in_hybrid_mode(seeded):
    client, _ = seeded
    hits = await search(client, {"query": "tomatoes sunlight", "threshold": 0.99})
    assert hits == []


@pytest.mark.parametrize(
    ("filters", "files"),
    [
        ({"tags": ["space"]}, {"space.md"}),
        ({"tags": ["network", "nothing"]}, {"guide.md"}),
        ({"types": ["note"]}, {"space.md"}),
        ({"file_types": ["pdf"]}, {"garden.pdf"}),
        ({"documents": ["garden.pdf", "space.md"]}, {"garden.pdf", "space.md"}),
        ({"tags": ["space"], "types": ["runbook"]}, set()),
        ({"tags": []}, set()),
    ],
)
async def test_filters(seeded, filters, files):
    client, _ = seeded
    for mode in ("hybrid", "vector", "text"):
        body = {"query": "Марс tomatoes installer", "mode": mode, "filters": filters}
        hits = await search(client, body)
        assert {h["document"]["filename"] for h in hits} <= files, mode
        if mode != "text":
            assert {h["document"]["filename"] for h in hits} == files, mode


async def test_filter_by_document_id_and_never_across_projects(seeded):
    client, ids = seeded
    hits = await search(client, {"query": CODE, "filters": {"documents": [str(ids["guide"])]}})
    assert hits and {h["document"]["id"] for h in hits} == {str(ids["guide"])}
    other = {"query": CODE, "filters": {"documents": [str(ids["other"])]}}
    assert "no document" in (await search(client, other, status=404))["detail"]


async def test_a_filter_names_documents_as_the_cli_does_and_never_one_it_lacks(
    database_url, local_embedder, tmp_path
):
    """filters.documents: ids, paths in the project, or a base name one document has. A name
    the project has no document for is a 404 naming it (an empty result read as "nothing
    about that"); a base name two documents share is a 400 listing their paths."""
    for path in ("shelf/atlas.md", "archive/atlas.md", "shelf/tides.md"):
        passage = Passage(f"The {path} notes chart the tides of the harbour.", "Tides")
        write_document(database_url, local_embedder, "maps", path, [passage])
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",)
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:

        async def files(documents: list[str], status: int = 200) -> object:
            body = {"query": "harbour tides", "filters": {"documents": documents}}
            found = await search(client, body, "maps", status)
            return {h["document"]["filename"] for h in found} if status == 200 else found

        assert await files(["tides.md"]) == {"shelf/tides.md"}
        assert await files(["shelf/atlas.md", "tides.md"]) == {"shelf/atlas.md", "shelf/tides.md"}
        missing = (await files(["tides.md", "atlas.pdf"], 404))["detail"]
        assert "no document 'atlas.pdf' in project 'maps'" in missing, missing
        shared = (await files(["atlas.md"], 400))["detail"]
        assert "archive/atlas.md, shelf/atlas.md" in shared, shared
        batch = await client.post(
            "/api/v1/projects/maps/search/batch",
            json={"queries": [{"query": "tides"}, {"query": "x", "filters": {"documents": ["y"]}}]},
            headers={"X-API-Key": "k"},
        )
        assert batch.status_code == 404 and "'y'" in batch.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {"query": "x", "filters": {"colour": ["red"]}},
        {"query": "x", "filters": {"tags": "ops"}},
        {"query": "x", "mode": "bm25"},
        {"query": "x", "expand": 4},
        {"query": "x", "expand": -1},
    ],
)
async def test_bad_search_options_are_400(seeded, body):
    client, _ = seeded
    detail = (await search(client, body, status=400))["detail"]
    assert detail


async def test_expand_adds_the_sections_neighbours_as_context(seeded):
    client, _ = seeded
    body = {"query": "start the daemon and open the dashboard", "limit": 1, "expand": 2}
    hits = await search(client, body)
    hit = next(h for h in hits if not h["context"])
    assert "dashboard" in hit["content"]
    context = [h for h in hits if h["context"]]
    assert {h["context_for"] for h in context} == {hit["chunk_id"]}
    # positions 0 and 1 of the Install section come before it; Errors (next section) does not
    assert [h["content"][:8] for h in hits] == ["Download", "Run the ", "After in"]
    assert all(h["structure"]["section"] == "Install" for h in hits)


async def test_batch_returns_each_query_and_a_deduplicated_union(seeded):
    client, _ = seeded
    body = {
        "queries": [
            {"query": "how much sun do tomatoes need"},
            {"query": "tomatoes sunlight hours", "mode": "text"},
            {"query": "сутки на Марсе", "limit": 1},
        ],
        "limit": 3,
    }
    response = await client.post(
        "/api/v1/projects/library/search/batch", json=body, headers={"X-API-Key": "k"}
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert len(data["results"]) == 3 and len(data["results"][2]) == 1
    ids = [h["chunk_id"] for h in data["union"]]
    assert len(ids) == len(set(ids))
    assert set(ids) == {h["chunk_id"] for r in data["results"] for h in r}
    tomato = next(h for h in data["union"] if "Tomatoes" in h["content"])
    assert tomato["queries"] == [0, 1] and data["union"][0] == tomato
    assert all(h["document"]["filename"] != "secret.md" for h in data["union"])


async def test_batch_takes_at_most_eight_queries(seeded):
    client, _ = seeded
    body = {"queries": [{"query": f"q{i}"} for i in range(9)]}
    response = await client.post(
        "/api/v1/projects/library/search/batch", json=body, headers={"X-API-Key": "k"}
    )
    assert response.status_code == 400 and "queries" in response.json()["detail"]


ODD = [
    "'; DROP TABLE chunks; --",
    "\u0000\u202e🙂",
    "хлеб & | ! ( ) :* <-> \\",
    " ",
    '"unclosed phrase',
    "-",
    "OR OR or",
    "a" * 8000,
    "%(q)s %s {vtype} $1",
]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
async def test_odd_queries_never_fail(seeded, mode):
    client, _ = seeded
    for query in ODD:
        await search(client, {"query": query, "mode": mode, "expand": 1})
    # a lone surrogate cannot be encoded by the client library: send the JSON escape itself
    response = await client.post(
        "/api/v1/projects/library/search",
        content=b'{"query": "\\ud800 lone \\udfff", "mode": "%s"}' % mode.encode(),
        headers={"X-API-Key": "k", "content-type": "application/json"},
    )
    assert response.status_code in (200, 400), response.text


def test_hybrid_statement_uses_the_models_hnsw_indexes(database_url, local_embedder):
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    project = uuid.UUID(int=0)
    vector = local_embedder.embed_query("x")
    terms = QueryTerms(
        pick="'install'",
        configs=["english"],
        lexemes=["'install'"],
        weights=[1],
    )
    with connect(database_url) as conn:
        conn.execute("SET enable_seqscan = off")
        for filters, indexes in (
            (None, {index.parts_hnsw_name}),  # every chunk has a window: one index scan
            (Filters(tags=["ops"]), {index.hnsw_name}),  # windows only re-score chunks then
        ):
            plan = SearchPlan(query="installer checksum", filters=filters)
            statement, params = build_leg_sql(index, "vector", filters)
            params |= search_params(project, plan, vector, terms)
            explain = "\n".join(r[0] for r in conn.execute(sql.SQL("EXPLAIN ") + statement, params))
            assert all(name in explain for name in indexes), explain


async def test_common_lexemes_come_from_the_statistics_and_do_not_pick_candidates(
    database_url, local_embedder, monkeypatch
) -> None:
    """A word in most chunks (by pg_stats) does not make a chunk a text candidate by itself,
    and weighs less than a rare one; a query of common words only still finds the chunks
    holding all of them."""
    import psycopg

    from mirage_query import search
    from mirage_query.search_run import search_hybrid
    from mirage_query.term_stats import IndexStats, read_index_stats

    passages = [Passage(f"Kettle note {i}: the kettle boils water.", "Kettle") for i in range(40)]
    passages.append(Passage("The samovar boils water for tea, unlike a kettle.", "Samovar"))
    write_document(database_url, local_embedder, "kitchen", "kitchen.md", passages)
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("ANALYZE chunks")
        stats = await read_index_stats(conn, min_rows=20)
        tsv = stats.column("tsv")
        assert tsv.is_common("kettl") and tsv.is_common("boil") and not tsv.is_common("samovar")
        assert tsv.idf("samovar") > 3 * tsv.idf("kettl")
        assert "english" in stats.configs and "mirage_russian" in stats.configs
        default = await read_index_stats(conn)
        assert not default.column("tsv").is_common("kettl")  # 41 chunks: nothing is common yet
        project = await project_id(conn, "kitchen")

        async def text(query: str, stats: IndexStats) -> list[str]:
            plan = SearchPlan(query=query, mode="text", limit=50)
            return [h.content for h in await search_hybrid(conn, index, project, plan, None, stats)]

        # without statistics every kettle chunk is a candidate, the samovar first (both words)
        found = await text("samovar kettle", default)
        assert len(found) == 41 and found[0] == passages[-1].content
        # with them only the samovar
        assert await text("samovar kettle", stats) == [passages[-1].content]
        # all words common: the chunks holding every one of them
        assert len(await text("kettle boils", stats)) == 41
        # unless they are more than a pick may rank: then the vector leg's alone
        monkeypatch.setattr(search, "PICK_ROWS", 30)
        assert await text("kettle boils", stats) == []
        assert await text("samovar kettle", stats) == [passages[-1].content]


async def test_a_rare_word_of_the_question_keeps_its_chunk_in_the_text_pool(
    database_url, local_embedder, monkeypatch
) -> None:
    """The full-text leg scores only a pool of its candidates, those holding the question's
    rarest terms first: the one chunk holding its rare word is not crowded out by more chunks
    than the pool holds repeating its common words."""
    import psycopg

    from mirage_query import search
    from mirage_query.search_run import search_hybrid
    from mirage_query.term_stats import read_index_stats

    # the pool: 60 (a limit of 10's candidates), its rarest terms' share 10 chunks: the
    # chunks repeating the common words outnumber both
    monkeypatch.setattr(search, "TEXT_POOL", 20)
    monkeypatch.setattr(search, "KEEP_ROWS", 10)
    passages = [
        Passage(f"Kettle {i}: the kettle boils water, water, water for the kettle.", "Kettle")
        for i in range(80)
    ]
    passages.append(Passage("The samovar stands on the table beside a kettle.", "Samovar"))
    write_document(database_url, local_embedder, "tearoom", "tearoom.md", passages)
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("ANALYZE chunks")
        stats = await read_index_stats(conn, min_rows=10_000)  # no word common: all pick
        tsv = stats.column("tsv")
        assert tsv.idf("samovar") > 2 * tsv.idf("water")
        project = await project_id(conn, "tearoom")
        plan = SearchPlan(query="samovar kettle water", mode="text", limit=10)
        params = search_params(project, plan, None)
        assert params["text_pool"] < 80  # more chunks repeat the common words than it holds
        hits = await search_hybrid(conn, index, project, plan, None, stats)
        assert hits[0].content == passages[-1].content


async def test_a_latin_word_of_a_russian_question_counts_as_much_as_a_cyrillic_one(
    database_url, local_embedder
) -> None:
    """A Cyrillic word matches by its stem and by its lemma, a Latin one (an option, a command)
    by itself alone: each of the two takes half the word's weight (LEMMA_SHARE), so the one
    passage holding the question's rare option is not outweighed by passages repeating its
    Cyrillic words twice over."""
    import psycopg

    from mirage_query.search_run import search_hybrid
    from mirage_query.term_stats import read_index_stats

    drawing = "Команды рисования рисуют линии. Каждая команда рисования рисует контур."
    passages = [Passage(f"{drawing} Пример {i}.", "Рисование", lang="ru") for i in range(12)]
    passages += [
        Passage(f"Глава {i} рассказывает о шрифтах и о переносах слов.", "Шрифты", lang="ru")
        for i in range(48)
    ]
    passages.append(Passage("Опция withoutcolor отключает запись цвета.", "Опции", lang="ru"))
    write_document(database_url, local_embedder, "metapost", "mpman.md", passages)
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("ANALYZE chunks")
        stats = await read_index_stats(conn, min_rows=10_000)  # no word common: all pick
        project = await project_id(conn, "metapost")
        plan = SearchPlan(query="withoutcolor в командах рисования", mode="text", limit=5)
        hits = await search_hybrid(conn, index, project, plan, None, stats)
    assert hits[0].content == passages[-1].content


async def test_searches_whose_legs_run_side_by_side_answer_as_one_running_them_in_turn(
    seeded, database_url, local_embedder
):
    """The routes run the full-text legs on one connection and the vector legs beside them on
    another, then fuse each query's candidates in a third statement; search_hybrid runs a
    query's legs in turn on one connection. A query alone, the same query in a batch of
    several, and search_hybrid give the same results, scores and ranks included."""
    import psycopg
    from pgvector.psycopg import register_vector_async

    from mirage_query.search_run import search_hybrid
    from mirage_query.term_stats import read_index_stats

    client, _ = seeded
    bodies = [
        {"query": "how do I install it without root"},
        {"query": "сколько длятся сутки на Марсе", "limit": 3},
        {"query": f"{CODE} keepalive", "mode": "text"},
        {"query": "red lighthouse", "mode": "vector", "expand": 1},
        {"query": '"checksum" installer', "filters": {"tags": ["ops"]}, "threshold": 0.1},
        {"query": "tomato sun"},
    ]
    response = await client.post(
        "/api/v1/projects/library/search/batch",
        json={"queries": bodies},
        headers={"X-API-Key": "k"},
    )
    assert response.status_code == 200, response.text
    in_batch = response.json()["results"]
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await register_vector_async(conn)
        stats = await read_index_stats(conn)
        library = await project_id(conn, "library")
        for body, batched in zip(bodies, in_batch, strict=True):
            alone = await search(client, body)
            assert alone and alone == batched, body
            plan = SearchPlan(
                query=body["query"],
                limit=body.get("limit", 10),
                mode=body.get("mode", "hybrid"),
                threshold=body.get("threshold"),
                filters=Filters(**body["filters"]) if "filters" in body else None,
                expand=body.get("expand", 0),
            )
            vector = None
            if plan.mode != "text":
                vector = center_query(
                    local_embedder.embed_query(plan.query),
                    plan.query,
                    index.model,
                    index.vector_form,
                )
            in_turn = await search_hybrid(conn, index, library, plan, vector, stats)
            assert [h.chunk_id for h in in_turn] == [h["chunk_id"] for h in alone], body
            assert [h.score for h in in_turn] == [h["score"] for h in alone], body


async def test_a_full_text_only_hit_has_its_exact_similarity_and_meets_the_threshold(
    database_url, local_embedder, tmp_path
):
    """A candidate only the full-text leg found gets its vector similarity computed in the
    fusion's statement as the vector leg measures it (the nearer of the chunk and its nearest
    sentence window): reported exactly, and held to the threshold like any other."""
    kettles = [
        Passage(f"Kettle {i}: the kettle boils the water for tea in {i + 2} minutes.", "Kettles")
        for i in range(75)
    ]
    riding = (
        " The bicycle has eleven gears and a chain that wants oil every month. Its tyres are"
        " pumped to four bars before a long ride through the hills. The saddle is leather and"
        " slowly takes the shape of its rider. Mudguards keep the rain off the rider's back on"
        " wet autumn mornings. A bell on the handlebar warns people walking on shared paths."
        " The lights run on a dynamo in the front hub, so they never need new batteries."
    )
    codes = [
        Passage(
            f"Bicycle {i} carries the frame number zqxv-{i} under its saddle.{riding}", "Bicycles"
        )
        for i in range(3)
    ]
    write_document(database_url, local_embedder, "shed", "shed.md", [*kettles, *codes])
    dictionary = write_dictionary(tmp_path / "empty.dict", "")
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",), dictionary=dictionary
    )
    query = "how fast does the kettle boil water zqxv"
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        hits = await search(client, {"query": query, "limit": 20}, project="shed")
        text_only = [h for h in hits if h["scores"]["vector_rank"] is None]
        assert text_only and all("zqxv" in h["content"] for h in text_only)
        index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
        vector = center_query(
            local_embedder.embed_query(query), query, index.model, index.vector_form
        )
        nearer_window = 0
        with connect(database_url) as conn:
            for hit in text_only:
                chunk, window = conn.execute(
                    "SELECT 1 - (c.embedding::vector(384) <=> %(q)s::vector(384)),"
                    " (SELECT max(1 - (p.embedding::halfvec(384) <=> %(q)s::halfvec(384)))"
                    "  FROM chunk_parts p WHERE p.chunk_id = c.id)"
                    " FROM chunks c WHERE c.id = %(id)s",
                    {"q": vector, "id": hit["chunk_id"]},
                ).fetchone()
                assert hit["scores"]["vector"] == pytest.approx(max(chunk, window), abs=1e-6)
                nearer_window += window > chunk + 0.01
        assert nearer_window  # the chunk's own similarity alone would not do
        weakest = min(text_only, key=lambda h: h["scores"]["vector"])
        cutoff = weakest["scores"]["vector"] + 1e-6
        body = {"query": query, "limit": 20, "threshold": cutoff}
        kept = await search(client, body, project="shed")
        assert weakest["chunk_id"] not in {h["chunk_id"] for h in kept}
        assert kept and all(h["scores"]["vector"] >= cutoff for h in kept)


def test_the_legs_rows_reach_the_fusion_as_they_were(database_url):
    """`_array`'s literals, read back by PostgreSQL with the fusion's casts: NULLs, extreme
    floats and UUIDs unchanged (a None written as "None" would fail the whole search)."""
    ids = [1, 9_007_199_254_740_993, None]
    scores = [0.1 + 0.2, 1e-300, float("inf"), None]
    documents = [uuid.uuid4(), None]
    with connect(database_url) as conn:
        got = conn.execute(
            "SELECT %s::bigint[], %s::float8[], %s::uuid[]",
            (_array(ids), _array(scores), _array(documents)),
        ).fetchone()
    assert got == (ids, scores, documents)


async def test_a_document_removed_between_the_legs_and_the_fusion_leaves_the_others(
    database_url, local_embedder
):
    """The legs and the fusion are statements of their own: a document removed in between
    (the folder changed) drops out before the limit is applied, and the results still fill
    it from the other documents."""
    import psycopg
    from pgvector.psycopg import register_vector_async

    from mirage_pipeline.store.documents import delete_document
    from mirage_query.search_run import fused_results, text_candidates, vector_candidates
    from mirage_query.term_stats import read_index_stats

    for name in ("first", "second", "third"):
        text = f"The {name} lighthouse keeper logs the lamp's oil every night."
        write_document(database_url, local_embedder, "coast", f"{name}.md", [Passage(text, name)])
    index = prepare_database(database_url, local_embedder.name, local_embedder.dimension)
    plan = SearchPlan(query="lighthouse keeper lamp oil", limit=2)
    vector = center_query(
        local_embedder.embed_query(plan.query), plan.query, index.model, index.vector_form
    )
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await register_vector_async(conn)
        project = await project_id(conn, "coast")
        stats = await read_index_stats(conn)
        vector_rows = await vector_candidates(conn, index, project, plan, vector)
        text_rows = await text_candidates(conn, index, project, plan, stats)
        before = await fused_results(conn, index, project, plan, vector, vector_rows, text_rows)
        gone = before[0].document.filename
        with connect(database_url) as writer:
            assert delete_document(writer, project="coast", path=gone) == 1
        after = await fused_results(conn, index, project, plan, vector, vector_rows, text_rows)
    assert len(after) == 2 and gone not in {h.document.filename for h in after}
    assert after[0].chunk_id == before[1].chunk_id


async def test_highlights_keep_text_in_angle_brackets(database_url, local_embedder, tmp_path):
    """PostgreSQL's headline parser reads "<subdir>" as an HTML tag and blanks it: the snippet
    said "/var/opt/ , where   is the name". It is kept as written, beside the <b> marks."""
    text = "Variable data of add-on packages is stored in /var/opt/<subdir>, where <subdir> is"
    text += " the name of the subtree in /opt where the package's static data is stored."
    write_document(database_url, local_embedder, "fhs", "fhs.md", [Passage(text, "/var/opt")])
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url, api_keys=("k",)
    )
    async with AsyncTestClient(app=create_app(settings, embedder=local_embedder)) as client:
        for mode in ("text", "hybrid"):
            (hit,) = await search(client, {"query": "add-on packages data", "mode": mode}, "fhs")
            shown = " ".join(hit["highlights"])
            assert "<b>" in shown and "/var/opt/<subdir>, where <subdir> is" in shown, shown
