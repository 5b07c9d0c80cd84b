"""Retrieval quality on real books and manuals: the three search modes against the naive recipe.

    PYTHONPATH=. .venv/bin/python eval/run_eval.py [--verbose] [--ranks FILE] [--set held-out]

The documents (eval/documents.py: Russian and English PDFs — one a pre-2005 pdfTeX book in a
legacy encoding —, a multilingual EPUB, Markdown and plain-text books, an FB2 novel) are fetched
into eval/.cache and indexed the way the pipeline does it (parse → chunk → embed →
replace_chunks; vectors cached in eval/.cache) into an embedded PostgreSQL kept in
eval/.cache/pgdata, all in one project. Each question in eval/questions.json names its file and
an answer phrase; a question counts as found at k when one of the first k results is a chunk of
that file holding the phrase. The naive baseline (eval/naive.py) is scored the same way.

Prints one JSON object: recall@1/5/10 and MRR@10 for each mode and the baseline, overall, per
question language and per document format.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import re
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
PROJECT = "eval"
MODES = ("hybrid", "vector", "text")
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from documents import SOURCES, document_path  # noqa: E402
from naive import NaiveIndex, plain_text, unmojibake  # noqa: E402

from mirage_pipeline.chunk_parts import split_vectors, texts_to_embed  # noqa: E402
from mirage_pipeline.chunking import ChunkingPolicy, chunk_document  # noqa: E402
from mirage_pipeline.embedders import create_embedder  # noqa: E402
from mirage_pipeline.embedders.base import revision_of  # noqa: E402
from mirage_pipeline.parsing import file_type_of, parse_document  # noqa: E402
from mirage_pipeline.store import prepare_database  # noqa: E402
from mirage_pipeline.store.connections import connect  # noqa: E402
from mirage_pipeline.store.documents import delete_document, start_document  # noqa: E402
from mirage_pipeline.store.swap import replace_chunks  # noqa: E402


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[\[\]()*_`>#|\\]", " ", text)).strip().lower()


def parsed_text(doc) -> str:
    return "\n".join(b.text for _, s in doc.root.walk() for b in s.blocks)


def index_documents(url: str, embedder, docs: dict[str, tuple[Path, object]]) -> None:
    index = prepare_database(url, embedder.name, embedder.dimension)
    policy = ChunkingPolicy.for_window(embedder.max_tokens)
    vectors_from = [revision_of(embedder), _centroids_digest()]
    with connect(url) as conn:
        ready = conn.execute("SELECT path, content_hash FROM documents WHERE status = 'ready'")
        done = dict(ready.fetchall())
        for gone in set(done) - set(docs):  # a document the eval no longer has
            delete_document(conn, project=PROJECT, path=gone)
    for name, (path, doc) in docs.items():
        chunks = chunk_document(doc, embedder.count_tokens, policy)
        # keyed by what is stored: a changed parser, chunker or embedder re-indexes, nothing else
        digest = hashlib.sha256(
            "\x1e".join(
                vectors_from
                + [
                    f"{c.embed_text}\x1f{c.lang}\x1f{c.structure}\x1f{c.lemmas}\x1f{c.parts}"
                    for c in chunks
                ]
            ).encode()
        ).hexdigest()
        if done.get(name) == digest:
            continue
        vectors, part_vectors = split_vectors(
            chunks, _cached_vectors(texts_to_embed(chunks), embedder, name)
        )
        with connect(url) as conn:
            project_id, document_id = start_document(
                conn,
                project=PROJECT,
                path=name,
                file_type=file_type_of(name),
                content_hash=digest,
                size_bytes=path.stat().st_size,
            )
            replace_chunks(
                conn,
                index=index,
                document_id=document_id,
                project_id=project_id,
                chunks=chunks,
                embeddings=vectors,
                part_embeddings=part_vectors,
                metadata={"title": doc.title, **doc.metadata},
            )
    with connect(url) as conn:
        conn.execute("ANALYZE chunks")
        conn.commit()


def _centroids_digest() -> str:
    """The language centroids the stored vectors are centred with (embedders/centering.py)."""
    from mirage_pipeline.embedders.centering import CENTROIDS_FILE

    return (
        hashlib.sha256(CENTROIDS_FILE.read_bytes()).hexdigest() if CENTROIDS_FILE.exists() else ""
    )


def _cached_vectors(texts: list[str], embedder, name: str) -> np.ndarray:
    """Vectors by text hash, one .npy per text (a re-chunked book re-embeds its new texts); an
    embedder's revision (the bundled model's engine) is part of the key."""
    store = CACHE / "vectors"
    store.mkdir(parents=True, exist_ok=True)
    revision = revision_of(embedder)
    salt = f"{revision}\x1f" if revision else ""
    keys = [hashlib.sha256((salt + t).encode()).hexdigest()[:32] for t in texts]
    found = {k: np.load(store / f"{k}.npy") for k in keys if (store / f"{k}.npy").exists()}
    todo = [i for i, k in enumerate(keys) if k not in found]
    if todo:
        print(f"embedding {name}: {len(todo)} of {len(texts)} chunks", file=sys.stderr)
        fresh = embedder.embed_passages([texts[i] for i in todo])
        for i, vector in zip(todo, fresh, strict=True):
            np.save(store / f"{keys[i]}.npy", vector)
            found[keys[i]] = vector
    if not texts:
        return np.empty((0, embedder.dimension), dtype=np.float32)
    return np.vstack([found[k] for k in keys]).astype(np.float32)


def rank_of(hits: list[tuple[str, str]], question: dict) -> int | None:
    evidence = normalise(question["evidence"])
    found = (
        i + 1
        for i, (name, content) in enumerate(hits)
        if name == question["file"] and evidence in normalise(content)
    )
    return next(found, None)


async def evaluate(
    url: str, embedder, questions: list[dict], verbose: bool, env: dict[str, str] | None = None
) -> dict[str, list]:
    from litestar.testing import AsyncTestClient

    from mirage_query.app import create_app
    from mirage_query.settings import ServiceSettings

    with tempfile.TemporaryDirectory() as home:
        settings = ServiceSettings.from_env({"MIRAGE_HOME": home, **(env or {})}).with_overrides(
            database_url=url, api_keys=("eval",)
        )
        app = create_app(settings, embedder=embedder)
        logging.getLogger("mirage_query.access").setLevel(logging.WARNING)
        ranks: dict[str, list[int | None]] = {m: [] for m in MODES}
        async with AsyncTestClient(app=app, timeout=60) as client:
            for q in questions:
                for mode in MODES:
                    response = await client.post(
                        f"/api/v1/projects/{PROJECT}/search",
                        json={"query": q["q"], "limit": 10, "mode": mode},
                        headers={"X-API-Key": "eval"},
                    )
                    response.raise_for_status()
                    hits = [(h["document"]["filename"], h["content"]) for h in response.json()]
                    ranks[mode].append(rank_of(hits, q))
                if verbose:
                    found = {m: ranks[m][-1] for m in MODES}
                    print(f"{found}  {q['file'][:24]:24} {q['q'][:70]}", file=sys.stderr)
    return ranks


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    found = {f"recall@{k}": sum(r is not None and r <= k for r in ranks) / n for k in (1, 5, 10)}
    found["mrr@10"] = sum(1 / r for r in ranks if r and r <= 10) / n
    return {k: round(v, 3) for k, v in found.items()}


def report(questions: list[dict], ranks: dict[str, list[int | None]], formats: dict) -> dict:
    """Metrics per mode, overall and per group: question language (all, and only questions in
    their document's own language — a multilingual book counts as any), document format, set."""
    written_in = {s.name: s.lang for s in SOURCES}

    def same(q: dict) -> bool:
        return written_in[q["file"]] in (q["lang"], "multi")

    groups: dict[str, Callable[[dict], bool]] = {"all": lambda q: True}
    for lang in sorted({q["lang"] for q in questions}):
        groups[f"lang:{lang}"] = lambda q, lang=lang: q["lang"] == lang
        groups[f"lang:{lang}:same-language"] = lambda q, lang=lang: q["lang"] == lang and same(q)
    groups["cross-language"] = lambda q: not same(q)
    for fmt in sorted(set(formats.values())):
        groups[f"format:{fmt}"] = lambda q, fmt=fmt: formats[q["file"]] == fmt
    for s in sorted({q.get("set", "") for q in questions}):
        groups[f"set:{s}"] = lambda q, s=s: q.get("set", "") == s
    out: dict = {"questions": len(questions), "documents": len(formats)}
    for name, member in groups.items():
        picked = [i for i, q in enumerate(questions) if member(q)]
        out[name] = {"n": len(picked)} | {
            mode: metrics([ranks[mode][i] for i in picked]) for mode in ranks
        }
    return out


def load_documents(questions: list[dict]) -> dict[str, tuple[Path, object]]:
    docs = {}
    for source in SOURCES:
        path = document_path(source)
        docs[source.name] = (path, parse_document(path.read_bytes(), source.name))
    for q in questions:
        if q["file"] not in docs:
            raise SystemExit(f"unknown document {q['file']!r}: {q['q']!r}")
        path, doc = docs[q["file"]]
        evidence = normalise(q["evidence"])
        texts = (plain_text(path, q["file"]), parsed_text(doc))
        if not any(evidence in normalise(t) or evidence in normalise(unmojibake(t)) for t in texts):
            raise SystemExit(f"evidence not in {q['file']}: {q['evidence']!r}")
    return docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="ranks per question on stderr")
    parser.add_argument("--ranks", type=Path, help="write every question's ranks to this file")
    parser.add_argument("--set", help="only the questions of this set (tuning, held-out)")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    args = parser.parse_args()
    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))["questions"]
    if args.set:
        questions = [q for q in questions if q.get("set") == args.set]
    CACHE.mkdir(exist_ok=True)
    docs = load_documents(questions)
    formats = {name: file_type_of(name) for name in docs}
    from mirage_pipeline.embedded_postgres import start_embedded_postgres

    embedder = create_embedder("local:multilingual-e5-small")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = start_embedded_postgres(CACHE / "pgdata")
    try:
        index_documents(server.url, embedder, docs)
        ranks = asyncio.run(evaluate(server.url, embedder, questions, args.verbose))
        # the plain recipe's fusion, for comparison: Reciprocal Rank Fusion of the same legs
        rrf = asyncio.run(
            evaluate(server.url, embedder, questions, False, {"MIRAGE_FUSION": "rrf"})
        )
        ranks["hybrid_rrf"] = rrf["hybrid"]
    finally:
        server.stop()
    if not args.no_naive:
        naive = NaiveIndex(embedder, CACHE)
        for name, (path, _) in docs.items():
            naive.add(name, plain_text(path, name))
        ranks["naive"] = [rank_of(naive.search(q["q"]), q) for q in questions]
    if args.ranks:
        rows = [{**q, "ranks": {m: ranks[m][i] for m in ranks}} for i, q in enumerate(questions)]
        args.ranks.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps(report(questions, ranks, formats), indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
