"""Ruled PDF tables read by their grid (pdf_grids.py), on PDFs drawn in code: cells wrapped
onto unequal numbers of lines, a word set over its cell's rule, a cell spanning rows, and a
box around a listing that is no table."""

from __future__ import annotations

import itertools

import pymupdf

from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import Block
from mirage_pipeline.parsing.pdf_rules import Rule, _joined


def _wrapped(text: str, room: float, font: str) -> list[str]:
    """`text` broken into lines as a typesetter does: a line ends when its next word does not
    fit `room` (a word wider than the room stands alone, running over), or at a newline."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        opened = len(lines)
        for word in paragraph.split():
            joined = f"{lines[-1]} {word}" if len(lines) > opened else word
            fits = pymupdf.get_text_length(joined, fontname=font, fontsize=10) <= room
            if len(lines) > opened and fits:
                lines[-1] = joined
            else:
                lines.append(word)
    return lines


def _grid_pdf(
    columns: list[float],
    rows: list[list[str]],
    *,
    fonts: list[str] | None = None,
    open_below: frozenset[tuple[int, int]] = frozenset(),
    before: str = "The commands below, in each tool's syntax, do the same.",
) -> bytes:
    """A page with a paragraph, then a table ruled at `columns` (x of each vertical rule), its
    cells' text wrapped to their columns, each row as tall as its tallest cell;
    `open_below`: (row, column) cells whose bottom rule is not drawn (the cell goes on in the
    row under it)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 90), before, fontsize=10, fontname="helv")
    fonts = fonts or ["helv"] * (len(columns) - 1)
    cells = [
        [_wrapped(text, columns[j + 1] - columns[j] - 8, fonts[j]) for j, text in enumerate(row)]
        for row in rows
    ]
    top = 110.0
    tops = [top]
    for row in cells:
        top += 12 * max(len(cell) for cell in row) + 6
        tops.append(top)
    for i, row in enumerate(cells):
        for j, cell in enumerate(row):
            for k, line in enumerate(cell):
                y = tops[i] + 12 * (k + 1)
                page.insert_text((columns[j] + 4, y), line, fontsize=10, fontname=fonts[j])
    for i, y in enumerate(tops):
        for j, (x0, x1) in enumerate(itertools.pairwise(columns)):
            if (i - 1, j) not in open_below:
                page.draw_line((x0, y), (x1, y), width=0.4)
    for x in columns:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.4)
    page.insert_text((60, tops[-1] + 30), "Table 1: the same operations.", fontsize=10)
    page.insert_text((60, tops[-1] + 60), "After the table the text goes on.", fontsize=10)
    data = doc.tobytes()
    doc.close()
    return data


def _blocks(data: bytes) -> list[Block]:
    doc = parse_document(data, "reference.pdf")
    return [b for _, s in doc.root.walk() for b in s.blocks]


def _tables(data: bytes) -> list[str]:
    return [b.text for b in _blocks(data) if b.kind == "table"]


def test_a_ruled_table_of_wrapped_cells_is_read_row_by_row() -> None:
    """The Debian Reference's apt / aptitude / apt-get table: cells of one, two and three lines
    side by side. Read from its lines' edges it came out as "apt update | update aptitude |
    update update package archive metadata apt-get", half of it paragraphs and code; its
    rules say which line is which cell's."""
    rows = [
        ["apt syntax", "aptitude syntax", "apt-get/apt-cache syntax", "what"],
        ["apt update", "aptitude update", "apt-get update", "update the lists"],
        [
            "apt install foo",
            "aptitude install foo",
            "apt-get install foo",
            "install the candidate version of foo with its dependencies",
        ],
        [
            "apt upgrade",
            "aptitude safe-upgrade",
            "apt-get upgrade",
            "upgrade without removing any other packages",
        ],
        ["N/A", "aptitude why regex", "N/A", "explain why it is installed"],
    ]
    # cells of one, two and three lines: the third column is narrower than "apt-get/apt-cache"
    data = _grid_pdf([60, 160, 230, 290, 440], rows, fonts=["cour", "cour", "cour", "helv"])
    assert _tables(data) == [
        "apt syntax | aptitude syntax | apt-get/apt-cache syntax | what\n"
        "apt update | aptitude update | apt-get update | update the lists\n"
        "apt install foo | aptitude install foo | apt-get install foo | install the candidate"
        " version of foo with its dependencies\n"
        "apt upgrade | aptitude safe-upgrade | apt-get upgrade | upgrade without removing any"
        " other packages\n"
        "N/A | aptitude why regex | N/A | explain why it is installed"
    ]
    texts = [b.text for b in _blocks(data)]
    assert texts[0].startswith("The commands below")  # "syntax": a word of the document
    assert "Table 1: the same operations." in texts
    assert texts[-1] == "After the table the text goes on."


