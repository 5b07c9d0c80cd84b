"""Retrieval quality of the three search modes on the shared corpus: recall@5 and recall@10.

    PYTHONPATH=. .venv/bin/python eval/run_eval.py [--verbose]

The documents listed in eval/questions.json are indexed the way the pipeline does it (parse →
chunk → embed → replace_chunks; embeddings cached in eval/.cache), into an embedded PostgreSQL
kept in eval/.cache/pgdata. Each question names the file and a phrase of the passage its
answer lives in; a question counts as found at k when one of the first k results is a chunk of
that file holding the phrase. Prints one JSON object.
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
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
CORPUS = ROOT.parent / "shared" / "corpus"
PROJECT = "eval"
MODES = ("hybrid", "vector", "text")
sys.path.insert(0, str(ROOT))

from mirage_pipeline.chunking import ChunkingPolicy, chunk_document  # noqa: E402
from mirage_pipeline.embedders import create_embedder  # noqa: E402
from mirage_pipeline.parsing import file_type_of, parse_document  # noqa: E402
from mirage_pipeline.store import prepare_database  # noqa: E402
from mirage_pipeline.store.documents import connect, replace_chunks, start_document  # noqa: E402


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[\[\]()*_`>#|\\]", " ", text)).strip().lower()


def index_corpus(url: str, embedder, files: list[str]) -> None:
    index = prepare_database(url, embedder.name, embedder.dimension)
    policy = ChunkingPolicy.for_window(embedder.max_tokens)
    with connect(url) as conn:
        done = dict(
            conn.execute(
                "SELECT path, content_hash FROM documents WHERE status = 'ready'"
            ).fetchall()
        )
    for rel in files:
        data = (CORPUS / rel).read_bytes()
        name = Path(rel).name
        doc = parse_document(data, name)
        chunks = chunk_document(doc, embedder.count_tokens, policy)
        # keyed by what is embedded: a changed parser or chunker re-embeds, nothing else does
        digest = hashlib.sha256("\x1e".join(c.embed_text for c in chunks).encode()).hexdigest()
        if done.get(name) == digest:
            continue
        cached = CACHE / f"{digest[:24]}.npy"
        if cached.exists():
            vectors = np.load(cached)
        else:
            print(f"embedding {name}: {len(chunks)} chunks", file=sys.stderr)
            vectors = embedder.embed_passages([c.embed_text for c in chunks])
            np.save(cached, vectors)
        with connect(url) as conn:
            project_id, document_id = start_document(
                conn,
                project=PROJECT,
                path=name,
                file_type=file_type_of(name),
                content_hash=digest,
                size_bytes=len(data),
            )
            replace_chunks(
                conn,
                index=index,
                document_id=document_id,
                project_id=project_id,
                chunks=chunks,
                embeddings=vectors,
                metadata={"title": doc.title, **doc.metadata},
            )


async def evaluate(url: str, embedder, questions: list[dict], verbose: bool) -> dict:
    from litestar.testing import AsyncTestClient

    from mirage_pipeline.settings import Settings
    from mirage_query.app import create_app

    with tempfile.TemporaryDirectory() as home:
        settings = Settings.from_env({"MIRAGE_HOME": home}).with_overrides(
            database_url=url, api_keys=("eval",)
        )
        app = create_app(settings, embedder=embedder)
        logging.getLogger("mirage_query.access").setLevel(logging.WARNING)
        ranks: dict[str, list[int | None]] = {m: [] for m in MODES}
        async with AsyncTestClient(app=app, timeout=60) as client:
            for q in questions:
                evidence = normalise(q["evidence"])
                for mode in MODES:
                    response = await client.post(
                        f"/api/v1/projects/{PROJECT}/search",
                        json={"query": q["q"], "limit": 10, "mode": mode},
                        headers={"X-API-Key": "eval"},
                    )
                    response.raise_for_status()
                    rank = next(
                        (
                            i + 1
                            for i, hit in enumerate(response.json())
                            if hit["document"]["filename"] == q["file"]
                            and evidence in normalise(hit["content"])
                        ),
                        None,
                    )
                    ranks[mode].append(rank)
                if verbose:
                    found = {m: ranks[m][-1] for m in MODES}
                    print(f"{found}  {q['q'][:70]}", file=sys.stderr)
    report: dict = {"questions": len(questions)}
    groups = {
        f"_{g}": [q.get(key) == g for q in questions]
        for key in ("lang", "set")
        for g in sorted({q.get(key) for q in questions})
    }
    for mode in MODES:
        entry = {}
        for k in (5, 10):
            entry[f"recall@{k}"] = round(
                sum(r is not None and r <= k for r in ranks[mode]) / len(questions), 3
            )
            for suffix, member in groups.items():
                picked = [r for r, m in zip(ranks[mode], member, strict=True) if m]
                entry[f"recall@{k}{suffix}"] = round(
                    sum(r is not None and r <= k for r in picked) / len(picked), 3
                )
        entry["mrr@10"] = round(sum(1 / r for r in ranks[mode] if r) / len(questions), 3)
        report[mode] = entry
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="ranks per question on stderr")
    args = parser.parse_args()
    spec = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    for q in spec["questions"]:
        source = next(d for d in spec["documents"] if Path(d).name == q["file"])
        text = (CORPUS / source).read_bytes().decode("utf-8", "replace")
        if normalise(q["evidence"]) not in normalise(text):
            raise SystemExit(f"evidence not in {source}: {q['evidence']!r}")
    CACHE.mkdir(exist_ok=True)
    from mirage_pipeline.embedded_postgres import start_embedded_postgres

    embedder = create_embedder("local:multilingual-e5-small")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = start_embedded_postgres(CACHE / "pgdata")
    try:
        index_corpus(server.url, embedder, spec["documents"])
        report = asyncio.run(evaluate(server.url, embedder, spec["questions"], args.verbose))
    finally:
        server.stop()
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
