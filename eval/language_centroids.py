"""Where the bundled embedder puts each language: the mean of its passage vectors per language.

    PYTHONPATH=. .venv/bin/python eval/language_centroids.py   # writes the centroids file

multilingual-e5-small places a passage partly by its meaning and partly by its language, so a
Russian question prefers Russian passages about something else to the English passage that
answers it. Subtracting part of each language's mean vector from passages and queries
(`mirage_pipeline.embedders.centering`) takes much of that language component out.

The means come from Debian documentation that the dev eval does not use (the Debian project
history in seven languages, the Developer's Reference in five, debmake-doc in three, the
Ukrainian LaTeX introduction), cut into passages the size of chunks and of their sentence
windows; each passage is filed under the language `identify_language` gives it (translations
leave paragraphs in English). Prints a JSON summary.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from documents import fetch_package  # noqa: E402

from mirage_pipeline.embedders import create_embedder  # noqa: E402
from mirage_pipeline.embedders.centering import CENTROIDS_FILE  # noqa: E402
from mirage_pipeline.language import identify_language  # noqa: E402

PER_LANGUAGE = 300  # passages of each size per language
SIZES = (60, 250)  # words: a sentence window, a chunk
HISTORY = "usr/share/doc/debian-history/docs/project-history.{}.txt.gz"
SOURCES: dict[str, list[tuple[str, str]]] = {
    lang: [("debian-history", HISTORY.format(lang))]
    for lang in ("en", "de", "es", "fr", "it", "pt", "ru")
}
for lang, package in (
    ("en", "developers-reference"),
    ("de", "developers-reference-de"),
    ("fr", "developers-reference-fr"),
    ("it", "developers-reference-it"),
    ("ru", "developers-reference-ru"),
):
    folder = "" if lang == "en" else f"{lang}/"
    SOURCES[lang].append((package, f"usr/share/developers-reference/{folder}_sources"))
for lang in ("en", "de", "ru"):
    SOURCES[lang].append(("debmake-doc", f"usr/share/doc/debmake-doc/debmake-doc.{lang}.txt.gz"))
SOURCES["uk"] = [
    ("texlive-lang-cyrillic", "usr/share/doc/texlive-doc/latex/lshort-ukr/lshort-ukr.pdf")
]


def read_text(path: Path) -> str:
    if path.is_dir():
        return "\n\n".join(read_text(p) for p in sorted(path.rglob("*.txt")))
    if path.suffix == ".pdf":
        import pymupdf

        with pymupdf.open(path) as doc:
            return "\n\n".join(page.get_text() for page in doc)
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def passages(text: str, words: int) -> list[str]:
    """Runs of whole paragraphs of about `words` words (prose only: no code, no tables)."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    paragraphs = [p for p in paragraphs if len(p.split()) >= 8 and not re.search(r"[{}|=<>]", p)]
    found, current = [], []
    for paragraph in paragraphs:
        current.append(paragraph)
        if sum(len(p.split()) for p in current) >= words:
            found.append(" ".join(" ".join(current).split()[: words + words // 4]))
            current = []
    return found


def main() -> None:
    rng = random.Random(7)
    pools: dict[str, dict[int, list[str]]] = {}
    for sources in SOURCES.values():
        for package, member in sources:
            text = read_text(fetch_package(package) / member)
            for size in SIZES:
                for passage in passages(text, size):
                    found = identify_language(passage)
                    if found in SOURCES:
                        pools.setdefault(found, {}).setdefault(size, []).append(passage)
    embedder = create_embedder("local:multilingual-e5-small")
    centroids, counts = {}, {}
    for lang, by_size in sorted(pools.items()):
        picked = []
        for size in SIZES:
            pool = by_size.get(size, [])
            picked += rng.sample(pool, min(PER_LANGUAGE, len(pool)))
        vectors = embedder.embed_passages(picked)
        centroids[lang] = vectors.mean(axis=0).astype(np.float32)
        counts[lang] = len(picked)
        print(f"{lang}: {len(picked)} passages", file=sys.stderr)
    np.savez(CENTROIDS_FILE, model=np.array(embedder.name), **centroids)
    print(json.dumps({"file": str(CENTROIDS_FILE), "passages": counts}, indent=1))


if __name__ == "__main__":
    main()