def test_a_word_set_over_its_cells_rule_stays_in_its_cell() -> None:
    """A word too long for its column runs over the rule into the next cell: "config::ifupdown"
    touching "standardized tool …" (MuPDF reads them as one line, one word). The next cell's
    text starts where that column's other lines start; a word that starts in a cell is that
    cell's."""
    rows = [
        ["package", "type", "description"],
        ["ifupdown", "config::ifupdown", "standardized tool to bring up the network"],
        ["isc-dhcp-client", "config::low-level", "DHCP client"],
        ["pppoeconf", "helper", "configuration helper for PPPoE"],
    ]
    # "config::ifupdown" in Courier 10 is 96 points wide: 6 past the rule at 340
    data = _grid_pdf([60, 240, 340, 560], rows, fonts=["cour", "cour", "helv"])
    (table,) = _tables(data)
    assert table.splitlines()[1] == (
        "ifupdown | config::ifupdown | standardized tool to bring up the network"
    )


def test_a_cell_spanning_rows_holds_its_lines_once() -> None:
    """A cell no rule closes below (`\\multirow`, a merged cell) goes on into the row under
    it: its second line is the same cell's, not a row of its own."""
    rows = [
        ["option", "value", "meaning"],
        ["-s --simulate", "none", "print what would be done"],
        ["--dry-run", "none", "the same as -s"],
        ["-d", "none", "download only"],
    ]
    data = _grid_pdf([60, 120, 260, 500], rows, open_below=frozenset({(1, 0)}))
    (table,) = _tables(data)
    assert table.splitlines() == [
        "option | value | meaning",
        "-s --simulate --dry-run | none | print what would be done",
        " | none | the same as -s",
        "-d | none | download only",
    ]


