"""A back-of-book index is left out of what is searched, its prose and the rest of the book kept."""

from __future__ import annotations

from mirage_pipeline.parsing.back_index import drop_back_index
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section

BODY = "The page builder decides where a page breaks, weighing penalties and glue. " * 40


def _book(index_title: str, entries: list[Block], *, front: bool = False) -> ParsedDocument:
    index = Section(title=index_title, level=1, blocks=entries)
    chapters = [
        Section(title=f"{n} Chapter", level=1, blocks=[Block("paragraph", BODY)]) for n in (1, 2)
    ]
    children = [index, *chapters] if front else [*chapters, index]
    return ParsedDocument(format="pdf", title="Book", root=Section("", 0, children=children))


def _texts(doc: ParsedDocument) -> list[str]:
    return [b.text for _, s in doc.root.walk() for b in s.blocks]


def test_entries_go_and_prose_filed_under_the_index_stays() -> None:
    """impatient.pdf, lshortru.pdf, russianb.pdf: page-number lists with dot leaders, tables
    of entries; the note on reading the index and a bibliography the outline filed under it
    stay."""
    entries = [
        Block(
            "paragraph", "In the entries of this index, a page number in italics is a definition."
        ),
        Block("paragraph", "\\pagebreak, 19 \\pageref, 35, 74 \\pagestyle, 13 \\panelwidth, 83"),
        Block("table", "\\label, 35, 36, 48 | \\mathsf, 104\nLamport, Leslie, 1 | mathtext, 32"),
        Block("paragraph", "\\ProvidesLanguage . . . 1"),
        Block("paragraph", "гипертекст, 74 графика, 9, 67 греческие буквы, 49"),
        Block("paragraph", "[3] Michel Goossens. The LaTeX Companion. Addison-Wesley, 1994."),
    ]
    doc = drop_back_index(_book("Предметный указатель", entries))
    assert _texts(doc)[2:] == [entries[0].text, entries[5].text]
    assert doc.metadata["index_blocks_dropped"] == 4


def test_an_epub_index_of_linked_terms_goes_with_its_letter_sections() -> None:
    """tex-refs (DocBook): "Index" with a section per letter, each a list of linked terms."""
    doc = _book("Index", [])
    index = doc.root.children[-1]
    index.children = [
        Section(
            "A", 2, blocks=[Block("list", "- About this Document\n- Accents, Special Symbols")]
        ),
        Section("B", 2, blocks=[Block("list", "- BibTeX\n- Bibliography, creating")]),
    ]
    index.children.append(
        Section("Notes", 2, blocks=[Block("paragraph", "Bold page numbers mark definitions.")])
    )
    index.children.append(Section("C", 2))  # a letter the outline gives, with no text at all
    doc = drop_back_index(doc)
    assert len(_texts(doc)) == 3  # the two chapters and the note
    assert [c.title for c in doc.root.children] == ["1 Chapter", "2 Chapter", "Index"]
    assert [c.title for c in index.children] == ["Notes"]  # no empty letter groups (hologo)


def test_only_an_index_in_the_back_half_and_only_an_index() -> None:
    entries = [Block("paragraph", "\\pagebreak, 19 \\pageref, 35, 74 \\pagestyle, 13")]
    assert len(_texts(drop_back_index(_book("Index", entries, front=True)))) == 3
    for title in ("Thumb-indexes", "6 Make-Index", "Indexing your files", "Civil Index"):
        assert len(_texts(drop_back_index(_book(title, list(entries))))) == 3
    # numbered as a chapter, an appendix or a part (gnuplot's "VI Index")
    for title in (
        "Index",
        "8 Index",
        "General Index",
        "Алфавитный указатель",
        "INDEX",
        "VI Index",
        "B. Index",
        "XII. Предметный указатель",
    ):
        assert len(_texts(drop_back_index(_book(title, list(entries))))) == 2


def test_a_sphinx_index_of_linked_terms_in_tables_goes_a_table_of_sentences_stays() -> None:
    """Sphinx's genindex (Debian Policy's EPUB): a letters' bar and, per letter, a table of
    linked terms without page numbers ("reboot | reboot-required") were indexed as a chapter;
    babel's table of shorthands, which an outline filed under "Index", stays."""
    shorthands = Block(
        "table",
        "\\glqq | ”‘ | German opening double quote (looks like ,,).\n"
        "\\grqq | ”’ | German closing double quote (looks like “).",
    )
    doc = _book("Index", [Block("paragraph", "R | S"), shorthands])
    index = doc.root.children[-1]
    index.children = [
        Section("R", 2, blocks=[Block("table", "reboot | reboot-required\nsignaling | .pkgs")]),
        Section("S", 2, blocks=[Block("table", "signaling | reboot")]),
    ]
    doc = drop_back_index(doc)
    assert _texts(doc)[2:] == [shorthands.text]
    assert index.children == []
