"""PDF headings without an outline, on PDFs written in code: font rules and printed contents."""

from __future__ import annotations

import pymupdf

from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section
from mirage_pipeline.parsing.pdf_contents import drop_contents_section
from mirage_pipeline.parsing.pdf_outline import ordered_outline

BODY = (
    "The hierarchy keeps static files apart from variable ones, so that a system can mount "
    "them read-only and share them between machines without surprises."
)

# A line: (text, font size, bold, space above it in points). PyMuPDF puts a line into the
# block of the lines above it when the space is small, as real producers (Apache FOP) do.
# In place of `bold`, a Base-14 font's name ("heit": Helvetica Oblique); in place of `text`,
# pieces in fonts and sizes of their own set one after the other on the line's baseline.
Line = tuple[str | list[tuple[str, float, str]], float, bool | str, float]


def _pdf(pages: list[list[Line]]) -> bytes:
    doc = pymupdf.open()
    for number, lines in enumerate(pages, start=1):
        page = doc.new_page(width=595, height=842)
        y = 50.0
        for text, size, bold, space in lines:
            y += space + size
            font = bold if isinstance(bold, str) else "hebo" if bold else "helv"
            x = 40.0
            for piece, piece_size, piece_font in (
                [(text, size, font)] if isinstance(text, str) else text
            ):
                page.insert_text((x, y), piece, fontsize=piece_size, fontname=piece_font)
                x += pymupdf.get_text_length(piece, fontname=piece_font, fontsize=piece_size)
        page.insert_text((290, 800), str(number), fontsize=8)
    data = doc.tobytes()
    doc.close()
    return data


def _body(n: int = 2, space: float = 2) -> list[Line]:
    """Lines of a paragraph; `space` above the first (a larger space starts a new block)."""
    words = BODY.split()
    half = len(words) // 2
    lines = [" ".join(words[:half]), " ".join(words[half:])] * n
    return [(text, 10, False, space if i == 0 else 2) for i, text in enumerate(lines)]


def _sections(doc: ParsedDocument) -> dict[str, Section]:
    return {s.title: s for _, s in doc.root.walk() if s.level}


def _levels(doc: ParsedDocument) -> list[tuple[int, str]]:
    return [(t["level"], t["title"]) for t in doc.toc() if t["title"] != "Front matter"]


def test_numbered_heading_in_the_block_of_the_paragraph_above_is_a_heading() -> None:
    """FHS: "3.5. /boot …" comes out in one PyMuPDF block with the paragraph above it."""
    pdf = _pdf(
        [
            [
                ("Chapter 3. The Root Filesystem", 24, True, 0),
                *_body(),
                ("3.4. /bin : Essential user command binaries", 18, True, 30),
                *_body(),
                ("3.5. /boot : Static files of the boot loader", 18, True, 10),
                (
                    "The boot loader reads its map from this directory before the kernel.",
                    10,
                    False,
                    4,
                ),
                *_body(),
            ]
        ]
    )
    doc = parse_document(pdf, "fhs.pdf")
    assert _levels(doc) == [
        (1, "Chapter 3. The Root Filesystem"),
        (2, "3.4. /bin : Essential user command binaries"),
        (2, "3.5. /boot : Static files of the boot loader"),
    ]
    sections = _sections(doc)
    boot = sections["3.5. /boot : Static files of the boot loader"]
    assert boot.blocks[0].text.startswith("The boot loader reads its map")
    assert "boot loader reads" not in " ".join(
        b.text for b in sections["3.4. /bin : Essential user command binaries"].blocks
    )


def test_two_line_heading_and_one_ending_in_a_full_stop_are_headings() -> None:
    pdf = _pdf(
        [
            [
                ("Chapter 4. The /usr Hierarchy", 24, True, 0),
                *_body(),
                ("4.1. Purpose", 18, True, 30),
                *_body(),
                ("4.2. /usr/bin : Essential user command binaries (for", 18, True, 10),
                ("use by all users)", 18, True, 2),
                *_body(),
                ("4.3. /usr/include : Directory for standard", 18, True, 10),
                ("include files.", 18, True, 2),
                ("Header files for the C compiler live here.", 10, False, 4),
            ]
        ]
    )
    doc = parse_document(pdf, "usr.pdf")
    assert _levels(doc) == [
        (1, "Chapter 4. The /usr Hierarchy"),
        (2, "4.1. Purpose"),
        (2, "4.2. /usr/bin : Essential user command binaries (for use by all users)"),
        (2, "4.3. /usr/include : Directory for standard include files."),
    ]
    include = _sections(doc)["4.3. /usr/include : Directory for standard include files."]
    assert include.blocks[0].text == "Header files for the C compiler live here."


