"""Index the 320-page PDF in one batched run against a remote embedder. Prints JSON.

    PYTHONPATH=. .venv/bin/python bench/index_remote.py [--pages 320] [--delay 0.1]

Ollama on another machine (a GPU server, the Helm chart's Ollama pod) embeds while this
machine's cores are free. No model can be pulled here, so the embedder is the tests' stand-in
for Ollama (`tests/support/fake_ollama.py`, `/api/embed`, 1024-d vectors), run in its own
process and answering each request of `MIRAGE_EMBED_BATCH` texts after `--delay` seconds. The
PDF is `bench/index_pdf.py`'s, indexed by `index_batch` (what the documents sensor launches) on
an embedded PostgreSQL; `embedder_only_seconds` is the same texts sent in the same batches
with nothing else going on. The `ratio` shows how much of the index writes (HNSW and full-text
upkeep, the embedding cache) the run hides behind the embedder: a run that wrote each
document after its last vector would add all of it.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

MODEL = "mxbai-embed-large"


def start_fake_ollama(delay: float) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.support.fake_ollama import FakeOllama, running_fake_ollama\n"
        f"fake = FakeOllama(models={{{MODEL!r}: 1024}}, hang_seconds={delay})\n"
        f"with running_fake_ollama(fake, port={port}):\n"
        "    time.sleep(86400)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code])
    url = f"http://127.0.0.1:{port}"
    import httpx

    for _ in range(100):
        try:
            httpx.post(f"{url}/api/embed", json={"model": MODEL, "input": ["up?"]}, timeout=5)
            return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the Ollama stand-in did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=320)
    parser.add_argument("--delay", type=float, default=0.1)
    args = parser.parse_args()

    import dagster as dg
    from parse_chunk import make_book

    from mirage_pipeline.chunk_parts import texts_to_embed
    from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
    from mirage_pipeline.defs.batch import index_batch
    from mirage_pipeline.defs.io_managers import ParquetIOManager
    from mirage_pipeline.embedded_postgres import (
        ensure_database,
        start_embedded_postgres,
        with_database,
    )
    from mirage_pipeline.embedders import create_embedder
    from mirage_pipeline.embedders.base import batched
    from mirage_pipeline.names import BATCH_OP
    from mirage_pipeline.parsing import parse_document
    from mirage_pipeline.settings import Settings
    from tests.support.resources import indexing_resources

    fake, url = start_fake_ollama(args.delay)
    try:
        with tempfile.TemporaryDirectory(prefix="mirage-bench-remote-") as tmp:
            root = Path(tmp)
            server = start_embedded_postgres(root / "pgdata")
            ensure_database(server.url, "bench")
            database = with_database(server.url, "bench")
            book = root / "documents" / "bench" / "book.pdf"
            book.parent.mkdir(parents=True)
            make_book(book, args.pages)
            resources = indexing_resources(
                documents_dir=str(root / "documents"),
                database_url=database,
                embedder=f"ollama:{MODEL}",
                ollama_host=url,
            ) | {"io_manager": ParquetIOManager(base_dir=str(root / "storage"))}
            instance = dg.DagsterInstance.ephemeral()
            instance.add_dynamic_partitions("documents", ["bench/book.pdf"])
            config = {"ops": {BATCH_OP: {"config": {"documents": ["bench/book.pdf"]}}}}
            started = time.perf_counter()
            index_batch.execute_in_process(
                run_config=config, instance=instance, resources=resources
            )
            run_seconds = time.perf_counter() - started

            embedder = create_embedder(f"ollama:{MODEL}", ollama_host=url)
            chunks = chunk_document(
                parse_document(book.read_bytes(), "book.pdf"),
                embedder.count_tokens,
                ChunkingPolicy.for_window(embedder.max_tokens),
            )
            texts = list(dict.fromkeys(texts_to_embed(chunks)))
            started = time.perf_counter()
            for batch in batched(texts, Settings.from_env().embed_batch):
                embedder.embed_passages(batch)
            alone = time.perf_counter() - started
    finally:
        fake.kill()
    print(
        json.dumps(
            {
                "pages": args.pages,
                "delay_per_request_seconds": args.delay,
                "chunks": len(chunks),
                "texts": len(texts),
                "run_seconds": round(run_seconds, 1),
                "embedder_only_seconds": round(alone, 1),
                "ratio": round(run_seconds / alone, 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
