"""Index a folder of many small real notes through the real stack (`mirage up`). Prints JSON.

    PYTHONPATH=. .venv/bin/python bench/index_folder.py [--notes 120] [--fresh 5] [--many 1000]
        [--pdf-pages 320]     (a count of 0 skips its case)

The notes are Git's own documentation (Debian's `git-doc`: one HTML page per command, fetched
with `apt-get download` into bench/.cache and converted to Markdown by the eval's converter),
one note per page. Each part runs on a `mirage up` of its own (embedded default, a temporary
MIRAGE_HOME), so no part finds another's texts in the embedding cache:
- `notes`: the first N notes are dropped into one project at once; `wall_seconds` runs from the
  drop until every document is `ready` (or `error`), `embedder_only_seconds` is the bundled
  embedder alone on the same chunks and windows (made as the pipeline makes them, timed in this
  process), and `ratio` their quotient (target ≤ 1.5);
- `freshness`: one small note written into the running, idle stack, seconds until a search
  finds it; the median of `--fresh` notes (target ≤ 5 s);
- `many` (with `--many N`, 0 to skip): N small notes — Git's documentation pages cut at their
  second-level headings, one section per note — dropped at once into their own project: wall
  time to all `ready`, errors, duplicate document rows, and the ratio to the embedder alone;
- `pdf` (with `--pdf-pages N`, 0 to skip): the same N-page PDF as `bench/index_pdf.py` dropped
  into its own project: seconds to `ready` against the embedder alone on
  its chunks and windows (target ≤ 1.15).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "eval"))
sys.path.insert(0, str(HERE))

from documents import fetch_package, html_to_markdown  # noqa: E402

CACHE = HERE / ".cache"
PROJECT = "notes"
KEY = "bench"


def git_notes(count: int) -> list[tuple[str, str]]:
    """(file name, Markdown) of the first `count` command pages of Git's documentation."""
    pages = sorted(
        (fetch_package("git-doc", CACHE / "deb") / "usr/share/doc/git-doc").glob("git-*.html")
    )
    if len(pages) < count:
        raise SystemExit(f"git-doc has {len(pages)} command pages, fewer than {count}")
    return [(p.with_suffix(".md").name, html_to_markdown(p.read_bytes())) for p in pages[:count]]