def test_a_bold_term_opening_a_paragraph_is_not_a_heading() -> None:
    pdf = _pdf(
        [
            [
                ("Chapter 1. Terms", 24, True, 0),
                *_body(),
                ("Rationale", 14, True, 20),
                *_body(space=12),
                ("--verbose", 10, True, 10),
                ("prints every file as it is copied, then a summary of the run.", 10, False, 2),
                *_body(),
            ]
        ]
    )
    titles = [title for _, title in _levels(parse_document(pdf, "terms.pdf"))]
    assert titles == ["Chapter 1. Terms", "Rationale"]


def test_printed_contents_entries_become_the_structure() -> None:
    """Headings all in one font, one in body type, one titled unlike its entry: the contents
    gives the levels, the missing heading and the renamed one (by its number); printed page 1
    is the second physical page; a list of tables adds nothing."""
    leader = " . . . . . . . . . . . . . . . . . . . . "
    contents = [
        ("Contents", 14, True, 0),
        (f"1 Getting started{leader}1", 10, False, 6),
        (f"1.1 Installing{leader}1", 10, False, 2),
        (f"1.2 First run{leader}2", 10, False, 2),
        (f"2 Reference{leader}3", 10, False, 2),
        ("2.1 Options and the configuration file with a long name that", 10, False, 2),
        (f"wraps onto a second line{leader}3", 10, False, 2),
        ("List of Tables", 14, True, 12),
        (f"1.3 Supported systems{leader}2", 10, False, 6),
        (f"2.4 Default values{leader}3", 10, False, 2),
    ]
    pdf = _pdf(
        [
            contents,
            [
                ("1 Getting started", 14, True, 0),
                *_body(),
                ("1.1 Installing", 14, True, 14),
                ("Run the installer as an ordinary user.", 10, False, 4),
            ],
            [
                *_body(),
                ("Note", 12, True, 14),
                *_body(1, space=12),
                ("1.2 The first run", 14, True, 14),
                ("The first run writes a configuration file.", 10, False, 4),
            ],
            [
                ("2 Reference", 14, True, 0),
                *_body(),
                ("2.1 Options and the configuration file with a long name that", 10, False, 14),
                ("wraps onto a second line", 10, False, 2),
                ("Every option has a default.", 10, False, 4),
                ("2.4 Default values", 10, False, 14),  # a table's caption
                *_body(space=12),
            ],
        ]
    )
    doc = parse_document(pdf, "manual.pdf")
    assert doc.metadata["structure_source"] == "printed contents and font sizes"
    assert doc.metadata["printed_contents_pages"] == [1]
    assert _levels(doc) == [
        (1, "1 Getting started"),
        (2, "1.1 Installing"),
        (3, "Note"),  # not in the contents: one level below the style above it
        (2, "1.2 The first run"),
        (1, "2 Reference"),
        (
            2,
            "2.1 Options and the configuration file with a long name that wraps onto a second line",
        ),
    ]
    sections = _sections(doc)
    assert sections["1.1 Installing"].blocks[0].text == "Run the installer as an ordinary user."
    options = sections[
        "2.1 Options and the configuration file with a long name that wraps onto a second line"
    ]
    assert options.page == 4 and options.blocks[0].text.startswith("Every option has a default.")


def test_without_printed_contents_fonts_alone_give_the_levels() -> None:
    pdf = _pdf(
        [
            [
                ("1 Getting started", 14, True, 0),
                *_body(),
                ("1.1 Installing", 12, True, 14),
                *_body(),
            ]
        ]
    )
    doc = parse_document(pdf, "plain.pdf")
    assert doc.metadata["structure_source"] == "font sizes"
    assert _levels(doc) == [(1, "1 Getting started"), (2, "1.1 Installing")]


