"""The bundled embedder's word-cached token count against the engine's own count."""

from __future__ import annotations

import random

import pytest

from mirage_pipeline.embedders.local import WordTokenCounter

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
    "¨x combining diaeresis and ﬁ ligature",
    "Tomatoes need six hours › Глава 3 › 2.4 Title\n\ncode: `docker run --cidfile /tmp/id`",
    "https://example.org/a/very/long/url?with=query&and=more#fragment",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "混合テキスト 中文 with emoji 🙂 and math ∑ x² ≤ ∞",
]


@pytest.fixture(scope="module")
def engine(local_embedder):
    return local_embedder.engine_count_tokens


@pytest.mark.parametrize("text", ODD)
def test_equals_the_engine_on_odd_text(engine, text: str) -> None:
    assert WordTokenCounter(engine)(text) == engine(text)


def test_equals_the_engine_on_random_mixtures(engine) -> None:
    rng = random.Random(5)
    pieces = [w for text in ODD for w in text.split(" ") if w] + ["\n", "  ", "\t", ".", ","]
    counter = WordTokenCounter(engine)
    for _ in range(300):
        text = "".join(rng.choice(pieces) + rng.choice(["", " ", " ", "\n"]) for _ in range(40))
        assert counter(text) == engine(text), repr(text)


def test_words_are_cached(engine) -> None:
    calls: list[str] = []

    def counting(text: str) -> int:
        calls.append(text)
        return engine(text)

    counter = WordTokenCounter(counting)
    before = len(calls)
    counter("the cat sat on the mat")
    first = len(calls) - before
    counter("the mat sat on the cat")
    assert first == 5  # five distinct words
    assert len(calls) - before == first  # nothing new to ask the engine
