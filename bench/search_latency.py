"""Search latency and ANN recall on 100 000 chunks, over HTTP, query embedding included.

    PYTHONPATH=. .venv/bin/python bench/search_latency.py [--chunks 100000] [--mode hybrid]

Vectors have the structure of real embeddings: a few hundred passages of the shared corpus are
embedded once with the bundled embedder (cached in bench/.cache), and every chunk is a mix of
two of them plus small noise; each chunk has WINDOWS sentence windows (the ratio the dev eval's
real books have), mixes of its own passage and another. Chunks are written through the
project's own storage code (`start_document` + `replace_chunks`), the service runs as a real
uvicorn process, and queries (fragments of real sentences, embedded by the service) go over
HTTP: one client, then eight concurrent ones, for --rounds rounds; the figures are the medians
of the rounds (each round's own figures are kept beside them). Each eight-client round also
says where its CPU went, in milliseconds a search: the service's process, PostgreSQL's (the
postmaster and its backends), and this script's clients — on two cores, 50 QPS is a budget of
40 ms a search in all. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import httpx
import numpy as np
import psutil

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).resolve().parent / ".cache"
CORPUS = ROOT.parent / "shared" / "corpus"
SOURCES = [  # Russian and English books and docs of the shared corpus, parsed by miRAGe itself
    "fb2/bulgakov-zapiski-yunogo-vracha.ru.fb2",
    "markdown/long/docker-container-run.en.md",
    "epub/alice-in-wonderland.pg11.epub2.epub",
    "epub/childrens-literature.epub3.epub",
    "pdf/with-toc/gnu-coding-standards.en.pdf",
    "pdf/with-toc/texlive-guide-2021.ru.pdf",
    "pdf/with-toc/eskdx-manual.ru.pdf",
    "pdf/no-toc/fhs-3.0.en.pdf",
]
sys.path.insert(0, str(ROOT))

from mirage_pipeline.chunking import Chunk  # noqa: E402
from mirage_pipeline.language import detect_language  # noqa: E402
from mirage_pipeline.morphology import lemma_text  # noqa: E402
from mirage_pipeline.names import BUNDLED_DIMENSION, BUNDLED_EMBEDDER  # noqa: E402
from mirage_pipeline.store import prepare_database  # noqa: E402
from mirage_pipeline.store.connections import connect  # noqa: E402
from mirage_pipeline.store.documents import start_document  # noqa: E402
from mirage_pipeline.store.swap import replace_chunks  # noqa: E402

MODEL = BUNDLED_EMBEDDER
PROJECT = "bench"
WINDOWS = 3  # sentence windows per chunk: eval/run_eval.py's books have 3.3 on average


def corpus_passages(per_source: int) -> list[str]:
    """~400-character windows of whole sentences, spread over each parsed source."""
    from mirage_pipeline.parsing import parse_document

    passages: list[str] = []
    for rel in SOURCES:
        doc = parse_document((CORPUS / rel).read_bytes(), Path(rel).name)
        text = " ".join(
            block.text
            for _, section in doc.root.walk()
            for block in section.blocks
            if block.kind not in ("code", "table")
        )
        sentences = re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text))
        window: list[str] = []
        found: list[str] = []
        for sentence in sentences:
            window.append(sentence.strip())
            if sum(len(s) for s in window) > 400:
                found.append(" ".join(window)[:1200])
                window = []
        step = max(1, len(found) // per_source)
        passages += found[::step][:per_source]
    return passages


def embedded_passages(per_source: int) -> tuple[list[str], np.ndarray]:
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"passages-{per_source}.npz"
    if path.exists():
        data = np.load(path, allow_pickle=False)
        return list(data["texts"]), data["vectors"]
    from mirage_pipeline.embedders import create_embedder

    texts = corpus_passages(per_source)
    started = time.perf_counter()
    vectors = create_embedder(MODEL).embed_passages(texts)
    print(
        f"embedded {len(texts)} passages in {time.perf_counter() - started:.0f} s", file=sys.stderr
    )
    np.savez(path, texts=np.array(texts), vectors=vectors)
    return texts, vectors


def synthetic_vectors(
    base: np.ndarray, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Each vector mixes two real embeddings and adds a little noise; returns (vectors, first)."""
    first = rng.integers(0, len(base), n)
    second = rng.integers(0, len(base), n)
    weight = rng.uniform(0.55, 1.0, (n, 1)).astype(np.float32)
    noise = rng.normal(0, 0.25 / np.sqrt(base.shape[1]), (n, base.shape[1])).astype(np.float32)
    mixed = weight * base[first] + (1 - weight) * base[second] + noise
    return (mixed / np.linalg.norm(mixed, axis=1, keepdims=True)).astype(np.float32), first