def test_a_bold_header_row_of_a_table_is_not_a_heading() -> None:
    """ "Command … Description" set in bold on one baseline, far apart, over one row: the
    header of a table too small for the table finder, not a title (FHS 3.16.2)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((40, 80), "Chapter 3. Tools", fontsize=24, fontname="hebo")
    y = 120.0
    for text in BODY.split(". "):
        page.insert_text((40, y), text, fontsize=10, fontname="helv")
        y += 12
    row = "Command to bring the system down."
    for x, text, bold, below in [
        (40, "Command", True, 14),
        (250, "Description", True, 14),
        (40, "shutdown", False, 34),
        (250, row, False, 34),
        (40, "Rationale", True, 64),
        (40, BODY[:90], False, 84),
    ]:
        page.insert_text((x, y + below), text, fontsize=10, fontname="hebo" if bold else "helv")
    titles = [title for _, title in _levels(parse_document(doc.tobytes(), "tools.pdf"))]
    assert titles == ["Chapter 3. Tools", "Rationale"]


def test_front_matter_before_the_outline_gets_its_headings() -> None:
    """debian-reference (DocBook): the outline starts at chapter 1, and the preface's own
    headings ("Disclaimer", "About this document") were all "Front matter"; a title page
    alone (little text) stays "Front matter"."""
    preface = [("Preface", 16, True, 0), *_body(12, 8), ("Disclaimer", 13, True, 12), *_body(12, 8)]
    pages = [preface, [("Chapter 1 Tutorials", 16, True, 0), *_body(4, 8)]]
    doc = pymupdf.open(stream=_pdf(pages))
    doc.set_toc([[1, "Chapter 1 Tutorials", 2]])
    parsed = parse_document(doc.tobytes(), "reference.pdf")
    titles = [t for _, t in _levels(parsed)]
    assert titles[:2] == ["Preface", "Disclaimer"] and titles[-1] == "Chapter 1 Tutorials"
    assert _sections(parsed)["Disclaimer"].blocks
    title_page = [("Debian Reference", 20, True, 0), *_body(1, 8)]
    short = pymupdf.open(stream=_pdf([title_page, pages[1]]))
    short.set_toc([[1, "Chapter 1 Tutorials", 2]])
    assert _levels(parse_document(short.tobytes(), "r.pdf")) == [(1, "Chapter 1 Tutorials")]


def test_outline_entries_repeated_out_of_page_order_are_left_out_and_said() -> None:
    """xfig's manual (htmldoc): its outline lists chapters out of page order, then all of them
    again in order; read in its order, every page between fell under the entry before the
    jump. An entry out of order that repeats none stays where it stands (lshortru's index,
    the last entry, points to page 5)."""
    chapters = ["Drawing", "Editing", "Printing", "Formats"]
    pages = [[(title, 16, True, 0), *_body(4, 8)] for title in chapters]
    doc = pymupdf.open(stream=_pdf(pages))
    shuffled = [[1, "Drawing", 1], [1, "Formats", 4], [1, "Printing", 3], [1, "Drawing", 1]]
    doc.set_toc([*shuffled, [1, "Editing", 2], [1, "Printing", 3], [1, "Formats", 4]])
    parsed = parse_document(doc.tobytes(), "xfig.pdf")
    assert _levels(parsed) == [(1, title) for title in chapters]
    assert all(_sections(parsed)[title].blocks for title in chapters)
    assert any("repeats 3 entries out of page order" in w for w in parsed.warnings)
    doc.set_toc([[1, "Drawing", 1], [1, "Editing", 2], [1, "Printing", 3], [1, "Formats", 2]])
    parsed = parse_document(doc.tobytes(), "x.pdf")
    assert _levels(parsed) == [(1, title) for title in chapters]
    assert _sections(parsed)["Formats"].blocks and not parsed.warnings


def test_of_the_runs_in_page_order_the_one_holding_most_entries_is_kept() -> None:
    """The repeats trailing out of order go, not the entries in order they repeat; repeats in
    order (an "Exercises" under each chapter) and entries without a page stay."""
    a, b, c = (1, "A", 10), (1, "B", 20), (1, "C", 30)
    assert ordered_outline([a, b, c, a, b]) == ([a, b, c], 2)
    exercises = [(1, "Ch 1", 1), (2, "Exercises", 5), (1, "Ch 2", 5), (2, "Exercises", 5)]
    assert ordered_outline(exercises) == (exercises, 0)
    stray = [(1, "a", 1), (1, "n", -1), (1, "b", 9), (1, "c", 3), (1, "n", -1)]
    assert ordered_outline(stray) == (stray, 0)


def test_a_short_front_keeps_headings_set_as_the_outlines_top_level() -> None:
    """churchslavonic's manual: "Введение" (`\\section*`, left out of the outline) on the page
    before section 1, in the outline's top-level style, is a section at that level; the
    title page's author, set as large as a subsection, stays text (English here: the test's
    font has no Cyrillic)."""
    title_page = [
        ("The churchslavonic package", 20, False, 0),
        ("Aleksandr Andreev", 12, False, 12),
        ("Introduction", 14, False, 20),
        *_body(2, 8),
    ]
    chapter = [("1. Using the package", 14, False, 0), *_body(3, 8)]
    chapter += [("1.1. Options", 12, False, 12), *_body(3, 8)]
    doc = pymupdf.open(stream=_pdf([title_page, chapter]))
    doc.set_toc([[1, "1. Using the package", 2], [2, "1.1. Options", 2]])
    parsed = parse_document(doc.tobytes(), "churchslavonic.pdf")
    assert _levels(parsed) == [
        (1, "Introduction"),
        (1, "1. Using the package"),
        (2, "1.1. Options"),
    ]
    assert BODY.split()[0] in _sections(parsed)["Introduction"].blocks[0].text
    assert "Aleksandr Andreev" in " ".join(b.text for b in _sections(parsed)["Front matter"].blocks)


def test_a_contents_set_as_a_table_without_leaders_is_not_a_section() -> None:
    """russ.sty's manual prints its contents as two columns, entries and page numbers, no dot
    leaders: "Оглавление" became a section whose one table matched every question about a
    chapter's title. A table of other rows, or under another title, stays."""
    entries = ["1. Использование", "2. Что это даёт?", "3. Список команд", "4. PDF"]

    def tree(rows: str, title: str = "Оглавление") -> Section:
        root = Section(title="", level=0)
        root.children = [Section(title=title, level=1, blocks=[Block("table", rows)])]
        root.children += [
            Section(title=e, level=1, blocks=[Block("paragraph", BODY)]) for e in entries
        ]
        return root

    contents = "\n".join(f"{e} | {n}" for n, e in enumerate(entries, 1))
    for rows, title, dropped in [
        (contents, "Оглавление", True),
        (contents.replace(" | ", " "), "Contents", True),
        (contents, "Options", False),
        ("\n".join(f"{e} | {n}" for n, e in enumerate(["a", "b", "c", "d"], 1)), "Contents", False),
    ]:
        root = tree(rows, title)
        assert drop_contents_section(root) is dropped
        assert [s.title for s in root.children] == ([] if dropped else [title]) + entries


