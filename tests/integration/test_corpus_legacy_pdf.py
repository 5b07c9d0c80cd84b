"""The real legacy-encoded PDF pair of ../shared/corpus: the T2A copy re-decoded, its correctly
mapped twin left byte for byte as PyMuPDF reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymupdf
import pytest

from mirage_pipeline.parsing import parse_document

pytestmark = pytest.mark.corpus

T2A = "pdf/legacy-encoding/ukrainian-orthography-rules90-t2a.uk.pdf"
MAPPED = "pdf/legacy-encoding/ukrainian-orthography-rules60-ok.uk.pdf"


def _text(doc) -> str:
    return "\n".join(b.text for _, s in doc.root.walk() for b in s.blocks)


def test_t2a_book_reads_as_ukrainian(corpus: Path) -> None:
    facts = json.loads((corpus / "facts.json").read_text())[T2A]
    doc = parse_document((corpus / T2A).read_bytes(), Path(T2A).name)
    text = _text(doc)
    assert text.startswith(facts["first_line_meant"])  # "Український правопис/НАН України, Ін-т…"
    for phrase in facts["contains_meant"]:
        assert phrase.lower() in text.lower()
    assert not re.search(r"[\xc0-\xff]", text)  # no Latin-1 letter is left
    assert doc.warnings[0] == "pages 1–2: text re-decoded from T2A (fonts without a Unicode map)"
    assert doc.metadata["legacy_encodings"] == ["T2A"]
    assert doc.metadata["language"] == facts["language"]


def test_correctly_mapped_twin_is_untouched(corpus: Path) -> None:
    data = (corpus / MAPPED).read_bytes()
    doc = parse_document(data, Path(MAPPED).name)
    assert not any("re-decoded" in w for w in doc.warnings)
    assert "legacy_encodings" not in doc.metadata
    raw = " ".join(" ".join(page.get_text().split()) for page in pymupdf.open(stream=data))
    words = _text(doc).split()
    assert words[:8] == raw.split()[:8]  # "Український правопис. Підгот. ін-том …" as given
    assert doc.metadata["language"] == "uk"