def seed(url: str, texts: list[str], base: np.ndarray, total: int, per_doc: int = 1000) -> float:
    """Write `total` chunks in documents of `per_doc` through start_document + replace_chunks."""
    rng = np.random.default_rng(7)
    index = prepare_database(url, MODEL, base.shape[1])
    started = time.perf_counter()
    with connect(url) as conn:
        for d in range(total // per_doc):
            vectors, first = synthetic_vectors(base, per_doc, rng)
            chunks = []
            for i, src in enumerate(first):
                content = f"{texts[src]} [{d}.{i}]"
                chunks.append(
                    Chunk(
                        position=i,
                        content=content,
                        embed_text=content,
                        structure={
                            "book": f"Book {d}",
                            "section": f"Part {i // 20}",
                            "heading_path": [f"Book {d}", f"Part {i // 20}"],
                        },
                        lang=detect_language(content),
                        tokens=len(content.split()),
                        content_hash=hashlib.sha256(content.encode()).hexdigest(),
                        metadata={"tags": [f"t{d % 10}"]},
                        lemmas=lemma_text(content),
                        parts=tuple(f"{content} ({k})" for k in range(WINDOWS)),
                    )
                )
            parts, _ = synthetic_vectors(base, per_doc * WINDOWS, rng)
            own = np.repeat(vectors, WINDOWS, axis=0)
            parts = 0.6 * own + 0.4 * parts
            parts /= np.linalg.norm(parts, axis=1, keepdims=True)
            project_id, document_id = start_document(
                conn,
                project=PROJECT,
                path=f"book-{d:03d}.md",
                file_type="markdown",
                content_hash=str(d),
                size_bytes=1,
            )
            replace_chunks(
                conn,
                index=index,
                document_id=document_id,
                project_id=project_id,
                chunks=chunks,
                embeddings=vectors,
                part_embeddings=parts,
                metadata={"title": f"Book {d}"},
            )
        conn.execute("ANALYZE chunks")
        conn.commit()
    return time.perf_counter() - started


def chunk_count(url: str) -> int:
    with connect(url) as conn:
        return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def make_queries(texts: list[str], n: int, rng: random.Random) -> list[str]:
    queries = []
    for _ in range(n):
        words = rng.choice(texts).split()
        size = rng.randint(5, 12)
        start = rng.randint(0, max(0, len(words) - size))
        queries.append(" ".join(words[start : start + size]))
    return queries


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(url: str, home: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "MIRAGE_DATABASE_URL": url,
        "MIRAGE_API_KEY": "bench",
        "MIRAGE_HOME": str(home),
        "MIRAGE_API_PORT": str(port),
        "PYTHONPATH": str(ROOT),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "mirage_query", "serve"],
        env=env,
        # `-m` puts the working directory first on the path: from another checkout's folder the
        # service would run that checkout's code, not this one's (an A/B of two worktrees)
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=(home / "service.log").open("wb"),
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/ready", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise SystemExit(f"the service exited; see {home / 'service.log'}")
        time.sleep(0.5)
    raise SystemExit("the service did not become ready")


async def drive(base: str, queries: list[str], clients: int, mode: str) -> dict:
    """`clients` concurrent clients, each sending its share of `queries` one after another."""
    latencies: list[float] = []
    errors = 0
    shares = [queries[i::clients] for i in range(clients)]

    async def client_loop(share: list[str]) -> None:
        nonlocal errors
        async with httpx.AsyncClient(
            base_url=base, headers={"X-API-Key": "bench"}, timeout=30
        ) as c:
            for q in share:
                t = time.perf_counter()
                try:
                    r = await c.post(
                        f"/api/v1/projects/{PROJECT}/search",
                        json={"query": q, "limit": 10, "mode": mode},
                    )
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                latencies.append(time.perf_counter() - t)
                errors += not ok

    started = time.perf_counter()
    await asyncio.gather(*(client_loop(s) for s in shares))
    wall = time.perf_counter() - started
    ms = sorted(x * 1000 for x in latencies)

    def pct(p: float) -> float:
        return round(ms[min(len(ms) - 1, int(p / 100 * len(ms)))], 1)

    return {
        "clients": clients,
        "requests": len(ms),
        "errors": errors,
        "p50_ms": pct(50),
        "p95_ms": pct(95),
        "p99_ms": pct(99),
        "mean_ms": round(statistics.fmean(ms), 1),
        "qps": round(len(ms) / wall, 1),
    }


class CpuMeter:
    """CPU time of the service, of PostgreSQL and of this process, per search of a round.

    PostgreSQL's is its postmaster's and its live children's: a backend that exits within the
    round takes its time with it, but the service keeps its pooled connections open."""

    def __init__(self, service_pid: int, pgdata: Path) -> None:
        self.service = psutil.Process(service_pid)
        postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
        self.postmaster = psutil.Process(postmaster)
        self.own = psutil.Process()
        self._start: dict[str, float] = {}

    def _now(self) -> dict[str, float]:
        postgres = [self.postmaster, *self.postmaster.children(recursive=True)]
        return {
            "service": _cpu_seconds(self.service),
            "postgres": sum(map(_cpu_seconds, postgres)),
            "clients": _cpu_seconds(self.own),
        }

    def start(self) -> None:
        self._start = self._now()

    def per_search(self, searches: int) -> dict[str, float]:
        """Milliseconds of CPU a search since `start`, by process."""
        now = self._now()
        return {
            f"cpu_{name}_ms": round(1000 * (now[name] - self._start[name]) / searches, 1)
            for name in now
        }


def _cpu_seconds(process: psutil.Process) -> float:
    """User and system time; 0 for a process that has exited since it was listed."""
    try:
        times = process.cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return times.user + times.system


def median_of(runs: list[dict]) -> dict:
    """Each figure's median over the rounds (errors: their sum)."""
    out = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "errors"}
    return {**out, "errors": sum(r["errors"] for r in runs), "rounds": len(runs)}