def test_a_contents_box_whose_entries_were_read_as_headings_is_not_a_section() -> None:
    """A web page's contents box printed by a browser sets its links bold: "Содержание" held
    an empty section per entry, each a duplicate of the real one after it. A contents section
    with text under its entries stays."""
    entries = ["1. Введение", "2. Вкладка", "3. Плагины", "4. Результаты"]

    def tree(text: str) -> Section:
        box = Section(title="Содержание", level=2)
        box.children = [
            Section(title=e, level=3, blocks=[Block("paragraph", text)] if text else [])
            for e in entries
        ]
        chapter = Section(title="2.5. Поиск файлов", level=1, children=[box])
        chapter.children += [
            Section(title=e, level=2, blocks=[Block("paragraph", BODY)]) for e in entries
        ]
        return Section(title="", level=0, children=[chapter])

    for text, dropped in [("", True), ("Примечание", True), (BODY, False)]:
        root = tree(text)
        assert drop_contents_section(root) is dropped
        titles = [s.title for s in root.children[0].children]
        assert titles == ([] if dropped else ["Содержание"]) + entries
    # a site printed page by page: a box on each page, every one goes
    root = tree("")
    root.children += tree("").children
    assert drop_contents_section(root)
    assert all(s.title != "Содержание" for _, s in root.walk())


