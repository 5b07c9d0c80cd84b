"""Language centering: part of each language's mean vector taken out of passages and queries.

multilingual-e5-small places a text partly by its meaning and partly by its language, so a
question finds passages in its own language about something else before the passage in
another language that answers it. Subtracting half of the language's mean passage vector
(measured on Debian documentation by eval/language_centroids.py) from every passage and every
query, then normalising again, takes much of that language component out: on the dev eval
(eval/run_eval.py) questions asked across languages went from recall@10 0.32 to 0.50 while
questions in the document's own language kept theirs.

An index records the form of the vectors it holds (`embedding_indexes.vector_form`), so
writes and queries transform alike; a model without measured centroids (Ollama's) is left as
it is. A language with no centroid of its own takes the mean of all of them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from mirage_pipeline.language import detect_language

CENTROIDS_FILE = Path(__file__).with_name("e5_language_centroids.npz")
FORM = "centered-0.5"  # what embedding_indexes.vector_form records for centred vectors
_SHARE = 0.5  # of the language's mean vector that is taken out


@lru_cache(maxsize=4)
def language_offsets(model: str) -> dict[str, np.ndarray] | None:
    """Language → the vector subtracted from its texts (None: the model is not centred)."""
    if not CENTROIDS_FILE.exists():
        return None
    with np.load(CENTROIDS_FILE) as data:
        if str(data["model"]) != model:
            return None
        offsets = {k: _SHARE * data[k].astype(np.float32) for k in data.files if k != "model"}
    offsets[""] = np.mean(list(offsets.values()), axis=0)
    return offsets


def vector_form(model: str) -> str | None:
    """The form a new index of `model` stores its vectors in."""
    return FORM if language_offsets(model) else None


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32, copy=False)


def center_passages(
    vectors: np.ndarray, languages: list[str], model: str, form: str | None
) -> np.ndarray:
    """Passage vectors as an index of `form` stores them (each by its chunk's language)."""
    offsets = language_offsets(model) if form == FORM else None
    if offsets is None or not len(vectors):
        return vectors
    shift = np.stack([offsets.get(lang, offsets[""]) for lang in languages])
    return _normalised(np.asarray(vectors, dtype=np.float32) - shift)


def center_query(vector: np.ndarray, text: str, model: str, form: str | None) -> np.ndarray:
    """A query vector as an index of `form` compares it (by the query's own language)."""
    offsets = language_offsets(model) if form == FORM else None
    if offsets is None:
        return vector
    shift = offsets.get(detect_language(text), offsets[""])
    return _normalised(np.asarray(vector, dtype=np.float32) - shift)


def offset_for(model: str, language: str) -> np.ndarray | None:
    """What is subtracted from a passage of `language` (for converting a stored index)."""
    offsets = language_offsets(model)
    return None if offsets is None else offsets.get(language, offsets[""])
