"""Notes in a PDF page's margins (pdf_margins.py): taken out of the paragraph beside them."""

from __future__ import annotations

import pymupdf

from mirage_pipeline.parsing import parse_document

BODY = 150  # the text column's left edge


def _pdf(runs: list[tuple[float, float, str, str]]) -> bytes:
    return _pages([runs])


def _pages(pages: list[list[tuple[float, float, str, str]]]) -> bytes:
    doc = pymupdf.open()
    for runs in pages:
        page = doc.new_page(width=595, height=842)
        for x, y, text, font in runs:
            page.insert_text((x, y), text, fontsize=10, fontname=font)
    data = doc.tobytes()
    doc.close()
    return data


def _texts(pdf: bytes) -> list[str]:
    doc = parse_document(pdf, "manual.pdf")
    return [b.text for _, s in doc.root.walk() for b in s.blocks]


def _described(name: str, y: float, first: str, second: str) -> list[tuple]:
    """A paragraph of two lines with a macro's name in the left margin beside its first."""
    right = BODY - 12  # the name ends a margin's width before the column
    x = right - pymupdf.get_text_length(name, fontname="cour", fontsize=10)
    return [(x, y, name, "cour"), (BODY, y, first, "helv"), (BODY, y + 12, second, "helv")]


def test_names_in_the_left_margin_are_set_before_their_paragraphs() -> None:
    """ltxdoc's \\DescribeMacro (makecell-rus.pdf): the name cut the paragraph beside it and
    kept the word broken at that line's end apart ("верти-" ‖ "\\rotheadsize" ‖ "кально")."""
    pdf = _pdf(
        [
            *_described(
                "\\rotheadsize",
                100,
                "This length sets the width of the column for the vert-",
                "ically turned headings of a table, as wide as needed.",
            ),
            *_described(
                "\\thead",
                140,
                "The command sets a column head in the font and the inter-",
                "line spacing chosen for heads, centred in its cell here.",
            ),
            *_described(
                "\\rothead",
                180,
                "The same command for heads turned through ninety degr-",
                "ees, counter-clockwise, with the same settings as above.",
            ),
        ]
    )
    assert _texts(pdf) == [
        "\\rotheadsize",
        "This length sets the width of the column for the vertically turned headings of a "
        "table, as wide as needed.",
        "\\thead",
        "The command sets a column head in the font and the interline spacing chosen for "
        "heads, centred in its cell here.",
        "\\rothead",
        "The same command for heads turned through ninety degrees, counter-clockwise, with "
        "the same settings as above.",
    ]


def test_a_note_of_several_lines_in_the_right_margin_is_one_block() -> None:
    """A \\marginpar of three lines beside a paragraph: one note, read before it."""
    body = [
        "Due to the statistical nature of the energy loss, large",
        "fluctuations can occur in the amount of energy deposited",
        "by a particle traversing an absorber element of a detector.",
        "Continuous processes such as multiple scattering add to it",
        "and the paragraph ends here after five lines of its text.",
    ]
    right = BODY + max(pymupdf.get_text_length(t, fontname="helv", fontsize=10) for t in body)
    pdf = _pdf(
        [
            *((BODY, 100 + 12 * i, text, "helv") for i, text in enumerate(body)),
            *(
                (right + 12, 112 + 12 * i, text, "helv")
                for i, text in enumerate(["You might get an", "idea of the losses", "from here."])
            ),
        ]
    )
    assert _texts(pdf) == ["You might get an idea of the losses from here.", " ".join(body)]


def test_an_example_set_wider_than_the_column_stays_whole() -> None:
    """lshort's examples: the source reaches from the left margin into the column, its output
    beside it; a short line of the source wholly in the margin is no note."""
    body = [f"A line of prose in the text column, number {i} of the page." for i in range(6)]
    runs = [(BODY, 100 + 12 * i, text, "helv") for i, text in enumerate(body)]
    for y in (200, 260):
        source = ["You can \\textsl{lean} on", "me", "here!", "Or \\textsl{there}", "now!"]
        runs += [(80, y + 12 * i, text, "cour") for i, text in enumerate(source)]
        output = ["You can lean on me here!", "Or there, and now!"]
        runs += [(260, y + 18 + 12 * i, text, "helv") for i, text in enumerate(output)]
    texts = _texts(_pdf(runs))
    assert texts.count("\n".join(source)) == 2, texts


def test_a_name_beside_a_paragraph_going_on_from_the_page_before_keeps_it_whole() -> None:
    """A name beside the first line of a page whose paragraph goes on from the page before is
    set before that paragraph, which stays one."""
    lead = [f"Prose of the first page in the column of the text, line {i} of it." for i in range(6)]
    first = [(BODY, 100 + 12 * i, text, "helv") for i, text in enumerate(lead)]
    first.append((BODY, 800, "and the last paragraph of the page breaks in the mid-", "helv"))
    second = _described(
        "\\goeson", 60, "dle of a word that goes on here at the top of the next", "page."
    )
    for n, name in enumerate(("\\other", "\\third")):
        second += _described(
            name,
            120 + 60 * n,
            "Another paragraph of this page comes with its own name in",
            "the margin, set before it in the text as well, and it",
        )
        second.append((BODY, 144 + 60 * n, "goes on for a third line of prose at the end.", "helv"))
    texts = _texts(_pages([first, second]))
    assert texts[1:4] == [
        "\\goeson",
        "and the last paragraph of the page breaks in the middle of a word that goes on here "
        "at the top of the next page.",
        "\\other",
    ], texts