def test_a_heading_wrapped_after_a_preposition_or_before_a_quote_is_one_heading() -> None:
    """A browser's print wraps a narrow column's headings into blocks of their own: "Атрибуты
    в" / "Windows", "3. Вкладка" / "\"Расширенный\"" were two sections each. A numbered
    heading right below a heading ending in a short word stays a heading of its own."""
    lines: list[Line] = [
        ("Attributes of", 14, True, 20),
        ("Windows files", 14, True, 8),
        *_body(space=14),
        ("3. The tab", 14, True, 20),
        ('"Advanced"', 14, True, 8),
        *_body(space=14),
        ("4 Set up", 14, True, 20),
        ("4.1 Install", 14, True, 8),
        *_body(space=14),
    ]
    doc = parse_document(_pdf([lines]), "wrapped.pdf")
    titles = [s.title for _, s in doc.root.walk()][1:]
    assert titles == [
        "Attributes of Windows files",
        '3. The tab "Advanced"',
        "4 Set up",
        "4.1 Install",
    ]


def test_numbered_headings_below_the_outlines_depth_are_sections() -> None:
    """LaTeX's bookmarks stop at a depth: pandoc's `\\paragraph` titles ("5.8.5.1. Debian
    Security Tracker"), bold in the body's size and run into their paragraph, are in no
    outline, and were read as the paragraph's first words. A bold line whose number extends
    its section's is a section one level deeper, its title wrapped onto a second bold line
    included; a bold number that extends no section's, or an outline entry's own, is not."""
    pages = [
        [
            ("1 Packages", 16, True, 0),
            *_body(2, 8),
            ("1.1 Uploads", 13, True, 12),
            *_body(2, 8),
            ("1.1.1 Security uploads", 10, True, 12),
            *_body(2, 2),
            ("1.1.2 Uploads that go", 10, True, 12),
            ("through the queue", 10, True, 2),
            *_body(2, 2),
            ("2.4.1 Not a subsection here", 10, True, 12),
            *_body(1, 2),
        ]
    ]
    doc = pymupdf.open(stream=_pdf(pages))
    doc.set_toc([[1, "1 Packages", 1], [2, "1.1 Uploads", 1]])
    parsed = parse_document(doc.tobytes(), "guide.pdf")
    assert _levels(parsed) == [
        (1, "1 Packages"),
        (2, "1.1 Uploads"),
        (3, "1.1.1 Security uploads"),
        (3, "1.1.2 Uploads that go through the queue"),
    ]
    blocks = _sections(parsed)["1.1.1 Security uploads"].blocks
    assert blocks and blocks[0].text.startswith("The hierarchy keeps")


def test_a_contents_of_outline_titles_before_the_outline_is_left_out() -> None:
    """calibre prints an HTML book's contents as lines of links without page numbers, an entry
    or a few a page, before the outline's first page: they were indexed as paragraphs of
    titles. Pages that are mostly the outline's titles go; a title page stays."""
    pages = [
        [("A Short History", 20, True, 0), ("Contents", 12, False, 12)],
        [("1. Introduction", 10, False, 0), ("1.1. The beginning", 10, False, 8)],
        [("2. Leadership", 10, False, 0)],
        [("A Short History", 20, True, 0), *_body(2, 8)],
        [("1. Introduction", 16, True, 0), *_body(2, 8), ("1.1. The beginning", 13, True, 12)],
        [*_body(2, 8), ("2. Leadership", 16, True, 12), *_body(2, 8)],
    ]
    doc = pymupdf.open(stream=_pdf(pages))
    doc.set_toc(
        [
            [1, "A Short History", 4],
            [2, "1. Introduction", 5],
            [3, "1.1. The beginning", 5],
            [2, "2. Leadership", 6],
        ]
    )
    parsed = parse_document(doc.tobytes(), "history.pdf")
    tree = [(s.title, [b.text for b in s.blocks]) for _, s in parsed.root.walk()][1:]
    assert [title for title, _ in tree] == [
        "A Short History",
        "A Short History",
        "1. Introduction",
        "1.1. The beginning",
        "2. Leadership",
    ]
    assert tree[0][1] == []  # the title page's section: no contents in it