def ann_recall(url: str, base: str, queries: list[str]) -> dict[str, float]:
    """recall@10 of the service's vector leg (over HTTP) against the same search without the
    approximate index: the nearest windows found exactly, their chunks scored as the service
    scores them (`ann_recall_at_10`, what the HNSW index costs); and against every chunk of the
    index scored exactly (`exhaustive_recall_at_10`, what taking candidates from the nearest
    windows costs on top)."""
    from mirage_pipeline.embedders import create_embedder
    from mirage_pipeline.embedders.centering import center_query
    from mirage_query.search import CANDIDATES, SearchPlan

    embedder = create_embedder(MODEL)
    index = prepare_database(url, MODEL, BUNDLED_DIMENSION)
    plan = SearchPlan(query="x", limit=10)
    windows = 4 * max(CANDIDATES, 2 * plan.limit)  # as mirage_query.search.search_params asks
    scored = (
        " SELECT c.id FROM chunks c LEFT JOIN parts p ON p.chunk_id = c.id {where}"
        " ORDER BY greatest(1 - (c.embedding::vector(384) <=> %(q)s),"
        "   coalesce(p.s, 1 - (c.embedding::vector(384) <=> %(q)s))) DESC LIMIT 10"
    )
    best = (
        "WITH parts AS (SELECT chunk_id, max(1 - (embedding::halfvec(384)"
        "   <=> %(q)s::vector(384)::halfvec(384))) AS s FROM chunk_parts GROUP BY chunk_id),"
        " near AS (SELECT DISTINCT chunk_id FROM (SELECT chunk_id FROM chunk_parts"
        "   ORDER BY embedding::halfvec(384) <=> %(q)s::vector(384)::halfvec(384)"
        "   LIMIT %(windows)s) w)"
    )
    found = {"ann": 0, "exhaustive": 0}
    with connect(url) as conn, httpx.Client(base_url=base, headers={"X-API-Key": "bench"}) as c:
        conn.execute("SET enable_indexscan = off")  # exact: full scans, no HNSW
        conn.execute("SET enable_bitmapscan = off")
        for q in queries:
            hits = c.post(
                f"/api/v1/projects/{PROJECT}/search",
                json={"query": q, "limit": 10, "mode": "vector"},
            ).json()
            got = {h["chunk_id"] for h in hits}
            vector = center_query(embedder.embed_query(q), q, MODEL, index.vector_form)
            params = {"q": vector, "windows": windows}
            for name, where in (
                ("ann", "WHERE c.id IN (SELECT chunk_id FROM near)"),
                ("exhaustive", ""),
            ):
                rows = conn.execute(best + scored.format(where=where), params).fetchall()
                found[name] += len(got & {r[0] for r in rows})
    n = 10 * len(queries)
    return {
        "ann_recall_at_10": round(found["ann"] / n, 4),
        "exhaustive_recall_at_10": round(found["exhaustive"] / n, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--passages", type=int, default=250, help="per source text")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "vector", "text"])
    parser.add_argument("--rounds", type=int, default=3, help="figures are medians of rounds")
    parser.add_argument(
        "--pgdata",
        type=Path,
        default=CACHE / "pgdata",
        help="kept between runs: the 100 000 chunks are seeded once",
    )
    args = parser.parse_args()

    texts, base = embedded_passages(args.passages)
    from mirage_pipeline.embedded_postgres import start_embedded_postgres

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = start_embedded_postgres(args.pgdata)
    report: dict = {"chunks": args.chunks, "passages": len(texts), "mode": args.mode}
    try:
        prepare_database(server.url, MODEL, base.shape[1])
        if chunk_count(server.url) != args.chunks:
            with connect(server.url) as conn:
                conn.execute("DELETE FROM projects")
                conn.commit()
            report["seed_seconds"] = round(seed(server.url, texts, base, args.chunks), 1)
        rng = random.Random(11)
        with tempfile.TemporaryDirectory() as home:
            process, url = start_service(server.url, Path(home))
            meter = CpuMeter(process.pid, args.pgdata)
            try:
                asyncio.run(drive(url, make_queries(texts, 20, rng), 1, args.mode))  # warm-up
                rounds: dict[str, list[dict]] = {"one_client": [], "eight_clients": []}
                for _ in range(args.rounds):  # interleaved: both see the machine's drifts
                    rounds["one_client"].append(
                        asyncio.run(
                            drive(url, make_queries(texts, args.queries, rng), 1, args.mode)
                        )
                    )
                    meter.start()
                    run = asyncio.run(
                        drive(url, make_queries(texts, args.queries * 2, rng), 8, args.mode)
                    )
                    rounds["eight_clients"].append(run | meter.per_search(run["requests"]))
                for name, runs in rounds.items():
                    report[name] = median_of(runs)
                    report[f"{name}_rounds"] = runs
                report |= ann_recall(server.url, url, make_queries(texts, 100, rng))
            finally:
                process.terminate()
                process.wait(10)
        report["load_average"] = os.getloadavg()
        report["targets"] = {
            "one_client_p95_ms": 60,
            "eight_clients_qps": 50,
            "eight_clients_p99_ms": 400,
            "ann_recall_at_10": 0.98,
        }
    finally:
        server.stop()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
