"""Embeddings from an Ollama server's `/api/embed`, through the official `ollama` client."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mirage_pipeline.embedders.base import (
    EmbedderError,
    EmbedderUnavailable,
    batched,
    normalise,
)

_BATCH = 32
# Retrieval prompts the model cards ask for; models not listed embed queries as they are.
_QUERY_PREFIXES = {
    "mxbai-embed-large": "Represent this sentence for searching relevant passages: ",
    "nomic-embed-text": "search_query: ",
}
_PASSAGE_PREFIXES = {"nomic-embed-text": "search_document: "}
# Context windows of the models we ship for; others default to BERT's 512.
_MAX_TOKENS = {"mxbai-embed-large": 512, "nomic-embed-text": 2048}


class OllamaEmbedder:
    def __init__(self, model: str, *, host: str, timeout: float = 120.0) -> None:
        import ollama

        self.model = model
        self.host = host
        self.name = f"ollama:{model}"
        base = model.split(":", 1)[0]
        self.max_tokens = _MAX_TOKENS.get(base, 512)
        self._query_prefix = _QUERY_PREFIXES.get(base, "")
        self._passage_prefix = _PASSAGE_PREFIXES.get(base, "")
        self._client = ollama.Client(host=host, timeout=timeout)
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._embed(["dimension probe"]).shape[1])
        return self._dimension

    def count_tokens(self, text: str) -> int:
        # Ollama exposes no tokenizer. WordPiece models split Cyrillic into many pieces, so
        # count conservatively: one token per two characters of the text as embedded.
        return (len(self._passage_prefix) + len(text)) // 2 + 2

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        parts = [
            self._embed([self._passage_prefix + t for t in batch])
            for batch in batched(list(texts), _BATCH)
        ]
        return np.vstack(parts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self._query_prefix + text])[0]

    def _embed(self, texts: list[str]) -> np.ndarray:
        import httpx
        import ollama

        try:
            response = self._client.embed(model=self.model, input=texts, truncate=False)
        except (ConnectionError, httpx.TransportError) as exc:
            raise EmbedderUnavailable(
                f"cannot reach Ollama at OLLAMA_HOST={self.host} ({exc}); "
                "is `ollama serve` running there?"
            ) from exc
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise EmbedderError(
                    f"Ollama at {self.host} has no model {self.model!r}: "
                    f"run `ollama pull {self.model}` there"
                ) from exc
            if exc.status_code in (429, 500, 502, 503, 504):  # busy or restarting: retry later
                raise EmbedderUnavailable(
                    f"Ollama at OLLAMA_HOST={self.host} is not answering ({exc.status_code}: "
                    f"{exc.error})"
                ) from exc
            raise EmbedderError(f"Ollama at {self.host} refused to embed: {exc.error}") from exc
        vectors = np.asarray(response.embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbedderError(
                f"Ollama returned {vectors.shape[0] if vectors.ndim else 0} vectors "
                f"for {len(texts)} inputs"
            )
        if self._dimension is not None and vectors.shape[1] != self._dimension:
            raise EmbedderError(
                f"Ollama model {self.model} changed dimension "
                f"({self._dimension} → {vectors.shape[1]})"
            )
        return normalise(vectors)