def test_numbered_headings_below_the_outline_stop_at_the_next_number_and_its_titles() -> None:
    """Bold numbered lines one under another are one heading each, not one title; a numbered
    title whose words an unnumbered outline entry already has (texinfo numbers its pages'
    titles, not its bookmarks) is that entry, not a second section."""
    pages = [
        [
            ("6 Building", 16, True, 0),
            *_body(2, 8),
            ("6.1 Scope", 10, True, 12),
            ("6.2 Terms", 10, True, 2),
            ("6.3 Usage", 10, True, 2),
            *_body(2, 2),
            ("6.6 Extending TeX Live", 10, True, 12),
            *_body(2, 2),
        ]
    ]
    doc = pymupdf.open(stream=_pdf(pages))
    doc.set_toc([[1, "6 Building", 1], [2, "Extending TeX Live", 1]])
    titles = [title for _, title in _levels(parse_document(doc.tobytes(), "tlbuild.pdf"))]
    assert titles[:4] == ["6 Building", "6.1 Scope", "6.2 Terms", "6.3 Usage"]
    assert "6.6 Extending TeX Live" not in titles and "Extending TeX Live" in titles


def test_a_numbered_heading_sharing_a_numbered_entrys_words_and_a_long_bold_clause() -> None:
    """A numbered heading below the outline whose words a numbered entry elsewhere also has
    ("2.1.1 Overview" under "1 Overview") is a heading of its own; a bold numbered clause
    longer than a title (a contract's "2.1.1 The tenant shall …") is none."""
    clause = [
        "2.1.2 The tenant shall keep the premises in good repair and condition and",
        "shall notify the landlord in writing of every defect that the tenant finds in",
        "the premises, the fixtures or the appliances within seven days of finding it and",
    ]
    pages = [
        [("1 Overview", 16, True, 0), *_body(2, 8), ("2 Install", 16, True, 12), *_body(1, 8)],
        [
            ("2.1 Steps", 13, True, 0),
            *_body(1, 8),
            ("2.1.1 Overview", 10, True, 12),
            *_body(2, 2),
            *[(text, 10, True, 12 if i == 0 else 2) for i, text in enumerate(clause)],
            *_body(1, 2),
        ],
    ]
    doc = pymupdf.open(stream=_pdf(pages))
    doc.set_toc([[1, "1 Overview", 1], [1, "2 Install", 1], [2, "2.1 Steps", 2]])
    titles = [title for _, title in _levels(parse_document(doc.tobytes(), "lease.pdf"))]
    assert titles == ["1 Overview", "2 Install", "2.1 Steps", "2.1.1 Overview"]


def test_a_numbered_heading_level_in_italics_in_the_bodys_size_is_a_heading() -> None:
    """A word processor's "Heading 4": italic, the body's size. Its number goes on from the
    heading before it, whether it stands alone or shares a block with the paragraph above; an
    italic line numbered otherwise, or not numbered, is text."""
    lines: list[Line] = [
        ("5. Packages", 18, True, 0),
        *_body(),
        ("5.8. Security bugs", 14, True, 20),
        *_body(space=12),
        ("5.8.1. The security tracker", 10, "heit", 12),
        *_body(space=12),
        ("5.8.2. Confidentiality", 10, "heit", 2),
        *_body(space=12),
        ("2.1 Weights and measures of the old world", 10, "heit", 12),
        *_body(space=12),
        ("A quotation set apart in italics", 10, "heit", 12),
        *_body(space=12),
    ]
    doc = parse_document(_pdf([lines]), "packages.pdf")
    assert _levels(doc) == [
        (1, "5. Packages"),
        (2, "5.8. Security bugs"),
        (3, "5.8.1. The security tracker"),
        (3, "5.8.2. Confidentiality"),
    ]
    texts = [b.text for b in _sections(doc)["5.8.2. Confidentiality"].blocks]
    assert any(t.startswith("2.1 Weights and measures") for t in texts)
    assert any(t.startswith("A quotation set apart") for t in texts)