def test_a_box_around_aligned_text_is_no_grid() -> None:
    """A frame around a listing or a note (one cell a row) is not read as a grid: the table
    its aligned columns make is found from their edges, as without the frame."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 90), "Options are given as follows in the file.", fontsize=10)
    rows = [("alpha", "first letter"), ("beta", "second letter"), ("gamma", "third letter")]
    for i, (a, b) in enumerate(rows):
        page.insert_text((70, 120 + 12 * i), a, fontsize=10, fontname="helv")
        page.insert_text((200, 120 + 12 * i), b, fontsize=10, fontname="helv")
    page.draw_rect(pymupdf.Rect(60, 105, 400, 160), width=0.4)
    page.insert_text((60, 190), "After the box the text goes on.", fontsize=10)
    data = doc.tobytes()
    assert _tables(data) == ["alpha | first letter\nbeta | second letter\ngamma | third letter"]


def test_a_ruled_table_too_short_to_be_found_from_its_edges_is_read() -> None:
    """A header and one row (install.ru's memory requirements have two): too few rows for a
    table read from its lines' edges, whose cells were three paragraphs; its rules make it
    one. Drawings are read on a page with two rows of cells close together."""
    rows = [
        ["Install type", "Memory (minimum)", "Memory (recommended)", "Disk"],
        ["Without a desktop", "256 megabytes", "512 megabytes", "4 gigabytes"],
    ]
    data = _grid_pdf([60, 180, 290, 420, 520], rows)
    assert _tables(data) == [
        "Install type | Memory (minimum) | Memory (recommended) | Disk\n"
        "Without a desktop | 256 megabytes | 512 megabytes | 4 gigabytes"
    ]


def test_rows_the_rules_do_not_divide_are_rows_of_lines() -> None:
    """Rules between groups of rows only: three operas beside their three composers, line
    beside line, are three rows (a cell wrapped onto three lines stands beside shorter
    ones); two options on two lines beside their description wrapped stay one row."""
    rows = [
        ["Opera", "Composer", "Year"],
        ["Fidelio\nPeter Grimes\nDon Giovanni", "Beethoven\nBritten\nMozart", "1805\n1945\n1787"],
        ["Carmen", "Bizet", "1875"],
        [
            "twoside\noneside",
            "Print on both sides of each sheet or on one, the second the default.",
            "none",
        ],
    ]
    data = _grid_pdf([60, 180, 400, 480], rows)
    assert _tables(data) == [
        "Opera | Composer | Year\n"
        "Fidelio | Beethoven | 1805\n"
        "Peter Grimes | Britten | 1945\n"
        "Don Giovanni | Mozart | 1787\n"
        "Carmen | Bizet | 1875\n"
        "twoside oneside | Print on both sides of each sheet or on one, the second the default."
        " | none"
    ]


def test_hatching_is_no_grid_and_the_page_is_read() -> None:
    """Vertical strokes 2 points apart (a hatched bar) are too close to hold cells: the grid
    is left alone — it raised an IndexError that failed the document — and the table below
    is still found from its edges."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 90), "Progress of the work by stage is shown below.", fontsize=10)
    for y in (100, 120, 140, 160):
        page.draw_line((100, y), (300, y), width=0.4)
    for x in range(100, 301, 2):
        page.draw_line((x, 100), (x, 120), width=0.3)
    for x in (100, 200, 300):
        page.draw_line((x, 120), (x, 160), width=0.4)
    page.insert_text((110, 113), "Stage", fontsize=10)
    for i, (a, b) in enumerate([("alpha", "done"), ("beta", "open")]):
        page.insert_text((110, 133 + 20 * i), a, fontsize=10)
        page.insert_text((210, 133 + 20 * i), b, fontsize=10)
    for i, (a, b) in enumerate([("one", "first"), ("two", "second"), ("three", "third")]):
        page.insert_text((110, 200 + 12 * i), a, fontsize=10)
        page.insert_text((210, 200 + 12 * i), b, fontsize=10)
    assert _tables(doc.tobytes()) == ["one | first\ntwo | second\nthree | third"]


def test_a_rule_drawn_cell_by_cell_a_hair_off_its_line_is_one_rule() -> None:
    """A word processor draws a row's rule cell by cell; pieces a hundredth of a point apart
    in height are one rule (sorted by rounded height, the middle piece was lost, and its
    column read as spanning rows)."""
    pieces = [Rule(101.24, 60, 180), Rule(101.26, 180, 300), Rule(101.24, 300, 420)]
    (joined,) = _joined(pieces)
    assert (joined.lo, joined.hi) == (60, 420)


def test_a_cell_holding_a_bar_keeps_it() -> None:
    """Only empty cells are trimmed from a row's end: C's "||" and "|" are cells' text."""
    rows = [["Meaning", "C operator"], ["logical and", "&&"], ["logical or", "||"]]
    rows += [["bitwise or", "|"], ["not", "!"]]
    data = _grid_pdf([60, 200, 330], rows, fonts=["helv", "cour"])
    assert _tables(data) == [
        "Meaning | C operator\nlogical and | &&\nlogical or | ||\nbitwise or | |\nnot | !"
    ]


def test_grids_read_like_their_edges_still_count_for_the_documents_budget() -> None:
    """Drawings are read while a document's first pages of tables or a page since held a
    grid: a simple ruled table, read the same by its grid and its edges, is a grid — twelve
    of them did not keep the wrapped table of page 13 from being read by its rules."""
    letters = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "omicron",
        "sigma",
    ]
    out = pymupdf.open()
    for p, word in enumerate(letters):
        simple = [["name", "kind", "size"]]
        simple += [[f"{word}{k}", f"{word} item", f"{k} value"] for k in range(3)]
        page = _grid_pdf([60, 180, 290, 420], simple, before=f"Page {p} lists {word} files.")
        out.insert_pdf(pymupdf.open("pdf", page))
    wrapped = [
        ["apt syntax", "aptitude syntax", "apt-get/apt-cache syntax", "what"],
        ["apt update", "aptitude update", "apt-get update", "update the lists"],
        ["apt upgrade", "aptitude safe-upgrade", "apt-get upgrade", "upgrade the packages"],
    ]
    last = _grid_pdf([60, 160, 230, 290, 440], wrapped, fonts=["cour", "cour", "cour", "helv"])
    out.insert_pdf(pymupdf.open("pdf", last))
    tables = _tables(out.tobytes())
    assert tables[-1].startswith("apt syntax | aptitude syntax | apt-get/apt-cache syntax")


def test_a_grid_the_reader_trips_on_costs_the_page_its_grids_only(monkeypatch) -> None:
    """Bad input loses nothing: were reading a page's rules to fail (an odd drawing), its
    tables are read from their edges and the document parses."""
    import mirage_pipeline.parsing.pdf_grids as pdf_grids

    def tripped(page: pymupdf.Page) -> None:
        raise IndexError("an odd drawing")

    monkeypatch.setattr(pdf_grids, "page_rules", tripped)
    rows = [["name", "kind", "size"], ["alpha", "file", "1 kB"], ["beta", "link", "2 kB"]]
    rows += [["gamma", "pipe", "3 kB"]]
    data = _grid_pdf([60, 180, 290, 420], rows)
    assert _tables(data) == [
        "name | kind | size\nalpha | file | 1 kB\nbeta | link | 2 kB\ngamma | pipe | 3 kB"
    ]
