"""Pieces of retrieval that need no database: lemmas, sentence windows, language centering,
the full-text leg's weights."""

from __future__ import annotations

import platform
import sys

import numpy as np
import pytest

from mirage_pipeline.chunk_parts import chunk_parts, split_vectors, texts_to_embed
from mirage_pipeline.chunking import Chunk
from mirage_pipeline.embedders.centering import (
    FORM,
    center_passages,
    center_query,
    language_offsets,
    vector_form,
)
from mirage_pipeline.morphology import lemma_text, query_lemmas
from mirage_query.term_stats import TermStats

MODEL = "local:multilingual-e5-small"


@pytest.mark.parametrize(
    ("word_form", "lemma"),
    [("люди", "человек"), ("шёл", "идти"), ("лучше", "хороший"), ("детьми", "ребенок")],
)
def test_suppletive_forms_share_a_lemma(word_form: str, lemma: str) -> None:
    assert query_lemmas(word_form) == [lemma]


def test_lemma_text_keeps_order_drops_stop_words_and_folds_yo() -> None:
    text = "Ёлки и люди шли; было ВЕСЕЛО. Latin words stay out"
    assert lemma_text(text) == "елка человек идти весело"
    assert query_lemmas("люди, люди и человек") == ["человек"]
    assert lemma_text("only English here") == ""


@pytest.mark.skipif(
    platform.python_implementation() != "CPython"
    or (platform.machine() not in ("x86_64", "AMD64") and sys.platform != "darwin"),
    reason="DAWG2 ships no wheel for this platform (pyproject.toml)",
)
def test_the_russian_dictionary_is_read_by_dawg2s_c_extension() -> None:
    """pymorphy3's fast path: without DAWG2 pymorphy3 falls back to a pure-Python reader, the
    same lemmas at ~4x the time (a Russian book's chunking ~1.6x: README, Performance)."""
    from pymorphy3 import dawg

    lemma_text("проверка")  # the analyser loaded
    assert dawg.EXTENSION_AVAILABLE
    assert dawg.DAWG.__module__ == "dawg"


def sentences(n: int, words: int = 12) -> str:
    return " ".join(f"Sentence {i} " + "word " * (words - 3) + "end." for i in range(n))


def test_windows_are_whole_sentences_that_overlap() -> None:
    text = sentences(20)
    windows = chunk_parts(text, words=60)
    assert len(windows) > 2
    assert all(w.startswith("Sentence") and w.endswith("end.") for w in windows)
    assert all(len(w.split()) <= 60 for w in windows)
    firsts = [int(w.split()[1]) for w in windows]
    lasts = [int(w.split("Sentence ")[-1].split()[0]) for w in windows]
    # each window starts inside the one before (overlap) and they reach the last sentence
    assert all(b <= a_last for b, a_last in zip(firsts[1:], lasts, strict=False))
    assert lasts[-1] == 19 and firsts[0] == 0


def test_a_short_chunk_has_no_windows_and_a_long_sentence_is_its_own() -> None:
    assert chunk_parts(sentences(3)) == []
    long = "word " * 200 + "end."
    assert chunk_parts(f"{long} Short one. Another short one.", words=60)[0] == long


def test_window_vectors_follow_the_chunk_vectors() -> None:
    chunks = [
        Chunk(0, "a", "T\n\na", {}, "en", 1, "h0", parts=("x", "y")),
        Chunk(1, "b", "T\n\nb", {}, "en", 1, "h1"),
        Chunk(2, "c", "T\n\nc", {}, "en", 1, "h2", parts=("z",)),
    ]
    assert texts_to_embed(chunks) == ["T\n\na", "T\n\nb", "T\n\nc", "T\n\nx", "T\n\ny", "T\n\nz"]
    vectors = np.arange(12, dtype=np.float32).reshape(6, 2)
    own, parts = split_vectors(chunks, vectors)
    assert own.shape == (3, 2) and parts.shape == (3, 2) and parts[0, 0] == 6
    with pytest.raises(ValueError, match="windows"):
        split_vectors(chunks, vectors[:5])


def test_centering_moves_passages_and_queries_by_their_language() -> None:
    offsets = language_offsets(MODEL)
    assert offsets is not None and {"en", "ru", "de", "uk", ""} <= offsets.keys()
    assert vector_form(MODEL) == FORM and vector_form("ollama:mxbai-embed-large") is None
    rng = np.random.default_rng(0)
    v = rng.standard_normal((2, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    centred = center_passages(v, ["ru", "en"], MODEL, FORM)
    expected = v[0] - offsets["ru"]
    assert np.allclose(centred[0], expected / np.linalg.norm(expected), atol=1e-6)
    assert np.allclose(np.linalg.norm(centred, axis=1), 1.0, atol=1e-5)
    query = center_query(v[1], "как собрать пакет", MODEL, FORM)
    assert np.allclose(query, (v[1] - offsets["ru"]) / np.linalg.norm(v[1] - offsets["ru"]))
    # an index of raw vectors (form None) and a model without centroids are left alone
    assert center_passages(v, ["ru", "en"], MODEL, None) is v
    first = v[0]
    assert center_query(first, "x", "ollama:bge-m3", FORM) is first
    # a language without a centroid takes the mean of them all
    other = center_passages(v[:1], ["xx"], MODEL, FORM)[0]
    mean = v[0] - offsets[""]
    assert np.allclose(other, mean / np.linalg.norm(mean), atol=1e-6)


def test_rare_lexemes_weigh_more_and_common_ones_do_not_pick() -> None:
    stats = TermStats(rows=10_000, shares={"use": 0.4, "file": 0.12}, floor=0.01, min_rows=1000)
    assert stats.idf("samovar") > stats.idf("file") > stats.idf("use") > 0
    assert stats.is_common("use") and stats.is_common("file")
    assert not stats.is_common("samovar")  # unlisted: rarer than the rarest listed
    assert TermStats().idf("anything") > 0 and not TermStats().is_common("anything")