def test_italic_subsections_take_their_level_and_order_from_their_numbers() -> None:
    """Under a parent set bold in the body's size (LaTeX's \\subsubsection), italic children
    are a level below it, not beside it; one opening a block with its paragraph is one; a
    parent whose number stands on a line of its own is a parent; a number going back ("5.1"
    after "5.9.2") or repeating is no heading, nor is a line inside a paragraph's block or in
    another size than the body's."""
    lines: list[Line] = [
        ("5. Packages", 18, True, 0),
        *_body(),
        ("5.8. Security bugs", 14, True, 20),
        *_body(space=12),
        ("5.8.5. Handling them", 10, True, 12),
        *_body(space=12),
        ("5.8.5.1. The security tracker", 10, "heit", 12),
        *_body(n=1),
        *_body(space=12),
        ("5.9", 14, True, 20),
        ("Reporting", 14, True, 20),
        *_body(space=12),
        ("5.9.1. Where to write", 10, "heit", 12),
        *_body(space=12),
        ("5.9.2. What to say", 10, "heit", 12),
        *_body(space=12),
        ("5.9.3. Set in a smaller size", 8, "heit", 12),
        *_body(space=12),
        ("5.9.3. Inside a paragraph's block", 10, "heit", 2),
        *_body(),
        ("5.1. Installing packages", 10, "heit", 12),
        *_body(space=12),
        ("5.9.2. What to say", 10, "heit", 12),
        *_body(space=12),
    ]
    doc = parse_document(_pdf([lines]), "packages.pdf")
    assert _levels(doc) == [
        (1, "5. Packages"),
        (2, "5.8. Security bugs"),
        (3, "5.8.5. Handling them"),
        (4, "5.8.5.1. The security tracker"),
        (2, "5.9 Reporting"),
        (3, "5.9.1. Where to write"),
        (3, "5.9.2. What to say"),
    ]
    tracker = _sections(doc)["5.8.5.1. The security tracker"]
    assert tracker.blocks[0].text.startswith("The hierarchy")


def test_a_heading_holding_code_in_a_smaller_monospaced_font_is_a_heading() -> None:
    """ "5.1. File `README.Debian`": the code, set smaller than the heading, holds most of the
    line's characters; the heading is still the size of its words."""
    lines: list[Line] = [
        ("Chapter 5. Other files", 24, True, 0),
        *_body(),
        ([("5.1. File ", 16, "helv"), ("README.Debian", 10, "cour")], 16, False, 20),
        *_body(space=12),
        ([("5.2. File ", 16, "helv"), ("compat", 10, "cour")], 16, False, 20),
        *_body(space=12),
    ]
    doc = parse_document(_pdf([lines]), "files.pdf")
    assert _levels(doc) == [
        (1, "Chapter 5. Other files"),
        (2, "5.1. File README.Debian"),
        (2, "5.2. File compat"),
    ]
    assert _sections(doc)["5.1. File README.Debian"].blocks[0].text.startswith("The hierarchy")
    # a command's title with its placeholder in a smaller italic is the code's size; a label
    # and its code ("E-mail: …") on a title page is no heading
    lines = [
        ("Chapter 1. Usage", 24, True, 0),
        ("Ada Writer", 12, False, 14),
        ([("E-mail: ", 12, "helv"), ("ada@example.org", 12, "cour")], 12, False, 4),
        *_body(space=14),
        ([("\\loadhex{", 12, "cobo"), ("filename", 9, "heit"), ("}", 12, "cobo")], 12, False, 14),
        *_body(space=12),
        ("\\run", 12, "cobo", 14),
        *_body(space=12),
    ]
    doc = parse_document(_pdf([lines]), "usage.pdf")
    assert _levels(doc) == [
        (1, "Chapter 1. Usage"),
        (2, "\\loadhex{filename}"),
        (2, "\\run"),
    ]


def test_a_slides_default_name_in_the_outline_is_no_section() -> None:
    """LibreOffice Impress bookmarks a slide without a title by its default name: "Slide 3"
    was a section of its own; its text goes on under the slide before it, but not with that
    slide's last item (a command in a smaller size opening the page, not the item's rest)."""
    slides = [
        [("Backups", 28, True, 0), *_body(1, 20)],
        [("The 3-2-1 rule", 28, True, 0), ("Three copies on two kinds of media", 24, False, 20)],
        [("restic backup /srv --exclude-file=exclude.txt", 16, False, 0)],
        [("Questions", 28, True, 0), *_body(1, 20)],
    ]
    doc = pymupdf.open(stream=_pdf(slides))
    doc.set_toc(
        [[1, "Backups", 1], [1, "The 3-2-1 rule", 2], [1, "Slide 3", 3], [1, "Questions", 4]]
    )
    parsed = parse_document(doc.tobytes(), "deck.pdf")
    assert [t for _, t in _levels(parsed)] == ["Backups", "The 3-2-1 rule", "Questions"]
    rule = [b.text for b in _sections(parsed)["The 3-2-1 rule"].blocks]
    assert "restic backup /srv --exclude-file=exclude.txt" in rule
