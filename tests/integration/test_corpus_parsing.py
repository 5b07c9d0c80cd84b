"""The parsers and the chunker on the real documents in ../shared/corpus, against facts.json."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
from mirage_pipeline.parsing import ParseError, parse_document
from mirage_pipeline.parsing.policy import load_policy
from tests.conftest import CORPUS, CORPUS_ABSENT

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=CORPUS_ABSENT)
FACTS = json.loads((CORPUS / "facts.json").read_text()) if CORPUS.is_dir() else {}


def _facts(kind: str, expect: str = "ok") -> list[str]:
    return sorted(
        path
        for path, f in FACTS.items()
        if f.get("kind") == kind and f["expect"].startswith(expect)
    )


def _parse(path: str):
    return parse_document((CORPUS / path).read_bytes(), path)


def _headings(doc) -> list[tuple[int, str]]:
    return [(t["level"], t["title"]) for t in doc.toc() if t["title"] != "Front matter"]


@pytest.mark.parametrize("path", [*_facts("pdf"), "pdf/no-toc/fhs-3.0.en.pdf"])
def test_pdf_pages_and_outline(path: str) -> None:
    facts = FACTS[path]
    doc = _parse(path)
    assert doc.pages == facts["page_count"]
    if facts["toc_entries"]:
        entries = [t for t in doc.toc() if t["title"] != "Front matter"]
        want = [(lvl, " ".join(title.split()), page) for lvl, title, page in facts["toc_first5"]]
        # before the outline's first entry, headings it leaves out but sets in its top-level
        # style are sections too (churchslavonic's "Introduction"): the outline follows them
        first = next(i for i, t in enumerate(entries) if t["title"] == want[0][1])
        assert all(t["page"] <= want[0][2] and t["level"] == 1 for t in entries[:first])
        entries = entries[first:]
        assert len(entries) == facts["toc_entries"]
        assert [(t["level"], t["title"], t["page"]) for t in entries[:5]] == want
        assert Counter(str(t["level"]) for t in entries) == Counter(
            {k: v for k, v in facts["toc_levels"].items()}
        )


@pytest.mark.parametrize(
    ("path", "pages"),
    [
        ("pdf/with-toc/gnu-coding-standards.en.pdf", [3, 4]),  # contents; the index at the end
        ("pdf/no-toc/fhs-3.0.en.pdf", [4, 5, 6, 7]),  # "Printed Table of Contents on p. 4–7"
        ("pdf/with-toc/texlive-guide-2021.ru.pdf", [1, 2]),
    ],
)
def test_printed_contents_pages_are_not_indexed(path: str, pages: list[int]) -> None:
    doc = _parse(path)
    assert doc.metadata["printed_contents_pages"][: len(pages)] == pages
    text = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert not re.search(r"(?:\. ){4,}\.|\.{5,}", text)  # no dot leaders anywhere
    if "texlive" in path:  # the body that starts on the last contents page is kept
        assert "В этом документе описаны основные возможности" in text


def test_pdf_tables_are_kept_as_rows() -> None:
    fhs = _parse("pdf/no-toc/fhs-3.0.en.pdf")
    tables = [b.text for _, s in fhs.root.walk() for b in s.blocks if b.kind == "table"]
    assert "static | /usr /opt | /etc /boot" in tables[0].split("\n")  # page 9, a wrapped cell
    assert any("bin | Essential command binaries" in t.split("\n") for t in tables)
    assert "shareable unshareable" not in [t["title"] for t in fhs.toc()]  # header, not heading
    gnu = _parse("pdf/with-toc/gnu-coding-standards.en.pdf")
    rows = [
        r
        for _, s in gnu.root.walk()
        for b in s.blocks
        if b.kind == "table"
        for r in b.text.split("\n")
    ]
    assert "‘batch’ | Used in GDB." in rows  # the Table of Long Options


def test_pdf_without_outline_gets_a_tree_from_fonts() -> None:
    fhs = _parse("pdf/no-toc/fhs-3.0.en.pdf")
    titles = [t for _, t in _headings(fhs)]
    assert "Chapter 1. Introduction" in titles and "1.1. Purpose" in titles
    eskd = _parse("pdf/no-toc/eskd-class.ru.pdf")
    assert "1 Параметры класса" in [t for _, t in _headings(eskd)]  # number and title joined


def _printed_contents(path: Path, pages: range) -> list[tuple[str, str]]:
    """(number, title) of the numbered rows of printed contents pages, read with PyMuPDF."""
    row = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+(.+?)\s*(?:\.\s*){3,}\d+$")
    with pymupdf.open(path) as pdf:
        return [
            (found.group(1), found.group(2))
            for number in pages
            for line in pdf[number - 1].get_text().splitlines()
            if (found := row.match(line.strip()))
        ]


def _words(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


@pytest.mark.corpus
def test_pdf_without_outline_has_every_numbered_contents_entry_at_its_depth(corpus: Path) -> None:
    """FHS: its printed contents (pp. 4–7) lists 160 numbered sections; each is in the tree at
    the level its numbering gives ("3.5." level 2), whatever font the heading is set in."""
    path = corpus / "pdf/no-toc/fhs-3.0.en.pdf"
    entries = dict(_printed_contents(path, range(4, 8)))
    assert len(entries) >= 150 and "3.5" in entries and "5.8" in entries
    doc = parse_document(path.read_bytes(), path.name)
    tree = {}
    for _, section in doc.root.walk():
        numbered = re.match(r"^(?:Chapter )?(\d+(?:\.\d+)*)\. (.+)", section.title)
        if numbered:
            tree[numbered.group(1)] = (section.level, _words(numbered.group(2)))
    wrong = {
        number: tree.get(number)
        for number, title in entries.items()
        if tree.get(number) != (number.count(".") + 1, _words(title))
    }
    assert not wrong
    assert doc.metadata["structure_source"] == "printed contents and font sizes"


@pytest.mark.corpus
def test_text_about_boot_is_cited_under_its_section(corpus: Path, local_embedder) -> None:
    path = corpus / "pdf/no-toc/fhs-3.0.en.pdf"
    doc = parse_document(path.read_bytes(), path.name)
    chunks = chunk_document(doc, local_embedder.count_tokens, ChunkingPolicy.for_window(512))
    boot = [
        c for c in chunks if "Thus /boot stores data that is used before the kernel" in c.content
    ]
    assert len(boot) == 1
    structure = boot[0].structure
    assert structure["heading_path"][:2] == [
        "Chapter 3. The Root Filesystem",
        "3.5. /boot : Static files of the boot loader",
    ]
    assert structure["section"].startswith("3.5.")


BROKEN = {
    "pdf/broken/empty.pdf": "empty file",
    "pdf/broken/encrypted-user-password.en.pdf": "encrypted PDF",
    "pdf/broken/scanned-image-only.ru.pdf": (
        "scanned PDF without a text layer; OCR is not supported"
    ),
    "pdf/broken/live-manual-outline-but-no-text.en.pdf": "PDF without body text",
    "pdf/broken/truncated-30pct.ru.pdf": "corrupt PDF",
    "pdf/broken/truncated-50pct-objstm.ru.pdf": "corrupt PDF",
    "tricky/not-really-a-pdf.pdf": "not a PDF",
}


@pytest.mark.parametrize(("path", "reason"), sorted(BROKEN.items()))
def test_broken_files_fail_with_their_named_reason(path: str, reason: str) -> None:
    with pytest.raises(ParseError, match=re.escape(reason)):
        _parse(path)


@pytest.mark.parametrize(
    "path",
    [
        "pdf/broken/encrypted-owner-only-permissions.en.pdf",
        "epub/broken/live-manual.en.epub",
        "epub/broken/fbreader-intro.ru.epub",
        "tricky/fbreader-minihelp-undefined-entity.ru.fb2",
    ],
)
def test_damaged_but_readable_files_parse_with_a_warning(path: str) -> None:
    doc = _parse(path)
    assert doc.warnings
    assert any(s.blocks for _, s in doc.root.walk())


def test_damaged_epubs_keep_their_structure() -> None:
    fbreader = _parse("epub/broken/fbreader-intro.ru.epub")
    assert fbreader.title == "FBReader: краткое руководство"
    assert "Что такое FBReader" in [t for _, t in _headings(fbreader)]
    live = _parse("epub/broken/live-manual.en.epub")
    assert "1.1 For the impatient" in [t for _, t in _headings(live)]


def test_epub_contents_pages_are_not_indexed() -> None:
    # FBReader's hand-made "Оглавление" (a list of links to its own anchors) and the Live
    # Manual's index.xhtml (h1–h5 of class "toc" linking to the chapters) are navigation.
    fbreader = _parse("epub/broken/fbreader-intro.ru.epub")
    assert "Оглавление" not in [t for _, t in _headings(fbreader)]
    lists = [b.text for _, s in fbreader.root.walk() for b in s.blocks if b.kind == "list"]
    assert not any("- Что такое FBReader" in text for text in lists)
    live = _parse("epub/broken/live-manual.en.epub")
    assert [t for _, t in _headings(live)].count("1.1 For the impatient") == 1
    chunks = chunk_document(live, lambda t: len(t.split()) + 2, ChunkingPolicy.for_window(512))
    assert {c.lang for c in chunks} == {"en"}


@pytest.mark.parametrize("path", _facts("epub"))
def test_epub_metadata_and_toc(path: str) -> None:
    facts = FACTS[path]
    doc = _parse(path)
    assert doc.title == facts["title"]
    assert doc.metadata["language"] == facts["language"]
    assert facts["creator"] in doc.metadata["authors"]
    ours = {" ".join(t.split()) for _, t in _headings(doc)}
    linked = [" ".join(t.split()) for _, t, href in facts["toc"] if href]
    assert set(linked) <= ours


def test_one_file_epub_is_cut_at_its_anchors() -> None:
    doc = _parse("epub/the-waste-land.epub3.epub")
    sections = {}
    for _, s in doc.root.walk():
        sections.setdefault(s.title, s)  # the notes repeat the part titles further down
    burial = " ".join(b.text for b in sections["I. THE BURIAL OF THE DEAD"].blocks)
    assert "April is the cruellest month" in burial
    assert "A GAME OF CHESS" not in burial


@pytest.mark.parametrize("path", _facts("fb2"))
def test_fb2_metadata_and_sections(path: str) -> None:
    facts = FACTS[path]
    doc = _parse(path)
    assert doc.title == facts["book_title"]
    assert doc.metadata["authors"] == facts["authors"]
    assert doc.metadata["language"] == facts["lang"]
    top = [t for lvl, t in _headings(doc) if lvl == 1]
    assert top == facts["top_level_sections"]


@pytest.mark.parametrize("path", [*_facts("markdown"), "tricky/markdown-windows-1251.ru.md"])
def test_markdown_headings(path: str) -> None:
    facts = FACTS[path]
    doc = _parse(path)
    if "headings_list" in facts:
        want = [(lvl, re.sub(r"<[^>]+>", "", t).strip()) for lvl, t in facts["headings_list"]]
        assert _headings(doc) == want
    if facts.get("frontmatter_type"):
        assert doc.metadata["type"] == facts["frontmatter_type"]
        assert doc.metadata["tags"] == facts["frontmatter_tags"]


def test_extended_mind_policy(tmp_path: Path) -> None:
    (tmp_path / ".mirage.yaml").write_text(
        "indexing:\n  markdown:\n    preset: rag-indexing-v0.1\n"
    )
    policy = load_policy(tmp_path)
    folder = CORPUS / "markdown" / "extended-mind"
    skipped = {}
    for file in sorted(folder.glob("*.md")):
        doc = parse_document(file.read_bytes(), file.name, policy)
        skipped[file.name] = doc.skipped is not None
    assert skipped == {
        f.split("/")[-1]: FACTS[f]["expect"].startswith("skip")
        for f in FACTS
        if f.startswith("markdown/extended-mind/")
    }


def _running_lines(path: Path) -> set[str]:
    """First and last lines of pages that repeat on 3+ pages: running headers and footers."""
    counts: Counter[str] = Counter()
    with pymupdf.open(path) as pdf:
        for page in pdf:
            lines = [ln.strip() for ln in page.get_text().splitlines() if ln.strip()]
            counts.update({ln for ln in lines[:2] + lines[-2:] if len(ln) >= 12})
    return {line for line, n in counts.items() if n >= 3}


@pytest.mark.parametrize(
    "path",
    [
        "pdf/with-toc/gnu-coding-standards.en.pdf",
        "pdf/with-toc/texlive-guide-2021.ru.pdf",
        "pdf/with-toc/eskdx-manual.ru.pdf",
    ],
)
def test_book_length_pdf_chunks(path: str, local_embedder) -> None:
    count = local_embedder.count_tokens
    chunks = chunk_document(_parse(path), count, ChunkingPolicy.for_window(512))
    assert len(chunks) > 20
    with_chapter = sum(1 for c in chunks if c.structure.get("chapter"))
    assert with_chapter / len(chunks) >= 0.95
    # the engine's own tokenizer, not the word-cached count the chunker used
    exact = [local_embedder.engine_count_tokens(c.embed_text) for c in chunks]
    assert [count(c.embed_text) for c in chunks] == exact
    assert max(exact) <= local_embedder.max_tokens
    assert all(c.structure.get("page") or c.structure.get("page_start") for c in chunks)
    running = _running_lines(CORPUS / path)
    if "eskdx" not in path:  # its stamp lines are short words; the others repeat headers
        assert running, "the test needs a PDF with running headers"
    leaked = [line for line in running for c in chunks if line in c.content]
    assert not leaked
