"""Parse + chunk throughput on real books (PDF), on one core. Prints JSON.

    .venv/bin/python bench/parse_chunk.py [--repeat 5] [--pdf FILE] [--pages 320]

The figure (`pages_per_second_median`) is over five real books of the dev eval, English and
Russian, 1 041 pages (`BOOKS`: TeX for the Impatient, the Debian Reference, the Debian
installation guide in Russian, lshort-russian — an old pdfTeX book in T2A, re-decoded — and
the MetaPost manual in Russian), fetched from Debian packages by eval/documents.py into
eval/.cache: all pages over the sum of each book's median seconds. Beside it, as every
figure before 2026-12-02 was taken, a book-like PDF written with PyMuPDF (an outline,
chapters and sections, running headers, page numbers, about 2 300 characters of English and
Russian prose per page; `--pages`): `synthetic`. Real books take 1.7–3.4 × its time per page
(2.2–2.4 × in all in three runs of 2026-12-02). `--pdf FILE` measures that one file.
Tokens are counted with the bundled embedder's tokenizer, as the pipeline does. Each figure
is the median of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

import pymupdf


def _words(text: str) -> list[str]:
    return text.split()


WORDS_EN = _words(
    "index retrieval passage chapter section embedding vector query citation page book "
    "structure paragraph sentence document search result engine relevance token window "
    "the a of to and in that is for with as on by it this be are from or at an"
)
WORDS_RU = _words(
    "индекс поиск фрагмент глава раздел вектор запрос цитата страница книга структура "
    "абзац предложение документ результат модель окно и в не на что с по как это для от"
)
_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Cyrillic glyphs, if present


def make_book(path: Path, pages: int, seed: int = 7, edit_page: int | None = None) -> None:
    """An A5 book: ~2 600 characters per page, an outline, running headers, page numbers.

    `edit_page` changes the first line of that page's text (an edited paragraph).
    """
    rng = random.Random(seed)
    doc = pymupdf.open()
    font = {"fontname": "dejavu", "fontfile": str(_FONT)} if _FONT.exists() else {}
    toc = []
    chapter = 0
    for number in range(1, pages + 1):
        page = doc.new_page(width=420, height=595)
        header = f"A Synthetic Handbook — chapter {max(chapter, 1)}"
        page.insert_text((40, 30), header, fontsize=7, **font)
        y = 60.0
        if number % 12 == 1:
            chapter += 1
            title = f"Chapter {chapter}. On topic {chapter}"
            page.insert_text((40, y), title, fontsize=16, **font)
            toc.append([1, title, number])
            y += 30
        if number % 4 == 3:
            title = f"{chapter}.{number % 12} A section about {rng.choice(WORDS_EN)}"
            page.insert_text((40, y), title, fontsize=12, **font)
            toc.append([2, title, number])
            y += 22
        words = WORDS_RU if (font and chapter % 3 == 0) else WORDS_EN
        line = ""
        while y < 555:
            word = rng.choice(words)
            if len(line) + len(word) > 68:
                if number == edit_page:
                    line, edit_page = "an edited sentence replaces this line entirely", None
                page.insert_text((40, y), line, fontsize=9, **font)
                y += 12.5
                line = ""
                if rng.random() < 0.15:
                    y += 6  # paragraph break
            line = f"{line} {word}".strip() + ("." if rng.random() < 0.08 else "")
        page.insert_text((205, 580), str(number), fontsize=7, **font)
    doc.set_toc(toc)
    doc.set_metadata({"title": "A Synthetic Handbook"})
    doc.save(path)
    doc.close()


BOOKS = (
    "impatient.pdf",
    "debian-reference.en.pdf",
    "install.ru.pdf",
    "lshortru.pdf",
    "mpman-ru.pdf",
)


def book_paths() -> list[Path]:
    """The dev eval's book-length PDFs, fetched (apt-get download) on first use."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "eval"))
    from documents import SOURCES, document_path

    by_name = {source.name: source for source in SOURCES}
    return [document_path(by_name[name]) for name in BOOKS]


def measure(path: Path, repeat: int, embedder) -> dict:
    """Median parse, chunk and total seconds of one PDF, and what its chunks are like."""
    from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
    from mirage_pipeline.parsing import parse_document

    data = path.read_bytes()
    tokenizer = embedder.tokenizer
    policy = ChunkingPolicy.for_window(embedder.max_tokens)
    parse_s, chunk_s, total_s = [], [], []
    for _ in range(repeat):
        started = time.perf_counter()
        doc = parse_document(data, path.name)
        parsed = time.perf_counter()
        tokenizer.forget()  # every repeat counts the tokens of a book it has never seen
        chunks = chunk_document(doc, embedder.count_tokens, policy)
        done = time.perf_counter()
        parse_s.append(parsed - started)
        chunk_s.append(done - parsed)
        total_s.append(done - started)
    pages = doc.pages or 0
    exact = [embedder.engine_count_tokens(c.embed_text) for c in chunks]
    return {
        "pdf": str(path),
        "pages": pages,
        "chunks": len(chunks),
        "chars": sum(len(c.content) for c in chunks),
        "parse_seconds_median": round(statistics.median(parse_s), 3),
        "chunk_seconds_median": round(statistics.median(chunk_s), 3),
        "seconds_median": round(statistics.median(total_s), 3),
        "pages_per_second_median": round(pages / statistics.median(total_s), 1),
        "tokens_max_exact": max(exact),
        "tokens_median_exact": statistics.median(exact),
        "window": embedder.max_tokens,
        "with_chapter_share": round(
            sum(1 for c in chunks if c.structure.get("chapter")) / len(chunks), 3
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=320, help="of the synthetic book")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pdf", type=Path, help="measure this file only")
    args = parser.parse_args()
    # this checkout's code, not whichever one the virtualenv's editable install points at
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    from mirage_pipeline.embedders.local import LocalE5Embedder

    embedder = LocalE5Embedder()  # its tokenizer forgets every word before each repeat
    if args.pdf is not None:
        report = measure(args.pdf, args.repeat, embedder) | {"target_pages_per_second": 200}
    else:
        books = [measure(path, args.repeat, embedder) for path in book_paths()]
        pages = sum(book["pages"] for book in books)
        seconds = sum(book["seconds_median"] for book in books)
        synthetic = Path(os.environ.get("TMPDIR", "/tmp")) / f"mirage-bench-{args.pages}p-v2.pdf"
        if not synthetic.exists():
            make_book(synthetic, args.pages)
        report = {
            "pages": pages,
            "pages_per_second_median": round(pages / seconds, 1),
            "target_pages_per_second": 200,
            "books": {Path(book.pop("pdf")).name: book for book in books},
            "synthetic": measure(synthetic, args.repeat, embedder),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