def git_sections(count: int) -> list[tuple[str, str]]:
    """(file name, Markdown) of `count` small notes: Git's documentation pages (all of them,
    not only the command pages) cut at second-level headings, the page's title kept on top."""
    pages = sorted(
        (fetch_package("git-doc", CACHE / "deb") / "usr/share/doc/git-doc").glob("*.html")
    )
    notes = []
    for page in pages:
        text = html_to_markdown(page.read_bytes())
        title = next((line for line in text.splitlines() if line.startswith("# ")), "")
        for i, part in enumerate(re.split(r"\n(?=## )", text)):
            if len(part.strip()) >= 80:
                body = part if part.startswith("# ") else f"{title}\n\n{part}"
                notes.append((f"{page.stem}--{i:02}.md", body))
    if len(notes) < count:
        raise SystemExit(f"git-doc gives {len(notes)} sections, fewer than {count}")
    return notes[:count]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Stack:
    """`mirage up` in its own MIRAGE_HOME, stopped on exit."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.home = root / "home"
        self.documents = self.home / "documents"
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MIRAGE_", "DAGSTER_"))}
        env |= {
            "MIRAGE_HOME": str(self.home),
            "MIRAGE_API_KEY": KEY,
            "MIRAGE_API_PORT": str(port),
            "MIRAGE_DAGSTER_PORT": str(free_port()),
            "XDG_CONFIG_HOME": str(root / "config"),
        }
        self.api = f"http://127.0.0.1:{port}/api/v1"
        self.log = (root / "up.out").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mirage_query", "up"],
            env=env,
            cwd=root,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.client = httpx.Client(headers={"X-API-Key": KEY}, timeout=30)

    def __enter__(self) -> Stack:
        deadline = time.monotonic() + 300
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"mirage up did not start: see {self.log.name}")
            time.sleep(0.5)
        (self.documents / PROJECT).mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()

    def _answers(self) -> bool:
        try:
            return self.client.get(self.api.removesuffix("/api/v1") + "/ready").status_code == 200
        except httpx.HTTPError:
            return False

    def statuses(self, project: str = PROJECT) -> dict[str, str]:
        answer = self.client.get(f"{self.api}/projects/{project}/documents")
        return (
            {d["filename"]: d["status"] for d in answer.json()} if answer.status_code == 200 else {}
        )

    def finds(self, query: str, path: str) -> bool:
        answer = self.client.post(
            f"{self.api}/projects/{PROJECT}/search", json={"query": query, "limit": 5}
        )
        return answer.status_code == 200 and any(
            hit["document"]["filename"] == path for hit in answer.json()
        )


def index_notes(stack: Stack, notes: list[tuple[str, str]], project: str = PROJECT) -> dict:
    started = time.monotonic()
    (stack.documents / project).mkdir(exist_ok=True)
    for name, text in notes:
        path = stack.documents / project / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    names = {name for name, _ in notes}
    while True:
        statuses = stack.statuses(project)
        done = {p: s for p, s in statuses.items() if p in names and s in ("ready", "error")}
        if len(done) == len(names):
            break
        if time.monotonic() - started > 7200:
            raise SystemExit(f"only {len(done)} of {len(names)} notes indexed after 2 hours")
        # a few documents: looked at often, so the wall time is not rounded up to the poll; many:
        # once a second (listing a thousand documents costs CPU the pipeline would miss)
        time.sleep(0.2 if len(names) <= 10 else 1.0)
    wall = time.monotonic() - started
    errors = sorted(p for p, s in done.items() if s == "error")
    return {"wall_seconds": round(wall, 1), "ready": len(done) - len(errors), "errors": errors}


def embedder_only(notes: list[tuple[str, str | bytes]]) -> dict:
    """The bundled embedder alone on the chunks and windows the pipeline makes of the notes."""
    from mirage_pipeline.chunk_parts import texts_to_embed
    from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
    from mirage_pipeline.embedders import create_embedder
    from mirage_pipeline.parsing import parse_document

    embedder = create_embedder("local:multilingual-e5-small")
    policy = ChunkingPolicy.for_window(embedder.max_tokens)
    chunks = [
        c
        for name, text in notes
        for c in chunk_document(
            parse_document(text if isinstance(text, bytes) else text.encode(), name),
            embedder.count_tokens,
            policy,
        )
    ]
    texts = texts_to_embed(chunks)
    started = time.perf_counter()
    embedder.embed_passages(texts)
    return {
        "chunks": len(chunks),
        "windows": len(texts) - len(chunks),
        "seconds": round(time.perf_counter() - started, 1),
    }


def pdf_book(root: Path, pages: int) -> bytes:
    """The PDF `bench/index_pdf.py` indexes (bench/parse_chunk.py's book)."""
    from parse_chunk import make_book

    path = root / "book.pdf"
    make_book(path, pages)
    return path.read_bytes()


def freshness(stack: Stack, count: int) -> list[float]:
    seconds = []
    for i in range(count):
        word = f"zanzibarquokka{i}"
        path = f"fresh-{i}.md"
        started = time.monotonic()
        (stack.documents / PROJECT / path).write_text(
            f"# Fresh note {i}\n\nThe {word} sleeps under the lemon tree until noon.\n",
            encoding="utf-8",
        )
        while not stack.finds(f"where does the {word} sleep", path):
            if time.monotonic() - started > 300:
                raise SystemExit(f"{path} not searchable after 5 minutes")
            time.sleep(0.2)
        seconds.append(round(time.monotonic() - started, 2))
        print(f"{path}: searchable after {seconds[-1]} s", file=sys.stderr)
        time.sleep(3)  # idle again
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=120)
    parser.add_argument("--fresh", type=int, default=5)
    parser.add_argument("--many", type=int, default=0)
    parser.add_argument("--pdf-pages", type=int, default=0)
    args = parser.parse_args()
    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="mirage-bench-folder-") as tmp:
        # each drop on a stack of its own: the sections of `--many` repeat text of the command
        # pages of `--notes`, which the embedding cache would answer (1.17 × instead of 1.64 ×)
        if args.fresh:
            with Stack(Path(tmp) / "fresh") as stack:
                result["freshness_seconds"] = freshness(stack, args.fresh)
            result["freshness_median_seconds"] = statistics.median(result["freshness_seconds"])
        if args.notes:
            result["notes"] = dropped_alone(tmp, "notes", git_notes(args.notes), PROJECT, 1.5)
        if args.many:
            result["many"] = dropped_alone(tmp, "many", git_sections(args.many), "many", 1.5)
        if args.pdf_pages:
            book = [("book.pdf", pdf_book(Path(tmp), args.pdf_pages))]
            result["pdf"] = dropped_alone(tmp, "pdf", book, "book", 1.15)
    result["targets"] = {"ratio": 1.5, "pdf_ratio": 1.15, "freshness_median_seconds": 5}
    print(json.dumps(result, indent=2))


def dropped_alone(
    tmp: str, name: str, files: list[tuple[str, str | bytes]], project: str, target: float
) -> dict:
    """`dropped` on a `mirage up` of its own, in `tmp`/`name`."""
    with Stack(Path(tmp) / name) as stack:
        return dropped(stack, files, project, target=target)


def dropped(stack: Stack, files: list[tuple[str, str | bytes]], project: str, target: float):
    """Drop `files` into `project` at once; wall time to all done against the embedder alone
    (timed after the stack went idle again, on the same chunks and windows)."""
    run = index_notes(stack, files, project=project)
    rows = stack.client.get(f"{stack.api}/projects/{project}/documents").json()
    alone = embedder_only(files)
    return {
        "files": len(files),
        "megabytes": round(sum(len(t) for _, t in files) / 1e6, 2),
        **run,
        "document_rows": len(rows),
        "duplicate_rows": len(rows) - len({r["filename"] for r in rows}),
        "chunks": alone["chunks"],
        "windows": alone["windows"],
        "embedder_only_seconds": alone["seconds"],
        "ratio": round(run["wall_seconds"] / alone["seconds"], 2),
        "target_ratio": target,
    }


if __name__ == "__main__":
    main()
