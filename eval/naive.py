"""The naive recipe peers ship, as a baseline: the file's plain text, 1,000-character windows
overlapping by 200, embedded with the same model, exact cosine top-k."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np
import pymupdf
from lxml import etree, html

from mirage_pipeline.embedders.base import revision_of

WINDOW = 1000
OVERLAP = 200


def plain_text(path: Path, name: str) -> str:
    """What a naive pipeline reads: PyMuPDF page text, EPUB/FB2 text content, text files as is.

    A PDF whose text layer is in a legacy 8-bit encoding is repaired the way the parser repairs
    it (the baseline's text layer is "repaired by hand", as in the independent check)."""
    data = path.read_bytes()
    suffix = name.rsplit(".", 1)[-1].lower()
    if suffix == "pdf":
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            text = "\n".join(page.get_text() for page in doc)
        return _repaired(text, data)
    if suffix == "epub":
        archive = zipfile.ZipFile(io.BytesIO(data))
        parts = []
        for item in _spine(archive):
            root = html.fromstring(archive.read(item))
            body = root.find(".//body")
            parts.append((body if body is not None else root).text_content())
        return "\n".join(parts)
    if suffix == "fb2":
        root = etree.parse(
            io.BytesIO(data), etree.XMLParser(resolve_entities=False, recover=True)
        ).getroot()
        paragraphs = [
            "".join(el.itertext())
            for el in root.iter()
            if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] in ("p", "v", "subtitle")
        ]
        return "\n".join(paragraphs)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1251")


def _repaired(text: str, data: bytes) -> str:
    try:
        from mirage_pipeline.parsing.pdf_encodings import repair_text  # type: ignore
    except ImportError:
        return unmojibake(text)
    return repair_text(text, data)


def unmojibake(text: str) -> str:
    """Cyrillic А–я read as Latin-1 (cp1251 and T2A both put them at 0xC0–0xFF), put back."""
    latin = sum("\u00c0" <= c <= "\u00ff" for c in text)
    if latin < 0.5 * sum(c.isalpha() for c in text):
        return text
    return "".join(chr(ord(c) + 0x350) if "\u00c0" <= c <= "\u00ff" else c for c in text)


def _spine(archive: zipfile.ZipFile) -> list[str]:
    container = etree.fromstring(archive.read("META-INF/container.xml"))
    opf_path = next(el.get("full-path") for el in container.iter() if el.get("full-path"))
    opf = etree.fromstring(archive.read(opf_path))
    base = opf_path.rsplit("/", 1)[0] + "/" if "/" in opf_path else ""
    manifest = {
        el.get("id"): el.get("href")
        for el in opf.iter()
        if isinstance(el.tag, str) and el.tag.endswith("item")
    }
    # a manifest href with a #fragment (SiSU's EPUBs) names its file once, read once
    items = (
        base + manifest[el.get("idref")].split("#", 1)[0]
        for el in opf.iter()
        if isinstance(el.tag, str) and el.tag.endswith("itemref") and el.get("idref") in manifest
    )
    return list(dict.fromkeys(items))


def windows(text: str) -> list[str]:
    step = WINDOW - OVERLAP
    return [text[i : i + WINDOW] for i in range(0, max(1, len(text) - OVERLAP), step)]


class NaiveIndex:
    """Every document's windows and their vectors, searched by exact cosine."""

    def __init__(self, embedder, cache: Path) -> None:
        self.embedder = embedder
        self.cache = cache
        self.files: list[str] = []
        self.texts: list[str] = []
        self.vectors: list[np.ndarray] = []

    def add(self, name: str, text: str) -> None:
        parts = windows(text)
        digest = hashlib.sha256(
            (revision_of(self.embedder) + "\x1e" + "\x1e".join(parts)).encode()
        ).hexdigest()[:24]
        cached = self.cache / f"naive-{digest}.npy"
        if cached.exists():
            vectors = np.load(cached)
        else:
            vectors = np.asarray(self.embedder.embed_passages(parts), dtype=np.float32)
            np.save(cached, vectors)
        self.files.extend([name] * len(parts))
        self.texts.extend(parts)
        self.vectors.append(vectors)

    def search(self, query: str, k: int = 10) -> list[tuple[str, str]]:
        matrix = np.vstack(self.vectors)
        q = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        scores = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q) + 1e-9)
        best = np.argsort(-scores)[:k]
        return [(self.files[i], self.texts[i]) for i in best]
