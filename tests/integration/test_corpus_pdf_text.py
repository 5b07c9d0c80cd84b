"""The body text of the real PDFs of ../shared/corpus as people read it: words and links whole,
footnotes apart, code listings with their lines, list items not taken for headings."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import Block, ParsedDocument

pytestmark = pytest.mark.corpus

FHS = "pdf/no-toc/fhs-3.0.en.pdf"
TEXLIVE = "pdf/with-toc/texlive-guide-2021.ru.pdf"
GNU = "pdf/with-toc/gnu-coding-standards.en.pdf"


@cache
def _parse(corpus: Path, path: str) -> ParsedDocument:
    return parse_document((corpus / path).read_bytes(), path)


def _blocks(doc: ParsedDocument) -> list[Block]:
    return [b for _, s in doc.root.walk() for b in s.blocks]


def _text(doc: ParsedDocument) -> str:
    return "\n".join(b.text for b in _blocks(doc))


def test_words_broken_across_blocks_are_whole(corpus: Path) -> None:
    text = _text(_parse(corpus, TEXLIVE))
    assert "для дополнительных пакетов, шрифтов" in text
    assert "для хранения создаваемых автоматически файлов" in text
    assert "может послужить для начала" in text
    assert "для до-" not in text and "хра-\n" not in text


def test_urls_and_paths_have_no_space_inside(corpus: Path) -> None:
    texlive = _text(_parse(corpus, TEXLIVE))
    assert "https://www.ctan.org/pkg/catalogue" in texlive
    assert "https://tug.org/fonts/fontinstall.html" in texlive
    fhs = _text(_parse(corpus, FHS))
    assert "programs in /usr/sbin (useradd" in fhs
    assert "the crond PID file is named /run/crond.pid" in fhs
    assert "/usr/ share" not in fhs and "/ usr/" not in fhs


def test_footnotes_are_blocks_of_their_own(corpus: Path) -> None:
    texts = [b.text for b in _blocks(_parse(corpus, FHS))]
    assert any(t.startswith("11 Obviously, there are no manual pages in /") for t in texts)
    assert any(t.startswith("12 For example, if /usr/share/man has no") for t in texts)
    assert not any("11Obviously" in t or "Really. 12" in t for t in texts)
    assert _parse(corpus, FHS).metadata["footnotes"] >= 40


def test_compounds_keep_their_hyphen(corpus: Path) -> None:
    fhs = _text(_parse(corpus, FHS))
    assert "the sendmail-compatible command" in fhs and "FHS-compliant system" in fhs
    gnu = _text(_parse(corpus, GNU))
    assert "vcs-to-changelog" in gnu and "program-specific" in gnu
    assert "programspecific" not in gnu


def test_code_stays_a_listing(corpus: Path) -> None:
    blocks = _blocks(_parse(corpus, GNU))
    listing = next(b for b in blocks if "return ++x + bar ();" in b.text)
    assert listing.kind == "code"
    assert "    while (z)\n      {\n        haha += foo (z, z);" in listing.text
    after = blocks[blocks.index(listing) + 1]
    assert after.kind == "paragraph" and after.text.startswith("We find it easier to read")


def test_bullets_are_not_headings(corpus: Path) -> None:
    doc = _parse(corpus, FHS)
    assert not [t["title"] for t in doc.toc() if t["title"].startswith("•")]
    assert "• ldconfig" in _text(doc)
