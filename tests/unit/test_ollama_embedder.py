"""The Ollama embedder against a local server speaking `/api/embed` (Ollama cannot run here)."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from mirage_pipeline.embedders import EmbedderError, EmbedderUnavailable, create_embedder
from mirage_pipeline.embedders.ollama import OllamaEmbedder
from mirage_pipeline.settings import Settings
from tests.support.fake_ollama import FakeOllama, running_fake_ollama


@pytest.fixture
def ollama():
    with running_fake_ollama() as fake:
        yield fake


def test_passages_are_batched_normalised_and_unprefixed(ollama: FakeOllama) -> None:
    embedder = create_embedder("ollama:mxbai-embed-large", ollama_host=ollama.url)
    texts = [f"passage number {i}" for i in range(70)]
    vectors = embedder.embed_passages(texts)

    assert vectors.shape == (70, 1024)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert [len(r["input"]) for r in ollama.requests] == [32, 32, 6]
    assert ollama.requests[0]["input"][0] == "passage number 0"
    assert all(r["truncate"] is False for r in ollama.requests)  # never a silent truncation
    # the same text, in another batch, gives the same vector
    again = embedder.embed_passages(["passage number 69"])
    np.testing.assert_allclose(again[0], vectors[69], rtol=1e-6)


def test_query_gets_the_models_retrieval_prompt(ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("mxbai-embed-large", host=ollama.url)
    vector = embedder.embed_query("winter feeding of bees")
    assert vector.shape == (1024,)
    sent = ollama.requests[-1]["input"]
    assert sent == [
        "Represent this sentence for searching relevant passages: winter feeding of bees"
    ]


def test_dimension_is_probed_once(ollama: FakeOllama) -> None:
    ollama.models["nomic-embed-text"] = 768
    embedder = OllamaEmbedder("nomic-embed-text:latest", host=ollama.url)
    assert embedder.dimension == 768
    assert embedder.dimension == 768
    assert len(ollama.requests) == 1
    assert embedder.max_tokens == 2048
    embedder.embed_passages(["a"])
    assert ollama.requests[-1]["input"] == ["search_document: a"]


def test_missing_model_says_how_to_pull_it(ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("bge-m3", host=ollama.url)
    with pytest.raises(EmbedderError, match=r"ollama pull bge-m3"):
        embedder.embed_passages(["x"])


def test_too_long_input_is_an_error_not_a_truncation(ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("mxbai-embed-large", host=ollama.url)
    with pytest.raises(EmbedderError, match="exceeds the context length") as caught:
        embedder.embed_passages(["word " * 2000])
    assert not isinstance(caught.value, EmbedderUnavailable)


def test_busy_server_is_unavailable_so_callers_can_retry(ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("mxbai-embed-large", host=ollama.url)
    ollama.fail_next = 1
    with pytest.raises(EmbedderUnavailable, match="OLLAMA_HOST"):
        embedder.embed_passages(["x"])
    assert embedder.embed_passages(["x"]).shape == (1, 1024)  # recovered


def test_unreachable_ollama_names_ollama_host() -> None:
    with socket.socket() as sock:  # a port with nobody listening
        sock.bind(("127.0.0.1", 0))
        host = f"http://127.0.0.1:{sock.getsockname()[1]}"
    embedder = OllamaEmbedder("mxbai-embed-large", host=host, timeout=5)
    with pytest.raises(EmbedderUnavailable, match=r"OLLAMA_HOST=http://127\.0\.0\.1:\d+"):
        embedder.embed_query("hello")


def test_settings_carry_ollama_host_to_the_embedder(ollama: FakeOllama) -> None:
    settings = Settings.from_env(
        {"MIRAGE_EMBEDDER": "ollama:mxbai-embed-large", "OLLAMA_HOST": ollama.url}
    )
    embedder = create_embedder(settings.embedder, ollama_host=settings.ollama_host)
    assert embedder.name == "ollama:mxbai-embed-large"
    assert embedder.dimension == 1024


def test_unknown_embedder_spec_is_refused() -> None:
    with pytest.raises(EmbedderError, match="unknown embedder"):
        create_embedder("openai:text-embedding-3")
