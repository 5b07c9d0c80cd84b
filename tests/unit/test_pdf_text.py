"""PDF body text on PDFs written in code: paragraphs across blocks and pages, running heads
with page numbers, footnotes, URLs and paths, code listings, bullets and compound hyphens."""

from __future__ import annotations

import pathlib

import pymupdf
import pytest

from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import Block, ParsedDocument
from mirage_pipeline.parsing.pdf_lines import MONO_NAME
from mirage_pipeline.parsing.pdf_text import Vocabulary, join_text

# A run of text: (x, baseline y, text, font, size). Runs on one baseline make one line, as
# a producer's spans do ("helv" for prose, "cour" for code and paths, "hebo" for bold).
Run = tuple[float, float, str, str, float]


def _pdf(pages: list[list[Run]], cyrillic: str | None = None) -> bytes:
    """A PDF of `pages`; `cyrillic` names a font with Cyrillic letters the runs may use."""
    doc = pymupdf.open()
    for runs in pages:
        page = doc.new_page(width=595, height=842)
        if cyrillic:
            page.insert_font(fontname=cyrillic, fontbuffer=pymupdf.Font("cjk").buffer)
        for x, y, text, font, size in runs:
            page.insert_text((x, y), text, fontsize=size, fontname=font)
    data = doc.tobytes()
    doc.close()
    return data


def _lines(x: float, y: float, texts: list[str], step: float = 12, size: float = 10) -> list[Run]:
    return [(x, y + i * step, text, "helv", size) for i, text in enumerate(texts)]


def _after(x: float, text: str, font: str, size: float) -> float:
    """Where a run that follows `text` starts."""
    return x + pymupdf.get_text_length(text, fontname=font, fontsize=size)


def _blocks(doc: ParsedDocument) -> list[Block]:
    return [b for _, s in doc.root.walk() for b in s.blocks]


def _text(doc: ParsedDocument) -> str:
    return "\n".join(b.text for b in _blocks(doc))


def test_word_hyphenated_across_blocks_is_rejoined() -> None:
    """texlive-ru: a definition list's hanging indent cuts a new PyMuPDF block in the middle
    of an item ("до-" / "полнительных")."""
    pdf = _pdf(
        [
            [
                *_lines(60, 100, ["TEXMFLOCAL The tree administrators use for installing ad-"]),
                *_lines(90, 112, ["ditional packages, fonts and other files of their own."]),
                *_lines(60, 124, ["TEXMFHOME The tree users use for their own packages, up-"]),
                *_lines(90, 136, ["dated versions of the system packages and local fonts."]),
                *_lines(60, 780, ["A sentence that runs to the very end of the page gets hy-"]),
            ],
            _lines(60, 100, ["phenated there and goes on at the top of the next page."]),
        ]
    )
    blocks = _blocks(parse_document(pdf, "texlive.pdf"))
    texts = [b.text for b in blocks]
    assert texts[0] == (
        "TEXMFLOCAL The tree administrators use for installing additional packages, fonts "
        "and other files of their own. TEXMFHOME The tree users use for their own packages, "
        "updated versions of the system packages and local fonts."
    )
    assert texts[1].endswith("gets hyphenated there and goes on at the top of the next page.")
    assert (blocks[1].page, blocks[1].page_end) == (1, 2)


def test_paragraph_goes_on_across_blocks_with_a_capitalised_word() -> None:
    """instead-modules3: the indented first line of a paragraph is a PyMuPDF block of its own,
    and a Russian sentence goes on with "INSTEAD" or "Windows" as often as with a lowercase
    word: the paragraph was cut in two there."""
    pdf = _pdf(
        [
            [
                *_lines(75, 100, ["The stead table is the object that gives the game access to"]),
                *_lines(60, 116, ["INSTEAD. It is handy to keep a local reference to it in the"]),
                *_lines(60, 128, ["modules that call it often, as the examples below do."]),
            ]
        ]
    )
    texts = [b.text for b in _blocks(parse_document(pdf, "instead.pdf"))]
    assert texts[0] == (
        "The stead table is the object that gives the game access to INSTEAD. It is handy to "
        "keep a local reference to it in the modules that call it often, as the examples "
        "below do."
    )


def test_paragraph_goes_on_with_a_bracket_or_quote_but_not_an_item_mark() -> None:
    """stead3: each line a block of its own, a sentence going on with "(текстовый файл)" or
    "‘game’" was cut in two there (32 paragraphs of the book); a line opening with an item's
    "(a)" or a formula's "(x + a)" still starts a paragraph of its own."""
    lines = [
        "The game is a folder that must hold its script, a plain text file",
        '("main.lua") the engine reads first; other resources of the',
        "game, such as images and music, are kept in that folder too.",
        "When an object is used on another, the engine calls in turn",
        "(a) the handler of the object the player acts on, and then",
        "The square of a sum is written out in the usual way, and the",
        "(x + a)(x - a) = x^2 - a^2 holds for every pair of numbers.",
    ]
    indents = [75, 60, 60, 75, 60, 75, 60]
    tops = [100, 116, 128, 160, 176, 208, 224]
    runs = [_lines(x, y, [text])[0] for x, y, text in zip(indents, tops, lines, strict=True)]
    texts = [b.text for b in _blocks(parse_document(_pdf([runs]), "stead3.pdf"))]
    assert texts[0] == " ".join(lines[:3])
    assert texts[1:5] == lines[3:]


def test_two_column_printed_contents_under_the_title_are_dropped() -> None:
    """texlive-sr: the title page sets the contents below the title in two columns, their
    rows interleaved, an entry wrapped onto a second row without dots: fewer than half of the
    rows had leaders, and the contents were indexed as front matter."""
    left = [
        "1 Introduction 3",
        "1.1 TeX Live and the collection . . . . . . 3",
        "1.2 Supported operating",
        "systems 3",
        "1.3 Security considerations",
        "that matter 4",
        "1.4 Getting help . . . . . . . . . . . . 4",
        "2 Overview of TeX Live 5",
        "2.1 The top level directories",
        "and their roles 5",
        "2.2 Extensions . . . . . . . . . . 7",
    ]
    right = [
        "3 Installation 8",
        "3.1 Starting the installer 8",
        "3.2 Command-line options of",
        "the installer 15",
        "3.3 Post-install actions . . . . . . 16",
        "3.4 Environment variables",
        "for Unix 17",
    ]
    title = [(60, 60, "TeX Live 2020: the guide", "helv", 16), (60, 90, "Contents", "hebo", 12)]
    first = [*title, *_lines(60, 110, left), *_lines(300, 115, right)]
    body = ["The installer asks for the scheme and the folder, then copies the packages."]
    doc = parse_document(_pdf([first, _lines(60, 100, body * 3)]), "texlive-sr.pdf")
    text = _text(doc)
    assert "Contents" not in text and "Overview of TeX Live" not in text
    assert "Post-install actions" not in text and "for Unix" not in text
    assert text.count("The installer asks") == 3 and doc.title == "TeX Live 2020: the guide"


def test_a_heading_wrapped_onto_a_block_of_its_own_is_one_heading() -> None:
    """bmstu-examples: a title set on two lines, each a block of its own, made two sections
    ("… memory allocation in multithreaded" and "applications on Linux"), the first empty; a
    word hyphenated there is whole again (pst-eucl's "неговите висо- чини")."""
    body = [
        "The allocator hands out memory from arenas, one for each thread that asks for it,",
        "and gives it back to the arena it came from when the block is freed again.",
    ]
    pdf = _pdf(
        [
            [
                (60, 100, "A study of memory allocation in multithreaded ap-", "hebo", 14),
                (60, 122, "plications on Linux", "hebo", 14),
                *_lines(60, 160, [*body, "Such applications are common."]),
                (60, 220, "Arenas and threads", "hebo", 14),
                *_lines(60, 250, body),
            ]
        ]
    )
    doc = parse_document(pdf, "memory.pdf")
    titles = [s.title for _, s in doc.root.walk() if s.title]
    assert "A study of memory allocation in multithreaded applications on Linux" in titles
    assert "plications on Linux" not in titles and "Arenas and threads" in titles


def test_running_heads_with_a_section_title_and_a_page_number_are_dropped() -> None:
    """lshortru: "1.3 Исходные файлы LATEX 5", "62 Набор математических формул": the title
    changes from page to page, the page number is set flush right or left, and the head
    sits close above the body."""
    titles = ["Input files", "Typesetting text", "Special characters", "Cross references"]
    body = [
        "Source files are plain text files that hold the words of the document and the",
        "commands that tell the typesetter how to set them on the page for the reader.",
    ]
    pages = []
    for number in range(1, 9):
        printed = str(number + 14)
        title = titles[(number - 1) // 2]
        if number % 2:
            right = 535 - pymupdf.get_text_length(printed, fontname="helv", fontsize=10)
            head = [(60, 50, f"1.{number} {title}", "helv", 10), (right, 50, printed, "helv", 10)]
        else:
            right = 535 - pymupdf.get_text_length(title, fontname="helv", fontsize=10)
            head = [(60, 50, printed, "helv", 10), (right, 50, title, "helv", 10)]
        pages.append([*head, *_lines(60, 62, body)])
    doc = parse_document(_pdf(pages), "lshort.pdf")
    text = _text(doc)
    assert not any(title in text for title in titles)
    assert text.count("Source files are plain text files") == 8
    assert doc.metadata["running_lines_removed"] == 16


def test_a_running_head_wrapped_onto_a_second_row_is_dropped() -> None:
    """LibreOffice on an A5 page: "Debian New Maintainers' Guide — Chapter 1. Getting
    started the right" / "way" over the text, its chapter title changing as chapters do: each
    page's head and its last word "way" were indexed, a paragraph broken across pages was cut
    by them ("…«Where to ask" / head / "for help»")."""
    chapters = ["Getting started the right way", "First steps", "Other requirements"]
    body = [
        "The rewrite of this tutorial document with updated contents and more practical",
        "examples is available online, and it covers the newer tools in more depth.",
        "",
        "Here is a second paragraph with words of its own, so that each page has a body",
        "of a few lines under its head, as in the book.",
    ]
    pages = []
    for number in range(1, 10):
        head = f"Debian New Maintainers' Guide — Chapter {(number - 1) // 3 + 1}. "
        chapter = chapters[(number - 1) // 3]
        if chapter.endswith("right way"):  # too long for the row: wrapped
            rows = [
                (60, 40, head + chapter.removesuffix(" way"), "helv", 9),
                (60, 51, "way", "helv", 9),
            ]
        else:
            rows = [(60, 40, head + chapter, "helv", 9)]
        pages.append([*rows, *[r for r in _lines(60, 75, body) if r[2]]])
    doc = parse_document(_pdf(pages), "maint-guide.pdf")
    text = _text(doc)
    assert "Maintainers' Guide" not in text and "\nway" not in text and not text.startswith("way")
    assert text.count("The rewrite of this tutorial document") == 9


def test_libreoffice_contents_with_the_page_number_against_the_leader_are_dropped() -> None:
    """LibreOffice sets a contents entry's page number right after its dots ("Chapter 1.
    Getting started.....3"): no entry was seen, the contents were indexed as paragraphs."""
    entries = [
        f"{title}{'.' * (70 - len(title))}{page}"
        for title, page in [
            ("Chapter 1. Getting started the right way", 3),
            ("1.1. Social dynamics of Debian", 4),
            ("1.2. Programs needed for development", 6),
            ("1.3. Documentation needed for development", 8),
            ("Chapter 2. First steps", 10),
        ]
    ]
    first = [(60, 60, "Contents", "hebo", 14), *_lines(60, 90, entries)]
    body = ["Debian is made by volunteers, and a package is what they make and look after."]
    doc = parse_document(_pdf([first, _lines(60, 100, body * 3)]), "guide.pdf")
    text = _text(doc)
    assert "Social dynamics" not in text and "First steps" not in text
    assert text.count("Debian is made by volunteers") == 3


def test_a_pages_first_line_apart_from_the_next_is_no_running_head() -> None:
    """A browser's print has no running heads: every page's first line sits in one slot, and
    where it is a paragraph's last line, set apart by the spacing before the next, it was
    dropped as a running head (1–2 % of a printed manual's lines, often a section's first
    sentence)."""
    words = ["close", "open", "read", "write", "stat", "watch", "copy", "rename"]
    ends = ["Ends the sentence of the page before.", "Closes the list of options above."]
    pages = []
    for number, word in enumerate(words, start=1):
        body = [
            f"The {word} event is emitted when the file handle has been used and can no",
            f"longer be {word}ed by the stream, which is done with it.",
        ]
        runs = []
        if number % 2:
            runs.append((60, 60, ends[number // 4 % 2].replace(".", f" ({word})."), "helv", 10))
            runs += _lines(60, 90, body)  # after a paragraph's spacing
        else:
            runs += _lines(60, 60, body)
        pages.append(runs)
    text = _text(parse_document(_pdf(pages), "node-fs.pdf"))
    assert all(f"({word})." in text for word in words[::2])


def test_lines_of_prose_at_one_height_on_every_page_are_no_running_heads() -> None:
    """Pandoc's DOCX printed by LibreOffice has no running heads: each page opens with the
    last line of a paragraph begun on the page before, set apart by the spacing before the
    next, and its last footnote ends at one height. Both slots recur on every page, and the
    lines went as running heads (a 13-page chapter lost 15 lines and 6 of its 8 notes)."""
    words = ["close", "open", "read", "write", "stat", "watch"]
    notes = [1, 3, 4, 7, 8, 11]  # not the page's number
    pages = []
    for number, word in zip(notes, words, strict=True):
        runs = [(60, 60, f"which is done by the stream once the {word} call returns,", "helv", 10)]
        runs += _lines(60, 90, [f"A paragraph about the {word} event and what it is for."])
        # two notes alike but for their numbers: a line of prose on two pages is no head either
        note = f"Ibid., p. {number + 10}." if word in ("read", "stat") else f"The {word} event."
        runs.append((60, 800, f"{number} {note}", "helv", 8))
        pages.append(runs)
    text = _text(parse_document(_pdf(pages), "guide.pdf"))
    for word in words:
        assert f"{word} call returns," in text
        assert f"The {word} event." in text or word in ("read", "stat")
    assert "Ibid., p. 14." in text and "Ibid., p. 18." in text


def test_a_long_chapter_title_over_a_few_pages_is_still_a_running_head() -> None:
    """A running head that reads like prose (nine words with a comma, or a full stop) and
    changes with the chapter every five pages is still dropped: it recurs, a page's own line
    of prose does not."""
    heads = [
        "Installing, Configuring, and Troubleshooting the Print Server on Linux Systems",
        "Статья 4. Права и обязанности сторон договора.",
        "Backing Up, Restoring, and Verifying the Archives of the Whole Site",
        "Monitoring, Logging, and Alerting for the Services You Run in Production",
    ]
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda"]
    pages = []
    for number in range(20):
        body = [f"The {words[number % 9]} step {'and ' * (number % 3)}then the next one."]
        pages.append([(60, 50, heads[number // 5], "cjk", 9), *_lines(60, 90 + number, body)])
    text = _text(parse_document(_pdf(pages, cyrillic="cjk"), "book.pdf"))
    assert not any(head in text for head in heads)
    assert "The theta step" in text


def test_a_browsers_long_page_title_over_the_body_is_dropped() -> None:
    """Chromium prints the page's title at the top of every page, close above the body (too
    close to be set apart): one over 60 characters was kept, glued to a paragraph on every
    page ("…— Руководство пользователя помогает управлять…")."""
    title = "Advanced configuration of package builds — the Debian User Manual"
    words = ["close", "open", "read", "write", "stat", "watch"]
    pages = []
    for word in words:
        body = [
            f"The {word} step helps to manage the build of each package and can be set",
            f"for the {word} stage of the build, as the following sections show in turn.",
        ]
        pages.append([(150, 22, title, "helv", 8), *_lines(60, 36, body)])
    text = _text(parse_document(_pdf(pages), "manual.pdf"))
    assert "Debian User Manual" not in text
    assert all(f"The {word} step helps" in text for word in words)


def test_an_ocr_text_layer_is_prose_not_code() -> None:
    """Tesseract's and ocrmypdf's scans set their recognised words invisibly in
    "GlyphLessFont", fixed pitch by its flags: every block of an OCR'd book was code — no
    paragraph, no heading, no line-end hyphen joined ("компь-" / "ютером")."""
    doc = pymupdf.open()
    page = doc.new_page()
    mono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
    lines = [
        "Операционная система состоит из нескольких основных программ, которые нужны компь-",
        "ютеру, чтобы он мог общаться с пользователем и получать от него инструкции.",
    ]
    for n, text in enumerate(lines):
        page.insert_text(
            (60, 80 + 12 * n),
            text,
            fontsize=8,
            fontname="F0",
            render_mode=3,
            **({"fontfile": mono} if pathlib.Path(mono).exists() else {}),
        )
    for xref in range(1, doc.xref_length()):
        if "/BaseFont" in doc.xref_object(xref):
            doc.xref_set_key(xref, "BaseFont", "/GlyphLessFont")
    blocks = _blocks(parse_document(doc.tobytes(), "scan.pdf"))
    assert [(b.kind, b.text) for b in blocks] == [
        (
            "paragraph",
            "Операционная система состоит из нескольких основных программ, которые нужны "
            "компьютеру, чтобы он мог общаться с пользователем и получать от него инструкции.",
        )
    ]


def test_a_browsers_ragged_lines_and_note_boxes() -> None:
    """Printed from a browser, without an outline: each line of a ragged-right paragraph was
    a paragraph (half a manual's paragraphs started mid-sentence), and a note box's bold
    label "Note" opened a section that took the text after the box."""
    runs = [(60, 60, "Installation", "hebo", 18)]
    runs += [
        (60, 100, "Install the package from the repository with your usual package", "helv", 10),
        (60, 116, "manager and then enable the service unit.", "helv", 10),
        (60, 148, "Note", "hebo", 10),
        (60, 164, "The service needs write access to the state directory.", "helv", 10),
        (60, 196, "This text follows the note and belongs to the installation.", "helv", 10),
    ]
    doc = parse_document(_pdf([runs]), "guide.pdf")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert sections["Installation"] == [
        "Install the package from the repository with your usual package manager and then "
        "enable the service unit.",
        "Note",
        "The service needs write access to the state directory.",
        "This text follows the note and belongs to the installation.",
    ]


def test_an_outline_title_that_lost_its_spaces_takes_the_headings_own() -> None:
    """A browser's outline drops the space where a heading wraps: "Configuring
    thesynchronisation daemon" titled the section and every citation of it."""
    runs = [
        (60, 60, "Configuring the", "hebo", 18),
        (60, 82, "synchronisation daemon", "hebo", 18),
        (60, 110, "The daemon copies files between machines on a schedule.", "helv", 10),
    ]
    doc = pymupdf.open(stream=_pdf([runs]))
    doc.set_toc([[1, "Configuring thesynchronisation daemon", 1]])
    parsed = parse_document(doc.tobytes(), "daemon.pdf")
    assert [s.title for _, s in parsed.root.walk()][1:] == [
        "Configuring the synchronisation daemon"
    ]


def test_running_heads_of_a_skewed_scan_are_dropped() -> None:
    """On a page scanned 0.8° askew, OCR sets a running head's ends 5–7 pt apart in height
    ("Debian Reference" above its "2/233"): the head was two rows, neither set apart from
    the other, and stayed in the text of every page."""
    words = ["shell", "prompt", "shutdown", "packages", "network", "users"]
    pages = []
    for n, word in enumerate(words, start=1):
        skew = 6 if n % 2 else -6  # and the page sits a little elsewhere on each scan
        x, y = 52 + 5 * n, 34 + 4 * (n % 3)
        head = [(x, y, "Debian Reference", "helv", 10), (x + 420, y + skew, f"{n}/233", "helv", 10)]
        body = [
            f"The {word} chapter tells how to work with the system from the console and",
            f"which {word} commands a new user needs first, with examples of each of them.",
        ]
        pages.append([*head, *_lines(60, 80, body)])
    doc = parse_document(_pdf(pages), "scan.pdf")
    text = _text(doc)
    assert "Debian Reference" not in text and "/233" not in text
    assert all(f"The {word} chapter" in text for word in words)


def test_running_heads_under_a_proof_stamp_are_dropped() -> None:
    """impatient: a printer's proof sets a stamp above the running head on every page — the
    date, a sheet number flush right ("No 9", "No 10") and the book's title — so the head
    ("Groups 15", "16 Using TeX") is not the page's top row until the stamp has gone, and the
    sheet number, whose left edge moves with its width, became a heading of every page."""
    body = [
        "A group consists of material enclosed in matching left and right braces, and the",
        "assignments made inside it are undone when the group ends at its right brace.",
    ]
    pages = []
    for number in range(1, 13):
        printed = str(number + 3)
        sheet = f"No {number + 95}"
        right = 535 - pymupdf.get_text_length(sheet, fontname="hebo", fontsize=14)
        stamp = [
            (300 if number % 2 else 330, 27, "3 Jan 2020 2:18 p.m.", "helv", 7),
            (right, 48, sheet, "hebo", 14),
            (60, 51, "TeX for the Impatient", "helv", 10),
        ]
        if number % 2:
            title = ["Groups", "Math formulas", "Spacing"][(number // 2) % 3]
            right = 535 - pymupdf.get_text_length(printed, fontname="helv", fontsize=10)
            head = [(60, 110, title, "helv", 10), (right, 110, printed, "helv", 10)]
        else:
            head = [(60, 110, f"{printed} Using TeX", "helv", 10)]
        pages.append([*stamp, *head, *_lines(60, 140, body)])
    doc = parse_document(_pdf(pages), "impatient.pdf")
    text = _text(doc)
    for gone in ("Groups", "Math formulas", "Using TeX", "No 9", "2020", "Impatient"):
        assert gone not in text
    assert [s.title for _, s in doc.root.walk() if s.title.startswith("No ")] == []
    assert text.count("A group consists of material") == 12


def test_roman_running_heads_of_the_front_matter_under_a_proof_stamp_are_dropped() -> None:
    """impatient pp. 8–9: the preface's heads are numbered in Roman ("viii Preface", "Preface
    ix"), too few pages to share an offset with a third of the book, and under the proof's
    stamp no edge row: "…so that you can get started. We assume that viii Preface you have
    access to a TeX implementation" read as one sentence."""
    body = [
        "we assume that you have access to a working implementation and know how to run it",
        "on your own machine, and that the examples can be typed in as they are printed.",
    ]
    pages = []
    for number in range(1, 16):
        stamp = [
            (300 if number % 2 else 330, 27, "3 Jan 2020 2:18 p.m.", "helv", 7),
            (60, 51, "TeX for the Impatient", "helv", 10),
        ]
        front = number <= 5
        printed = ["i", "ii", "iii", "iv", "v"][number - 1] if front else str(number - 5)
        title = "Preface" if front else "Groups"
        if number % 2:
            right = 535 - pymupdf.get_text_length(printed, fontname="helv", fontsize=10)
            head = [(60, 110, title, "helv", 10), (right, 110, printed, "helv", 10)]
        else:
            right = 535 - pymupdf.get_text_length(title, fontname="helv", fontsize=10)
            head = [(60, 110, printed, "helv", 10), (right, 110, title, "helv", 10)]
        pages.append([*stamp, *head, *_lines(60, 140, body)])
    text = _text(parse_document(_pdf(pages), "impatient.pdf"))
    for gone in ("Preface", "Groups", " iv", "iii"):
        assert gone not in text
    assert text.count("we assume that you have access") == 15


def test_running_heads_under_a_deep_top_margin_are_dropped_and_miss_the_outline() -> None:
    """stead3-ru: a book on Letter paper sets its running head 13 % down the page, below the
    outer 12 % edge rows are looked for in — "12 ГЛАВА 1. ОБЩИЕ СВЕДЕНИЯ", "1.3. КАК
    СОЗДАВАТЬ ИГРУ 13", a bare "15" — and a chapter's first page has its number at the
    bottom. They go; and the outline's "How to write a game" is found at its heading, not at
    the head of the page it starts on, which repeats it."""
    body = [
        "The engine reads the scene and the objects in it and shows the player what they",
        "can do there; every action is a click on a word of the text or of the inventory.",
    ]
    pages = [[*_lines(60, 300, ["1 General"], size=16), *_lines(60, 330, body)]]
    pages[0].append((290, 760, "11", "helv", 10))
    for number in range(2, 9):
        printed = str(number + 10)
        title = "1.3. HOW TO WRITE A GAME" if number >= 5 else "1.2. WHAT A GAME LOOKS LIKE"
        if number == 7:
            head = [(60, 112, printed, "helv", 10)]
        elif number % 2:
            right = 535 - pymupdf.get_text_length(printed, fontname="helv", fontsize=10)
            head = [(60, 112, title, "helv", 10), (right, 112, printed, "helv", 10)]
        else:
            chapter = "CHAPTER 1. GENERAL"
            right = 535 - pymupdf.get_text_length(chapter, fontname="helv", fontsize=10)
            head = [(60, 112, printed, "helv", 10), (right, 112, chapter, "helv", 10)]
        runs = [*head, *_lines(60, 150, body)]
        if number == 5:
            runs += [(60, 300, "1.3 How to write a game", "hebo", 13)]
            runs += _lines(60, 330, ["A game is a folder with a main file that the engine runs."])
        pages.append(runs)
    doc = pymupdf.open(stream=_pdf(pages), filetype="pdf")
    doc.set_toc(
        [[1, "General", 1], [2, "What a game looks like", 2], [2, "How to write a game", 5]]
    )
    parsed = parse_document(doc.tobytes(), "stead.pdf")
    text = _text(parsed)
    assert "GENERAL" not in text and "HOW TO WRITE" not in text and "WHAT A GAME" not in text
    assert not {"11", "12", "15", "17", "18"} & set(text.split())
    assert text.count("The engine reads the scene") == 8
    game = next(s for _, s in parsed.root.walk() if s.title == "How to write a game")
    assert game.page == 5
    assert game.blocks[0].text.startswith("A game is a folder")
    assert "The engine reads" not in game.blocks[0].text


def test_page_numbers_under_a_deep_bottom_margin_are_dropped_not_a_figures_label() -> None:
    """A book's pages set on A4 (Ukrainian orthography, 1960): the page number sits alone at
    84 % of the page height, left and right by turns, below the outer 12 % a running footer
    is looked for in. It goes; a number ending a page that does not follow the page count (a
    figure's label) stays."""
    body = [
        "Words are carried over to the next line by syllables, and a single letter is never",
        "left at the end of a line nor carried over to the start of the next one by itself.",
    ]
    pages = []
    for number in range(1, 5):
        printed = str(number + 62) if number != 3 else "7"
        foot = (467 if number % 2 else 116, 710, printed, "helv", 12)
        pages.append([*_lines(116, 180, body), foot])
    doc = parse_document(_pdf(pages), "orthography.pdf")
    words = _text(doc).split()
    assert not {"63", "64", "66"} & set(words) and "7" in words
    assert doc.metadata["running_lines_removed"] == 3


def test_footnotes_are_blocks_of_their_own_after_the_paragraph() -> None:
    """FHS: "… scripts. ¹" with "¹Command binaries …" and "¹¹Obviously …" at the page
    bottom, in a smaller font; the paragraph goes on on the next page."""
    first = "It may contain commands used by scripts."
    mark = _after(60, first, "helv", 10)
    pdf = _pdf(
        [
            [
                *_lines(60, 100, ["The directory holds commands that may be used by users."]),
                (60, 112, first, "helv", 10),
                (mark, 108, "1", "helv", 7),
                (mark + 4, 112, " Each of them is a program needed before", "helv", 10),
                (60, 700, "1", "helv", 6),
                (64, 703, "Command binaries that are not essential enough go", "helv", 8),
                (60, 713, "into the other hierarchy instead.", "helv", 8),
                (60, 723, "11", "helv", 6),
                (67, 726, "Obviously, there are no manual pages in the root.", "helv", 8),
            ],
            _lines(60, 100, ["other filesystems are mounted, in single user mode."]),
        ]
    )
    blocks = _blocks(parse_document(pdf, "fhs.pdf"))
    assert [b.text for b in blocks] == [
        "The directory holds commands that may be used by users. "
        # the raised mark stays raised: "scripts.1" read as a number in the text
        "It may contain commands used by scripts.¹ Each of them is a program needed before "
        "other filesystems are mounted, in single user mode.",
        "1 Command binaries that are not essential enough go into the other hierarchy instead.",
        "11 Obviously, there are no manual pages in the root.",
    ]
    assert (blocks[0].page, blocks[0].page_end) == (1, 2)
    assert blocks[1].page == blocks[2].page == 1


def test_plain_tex_notes_marked_a_point_smaller_and_raised_are_footnotes() -> None:
    """TeX for the Impatient: a note's mark is set in 7 points beside its 8-point text and
    raised 2.8 points (a seventh smaller, not 15 %): the notes were read as paragraphs, two
    of them one paragraph, and the page's paragraph running on to the next page was cut."""
    first = "so reading with \\read is very different from reading with an input file."
    pdf = _pdf(
        [
            [
                *_lines(60, 100, [BODY_LINE] * 3),
                (60, 136, "TeX takes any input stream number", "helv", 10),
                (60, 697.2, "7", "helv", 7),
                (66, 700, "Families 2 and 3 are special in that their font files", "helv", 8),
                (60, 710, "must include parameters for math spacing.", "helv", 8),
                (60, 717.2, "8", "helv", 7),
                (66, 720, "This is the usual convention, but TeXs may differ.", "helv", 8),
            ],
            _lines(60, 100, ["not between 0 and 15 to refer to the terminal.", first]),
        ]
    )
    texts = [b.text for b in _blocks(parse_document(pdf, "impatient.pdf"))]
    assert texts == [
        " ".join([BODY_LINE] * 3) + " TeX takes any input stream number not between 0 and 15 "
        "to refer to the terminal. " + first,
        "7 Families 2 and 3 are special in that their font files must include parameters for "
        "math spacing.",
        "8 This is the usual convention, but TeXs may differ.",
    ]


def test_notes_opening_with_a_fonts_own_superscript_digits_are_footnotes() -> None:
    """XeTeX and dblatex set a note's number with the font's superscript digits, in the text
    ("¹⁰То есть: …", "³Press …"): the note was a paragraph, and the paragraph going on to
    the next page was cut at it ("… чтобы вы смогли убедиться, что это" | "именно тот
    компьютер.")."""
    pdf = _pdf(
        [
            [
                *_lines(60, 100, [BODY_LINE] * 3),
                (60, 136, "so that you can check that it is", "helv", 10),
                (60, 700, "\u00b3That is: press the left Alt key and F2 at once.", "helv", 8),
            ],
            _lines(60, 100, ["the very machine you meant to reach."]),
        ]
    )
    texts = [b.text for b in _blocks(parse_document(pdf, "install.pdf"))]
    # an isotope opening a line of the body is no footnote, and its text stays as set
    body = [*_lines(60, 100, ["\u00b3He is a light, stable isotope of helium.", BODY_LINE])]
    assert _text(parse_document(_pdf([body]), "physics.pdf")).startswith("\u00b3He is a light")
    assert texts == [
        " ".join([BODY_LINE] * 3)
        + " so that you can check that it is the very machine you meant to reach.",
        "\u00b3 That is: press the left Alt key and F2 at once.",
    ]


BODY_LINE = "A package is built from its source with the tools of the release it is for."


def test_footnotes_whose_number_is_glued_to_their_first_word_are_footnotes() -> None:
    """dblatex (maint-guide.ru) sets a footnote's number in its line, glued to the first word:
    "1В документе предполагается…" was a paragraph in the middle of the section, and the page's
    paragraph running on to the next page was cut at it."""
    pdf = _pdf(
        [
            [
                *_lines(60, 100, [BODY_LINE] * 12),
                *_lines(60, 256, ["The guide assumes that you use a recent release and that"]),
                (60, 700, "1This document assumes that you are using jessie or a", "helv", 8),
                (52, 710, "newer system, with the packages of that release.", "helv", 8),
                (60, 722, "2There is more about this in the policy manual.", "helv", 8),
            ],
            _lines(60, 100, ["the tools it names are installed on your machine."]),
        ]
    )
    doc = parse_document(pdf, "maint-guide.pdf")
    assert [b.text for b in _blocks(doc)][1:] == [
        "The guide assumes that you use a recent release and that "
        "the tools it names are installed on your machine.",
        "1This document assumes that you are using jessie or a newer system, with the packages "
        "of that release.",
        "2There is more about this in the policy manual.",
    ]
    assert doc.metadata["footnotes"] == 2
    # a listing whose line numbers are glued to its code, a caption opening with "3D": no notes
    listing = [(60, 700 + 10 * n, f"{n + 1}Dim x{n} As Integer = {n}", "cour", 8) for n in range(3)]
    caption = [(60, 740, "3D view of the assembled model from above", "helv", 8)]
    for foot in (listing, caption):
        doc = parse_document(_pdf([[*_lines(60, 100, [BODY_LINE] * 12), *foot]]), "vb.pdf")
        assert "footnotes" not in doc.metadata


def test_a_paragraph_going_on_with_a_capital_after_a_page_break_is_joined() -> None:
    """babel-russian: "… LuaLaTeX, and" fills the last line of page 2, its footnote below it,
    and page 3 goes on "XeLaTeX. Nevertheless …" — a name, not a new paragraph. A short line
    without a full stop (a list's last item) followed by a capital is not joined, nor is a
    caption."""
    filled = "Nowadays, babel can be used with any engine: LaTeX, pdfLaTeX, LuaLaTeX, and"
    pdf = _pdf(
        [
            [
                *_lines(60, 100, ["Since earlier versions babel did not support every engine,"]),
                (60, 112, filled, "helv", 10),
                (60, 700, "1", "helv", 6),
                (64, 703, "The file described here has the version number 1.3m.", "helv", 8),
            ],
            [
                *_lines(60, 100, ["XeLaTeX. Nevertheless some troubles may occur with a few."]),
                *_lines(60, 130, ["The options of the package are these ones, one by one:"]),
                *_lines(80, 142, ["cyrillic encodings", "default fonts"]),
            ],
            [
                *_lines(60, 100, ["Language names are given in English and in the language"]),
                (60, 112, filled, "helv", 10),
            ],
            [*_lines(60, 100, ["Figure 2. The fonts", "Then the package loads its files."])],
        ]
    )
    texts = [b.text for b in _blocks(parse_document(pdf, "russianb.pdf"))]
    assert "LuaLaTeX, and XeLaTeX. Nevertheless some troubles" in texts[0]
    assert texts[1].startswith("1 The file described")
    assert "default fonts" in texts[3] and "Language names" not in texts[3]
    assert texts[4].endswith("LuaLaTeX, and") and texts[5].startswith("Figure 2.")


def test_urls_and_paths_broken_at_a_line_end_are_rejoined() -> None:
    """ "https://www.ctan. org/", "/ usr/sbin", "/usr/ share/man": the line break put a space
    inside them; prose after a link keeps its space."""
    tail = "mirrors. Commands live in "
    slash = _after(60, tail, "helv", 10)
    pdf = _pdf(
        [
            [
                *_lines(60, 100, ["The catalogue of packages is at https://www.ctan."]),
                *_lines(60, 112, ["org/pkg/catalogue and the list of mirrors at https://tug.org/"]),
                (60, 124, tail, "helv", 10),
                (slash, 124, "/", "cour", 10),
                (60, 136, "usr/sbin", "cour", 10),
                (_after(60, "usr/sbin", "cour", 10), 136, " and manual pages in", "helv", 10),
                (60, 148, "/usr/", "cour", 10),
                (60, 160, "share/man", "cour", 10),
                (_after(60, "share/man", "cour", 10), 160, " on every system, see", "helv", 10),
                *_lines(
                    60,
                    172,
                    [
                        "https://tug.org/texlive/acquire-",
                        "mirror.html or https://tug.org/",
                        "for details.",
                    ],
                ),
            ]
        ]
    )
    text = _text(parse_document(pdf, "links.pdf"))
    assert "https://www.ctan.org/pkg/catalogue" in text
    assert "https://tug.org/mirrors." in text
    assert "Commands live in /usr/sbin and manual pages in /usr/share/man on" in text
    assert "https://tug.org/texlive/acquire-mirror.html" in text
    assert "https://tug.org/ for details." in text


def test_dblatex_marks_of_a_url_broken_after_a_slash_go() -> None:
    """dblatex (every DocBook manual Debian builds to PDF) marks a URL broken after a slash with
    a hyphen: maint-guide.ru read "https://www.debian.org/doc/- manuals/debian-faq/" 16 times.
    A real hyphen at the break stays ("ch-" + "controlfields"), so does GitLab's "/-/"."""
    pdf = _pdf(
        [
            _lines(
                60,
                100,
                [
                    "See the Debian FAQ on contributing (https://www.debian.org/doc/-",
                    "manuals/debian-faq/contributing.en.html), the wiki (http://wiki.debian.org/-",
                    "Projects/DebSrc3.0), the policy (http://www.debian.org/doc/debian-policy/ch-",
                    "controlfields.html) and the issues (https://gitlab.com/group/project/-",
                    "/issues) of the project.",
                ],
            )
        ]
    )
    text = _text(parse_document(pdf, "maint-guide.pdf"))
    assert "https://www.debian.org/doc/manuals/debian-faq/contributing.en.html" in text
    assert "http://wiki.debian.org/Projects/DebSrc3.0" in text
    assert "debian-policy/ch-controlfields.html" in text
    assert "https://gitlab.com/group/project/-/issues" in text


@pytest.mark.parametrize(
    ("font", "mono"),
    [
        ("NimbusMonL-Regu", True),  # URW's Courier, without the font's fixed-pitch flag
        ("NimbusMonPS-Bold", True),
        ("SFTT1000", True),  # TeX's typewriter faces
        ("lmtt10", True),
        ("CMTT10", True),
        ("Menlo-Regular", True),
        ("SourceCodePro-Regular", True),
        ("ArialUnicodeMS", False),  # text faces
        ("PonomarUnicode", False),
        ("EncodeSans-Regular", False),
        ("Code2000", False),
        ("MonotypeCorsiva", False),
        ("DejaVuSansMono-Bold", True),
        ("CenturySchL-Roma", False),
        ("Times-Roman", False),
    ],
)
def test_monospaced_fonts_known_by_name(font: str, mono: bool) -> None:
    """yodl's C++ Annotations sets its listings in NimbusMonL, whose fixed-pitch flag is not
    set: 7 code blocks were found in 1 151 pages, the rest joined into prose."""
    assert bool(MONO_NAME.search(font)) is mono


def test_bullet_lines_are_list_items_not_headings() -> None:
    """FHS: "• ldconfig", "• sln" set in bold, each in a block of its own."""
    pdf = _pdf(
        [
            [
                (60, 80, "Chapter 6. Operating System Annex", "hebo", 24),
                *_lines(80, 130, ["Linux systems place commands relating to filesystem upkeep"]),
                *_lines(80, 142, ["and boot loader management into the system directory."]),
                *_lines(80, 166, ["Optional files for this directory:"]),
                (90, 190, "• ldconfig", "hebo", 10),
                (90, 214, "• sln", "hebo", 10),
                *_lines(90, 238, ["Static ln and static sync are useful when things go wrong."]),
                *_lines(80, 274, ["6.1.7. /sys : Kernel and system information"], size=17),
                *_lines(80, 300, ["The directory is where the kernel shows its own state."]),
            ]
        ]
    )
    doc = parse_document(pdf, "fhs.pdf")
    assert [entry["title"] for entry in doc.toc()] == [
        "Chapter 6. Operating System Annex",
        "6.1.7. /sys : Kernel and system information",
    ]
    annex = next(s for _, s in doc.root.walk() if s.title.startswith("Chapter 6"))
    # the base-14 Helvetica sets "•" as "·"
    assert [b.text for b in annex.blocks][2:4] == ["· ldconfig", "· sln"]


def test_a_name_in_a_smaller_monospaced_font_wrapped_onto_its_own_line_ends_the_sentence() -> None:
    """LibreOffice sets code words a size smaller: a sentence whose last word, a command or a
    path, wrapped onto a line of its own ("…see info autoconf and info" / "automake.") became
    a paragraph and a code block, the sentence cut (25 of the 75 code blocks of a book). A
    listing after a sentence ending in a colon stays apart, as does prose after a listing."""
    prose = [
        "To edit the configure.ac and Makefile.am files you need to know the two tools",
        "autoconf and automake, and how they work together to make the build; see info",
    ]
    runs = [(60, 80 + 13.8 * n, text, "helv", 10) for n, text in enumerate(prose)]
    # LibreOffice's step (a block of its own), the full stop in the text's font
    runs += [
        (60, 107.6, "automake", "cour", 9),
        (_after(60, "automake", "cour", 9), 107.6, ".", "helv", 10),
    ]
    colon = "Run the next command in the folder of the source tree of the package:"
    runs += [(60, 130, colon, "helv", 10)]
    runs += [
        (78, 146, "autoreconf -i -f", "cour", 9),
        (78, 157, "./configure --prefix=/usr", "cour", 9),
    ]
    runs += [(60, 174, "The second step is for the user, who runs configure and make.", "helv", 10)]
    blocks = [(b.kind, b.text) for b in _blocks(parse_document(_pdf([runs]), "guide.pdf"))]
    assert blocks == [
        ("paragraph", " ".join(prose) + " automake."),
        ("paragraph", colon),
        ("code", "autoreconf -i -f\n./configure --prefix=/usr"),
        ("paragraph", "The second step is for the user, who runs configure and make."),
    ]


def test_list_marks_set_apart_from_their_items_are_joined_to_them() -> None:
    """ReportLab's (as Word's and LibreOffice's) lists set a tab between "•" and the item: the
    marks read as a table's first column ("• | What is Python?"), and the paragraph after the
    list went on the last item. A sign in a table's column stays the table's ("e ● ●")."""
    items = ["What is ReportLab all about?", "What is Python?", "How do I set it up?"]
    runs = [(60, 80, "In this chapter, we will cover the groundwork:", "F0", 10)]
    for n, item in enumerate(items):
        runs += [(78, 96 + 12 * n, "•", "F0", 10), (96, 96 + 12 * n, item, "F0", 10)]
    runs += [(60, 132, "We need your help to make sure this manual is complete.", "F0", 10)]
    # an item whose text wraps back to the margin goes on there
    runs += [(78, 146, "•", "F0", 10), (96, 146, "Install the package from the", "F0", 10)]
    runs += [(60, 158, "Debian archive with apt.", "F0", 10)]
    for n, (name, marks) in enumerate([("e", "● ●"), ("v", "● ●"), ("mz", "●")]):
        y = 170 + 12 * n
        runs += [(60, y, name, "F0", 10), (120, y, marks, "F0", 10)]
        runs += [(160, y, f"The score of case {name}.", "F0", 10)]
    blocks = [b.text for b in _blocks(parse_document(_pdf([runs], cyrillic="F0"), "rl.pdf"))]
    assert blocks[1:6] == [
        "• What is ReportLab all about?",
        "• What is Python?",
        "• How do I set it up?",
        "We need your help to make sure this manual is complete.",
        "• Install the package from the Debian archive with apt.",
    ]
    assert not any(b.startswith("● The score") for b in blocks)


def test_list_marks_of_a_symbol_font_are_bullets() -> None:
    """Word and LibreOffice set a list's "•" in Symbol or OpenSymbol, mapped to its private-use
    code point (U+F0B7), apart from the item: no mark, it made the list a table of two columns
    ("\uf0b7 | What is Python?")."""
    items = ["What is ReportLab all about?", "What is Python?", "How do I set it up?"]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 80), "In this chapter, we will cover the groundwork:", fontsize=10)
    for n, item in enumerate(items):
        page.insert_text((78, 96 + 12 * n), "•", fontsize=10, fontname="symb")  # code 0xB7
        page.insert_text((96, 96 + 12 * n), item, fontsize=10)
    page.insert_text((60, 132), "We need your help to make sure this manual is complete.")
    symbol = next(xref for xref, *_, name, _ in page.get_fonts() if name == "symb")
    cmap = doc.get_new_xref()
    doc.update_object(cmap, "<< >>")
    doc.update_stream(
        cmap,
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /S def"
        b" 1 begincodespacerange <00> <FF> endcodespacerange"
        b" 1 beginbfchar <B7> <F0B7> endbfchar endcmap"
        b" CMapName currentdict /CMap defineresource pop end end",
    )
    doc.xref_set_key(symbol, "ToUnicode", f"{cmap} 0 R")
    data = doc.tobytes()
    assert "\uf0b7" in pymupdf.open(stream=data)[0].get_text()
    blocks = _blocks(parse_document(data, "word.pdf"))
    assert [(b.kind, b.text) for b in blocks[1:5]] == [
        ("paragraph", "• What is ReportLab all about?"),
        ("paragraph", "• What is Python?"),
        ("paragraph", "• How do I set it up?"),
        ("paragraph", "We need your help to make sure this manual is complete."),
    ]


def test_list_items_of_code_words_are_items_not_a_listing() -> None:
    """An item whose words are mostly code ("• DEBIAN_FRONTEND=text", "• пакета
    build-essential,") is a list's item: each its own paragraph, not lines of one listing."""
    runs = [(60, 80, "The installer reads these settings:", "F0", 10)]
    for n, path in enumerate(["DEBIAN_FRONTEND=text", "DEBCONF_DEBUG=5", "lowmem=1"]):
        runs += [(78, 96 + 12 * n, "•", "F0", 10), (96, 96 + 12 * n, path, "cour", 10)]
    blocks = _blocks(parse_document(_pdf([runs], cyrillic="F0"), "items.pdf"))
    assert [(b.kind, b.text) for b in blocks[1:]] == [
        ("paragraph", "• DEBIAN_FRONTEND=text"),
        ("paragraph", "• DEBCONF_DEBUG=5"),
        ("paragraph", "• lowmem=1"),
    ]


def test_bullet_items_in_the_block_of_the_lines_above_are_paragraphs_of_their_own() -> None:
    """texlive-ru's tight itemize: the items, without space between them, came in the block
    of the sentence that introduces them and were one paragraph ("• Английский: … •
    Итальянский: …"); an item's wrapped line still goes on with it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)  # it has "•"
    lines = [
        "Optional files for this directory:",
        "• ldconfig, the dynamic linker's cache,",
        "• sln, a static ln",
        "that is useful when things go wrong.",
    ]
    for i, text in enumerate(lines):
        page.insert_text((80, 130 + 12 * i), text, fontsize=10, fontname="F0")
    assert [b.text for b in _blocks(parse_document(doc.tobytes(), "fhs.pdf"))] == [
        "Optional files for this directory:",
        "• ldconfig, the dynamic linker's cache,",
        "• sln, a static ln that is useful when things go wrong.",
    ]


def test_code_listing_keeps_its_lines_apart_from_the_prose_after_it() -> None:
    """GNU standards: "… } return ++x + bar (); } We find it easier to read …" was one
    paragraph: the listing's last lines share a PyMuPDF block with the prose after it."""
    code = [
        (0, "if (x < foo (y, z))"),
        (2, "haha = bar[4] + 5;"),
        (0, "else"),
        (2, "{"),
        (4, "while (z)"),
        (4, "haha += foo (z, z);"),
        (2, "}"),
        (0, "return ++x + bar ();"),
    ]
    runs = _lines(90, 100, ["For the body of the function, our recommended style is this:"])
    runs += [
        (118 + 6 * indent, 116 + 12 * i, text, "cour", 10) for i, (indent, text) in enumerate(code)
    ]
    runs += _lines(104, 116 + 12 * len(code) + 2, ["We find it easier to read a program when it"])
    runs += _lines(90, 116 + 12 * len(code) + 14, ["has spaces before the open-parentheses."])
    blocks = _blocks(parse_document(_pdf([runs]), "standards.pdf"))
    assert [b.kind for b in blocks] == ["paragraph", "code", "paragraph"]
    assert blocks[1].text == "\n".join(" " * indent + text for indent, text in code)
    assert blocks[2].text == (
        "We find it easier to read a program when it has spaces before the open-parentheses."
    )


def test_a_blank_line_inside_a_listing_does_not_cut_it() -> None:
    """pandoc's listings (LaTeX's Shaded) set a leading of 1.25, so a blank line is 2.5 font
    sizes and a little more: "com.example.label1=…", a blank line, "# this is a comment" were
    two listings, and so was every listing with a blank line after its first lines. A line
    set further off after a listing (the next entry's title, 2.63) starts a block of its
    own."""
    size, leading = 9.5, 11.9
    first = ['com.example.label1="a label"']
    rest = ["# this is a comment", "com.example.label2=another\\ label", "com.example.label3"]
    runs = _lines(90, 100, ["The following example is a label-file format:"])
    runs += [(100, 120, first[0], "cour", size)]
    runs += [
        (100, 120 + 2 * leading + 0.3 + leading * i, t, "cour", size) for i, t in enumerate(rest)
    ]
    top = 120 + 2 * leading + 0.3 + leading * 2 + 40
    two = ["\\def\\break{\\penalty-10000 }", "\\def\\nobreak{\\penalty10000 }"]
    runs += [(100, top + 12 * i, t, "cour", 10) for i, t in enumerate(two)]
    runs += [(100, top + 12 + 26.3, "\\goodbreak", "cour", 10)]
    runs += _lines(100, top + 12 + 26.3 + 12, ["This command ends a paragraph and also tells TeX"])
    blocks = _blocks(parse_document(_pdf([runs]), "run.pdf"))
    codes = [b.text for b in blocks if b.kind == "code"]
    assert codes[0] == "\n".join([*first, *rest])
    assert codes[1] == "\n".join(two)


def test_a_listings_leading_is_its_least_step_not_a_blank_line() -> None:
    """After a blank line inside a listing, the next listing set 4.5 font sizes below is
    still a listing of its own: the leading is the least step between the last lines, not
    the last step (a blank line), which doubled what a next line may stand off."""
    one = [(100, 100, "make all", "cour", 10), (100, 112.5, "make check", "cour", 10)]
    one.append((100, 137.8, "make install", "cour", 10))
    two = [(100, 182.8, "dpkg -i pkg.deb", "cour", 10), (100, 195.3, "apt -f install", "cour", 10)]
    runs = _lines(90, 80, ["Build and install it:"]) + one + two
    codes = [b.text for b in _blocks(parse_document(_pdf([runs]), "b.pdf")) if b.kind == "code"]
    assert codes == ["make all\nmake check\nmake install", "dpkg -i pkg.deb\napt -f install"]


def test_line_end_hyphen_of_a_compound_is_kept() -> None:
    """FHS: "sendmailcompatible", "FHScompliant", "programspecific" lost their hyphen at a
    line end; ordinary hyphenation ("ex-" / "ample") is still undone."""
    pdf = _pdf(
        [
            _lines(
                60,
                100,
                [
                    "The sendmail program must resolve to the sendmail-",
                    "compatible command of the mail agent on every FHS-",
                    "compliant system, and each program-",
                    "specific file goes in a directory of its own, for ex-",
                    "ample the queue; some-",
                    "thing else is something compatible with any specific use.",
                ],
            )
        ]
    )
    text = _text(parse_document(pdf, "fhs.pdf"))
    assert "the sendmail-compatible command" in text
    assert "every FHS-compliant system" in text
    assert "each program-specific file" in text
    assert "for example the queue; something else" in text


def test_a_boxed_note_set_narrower_than_the_page_is_one_paragraph() -> None:
    """stead3-ru: a "Важно!" note indented on both sides, each of its lines a block of its
    own, ending short of the page's margin but all at the note's own right edge."""
    size = 9.4
    prose = [
        "Functions nearly always hold conditions and work with the variables of the game world,",
        "so a handler may be written as a function of the object it belongs to and the scene.",
    ]
    note = [
        "the main difference between attributes and handlers is",
        "that handlers may change the state of the game world",
        "and attributes must not, since the engine reads them at",
        "moments nobody can foresee.",
    ]
    runs = [(60, 100 + 14.5 * i, text, "helv", size) for i, text in enumerate(prose)]
    widths = [pymupdf.get_text_length(text, fontname="helv", fontsize=size) for text in note]
    edge = max(widths[:-1])
    for i, text in enumerate(note):
        y = 150 + 14.5 * i
        if i == len(note) - 1:
            runs.append((90, y, text, "helv", size))
            continue
        words = text.split()  # justified: the spaces widened to end at the note's edge
        extra = (edge - widths[i]) / (len(words) - 1)
        x = 90.0
        for word in words:
            runs.append((x, y, word, "helv", size))
            x += pymupdf.get_text_length(word + " ", fontname="helv", fontsize=size) + extra
    pdf = _pdf([runs])
    assert len(pymupdf.open(stream=pdf)[0].get_text("dict")["blocks"]) >= 5  # a block a line
    blocks = [b.text for b in _blocks(parse_document(pdf, "stead.pdf"))]
    assert blocks[-1] == " ".join(note)


def test_a_justified_line_in_pieces_goes_on_in_the_next_block() -> None:
    """stead3's manual: a justified line PyMuPDF hands over in pieces ("строками," …
    "функциями-" far to the right), the next line in a block of its own: the paragraph goes on
    from where the row starts, not from its last piece (it was cut at "функциями-")."""
    size = 10
    first = "The attributes of an object are usually plain text strings, numbers or"
    width = pymupdf.get_text_length(first, fontname="helv", fontsize=size)
    runs: list[Run] = [(60, 100, first, "helv", size)]
    pieces = ["tables,", "lists", "or", "func-"]
    widths = [pymupdf.get_text_length(w, fontname="helv", fontsize=size) for w in pieces]
    gap = (width - sum(widths)) / (len(pieces) - 1)
    x = 60.0
    for piece, piece_width in zip(pieces, widths, strict=True):
        runs.append((x, 114.5, piece, "helv", size))
        x += piece_width + gap
    runs.append((60, 133, "tions that return them when the game asks.", "helv", size))
    pdf = _pdf([runs])
    assert len(pymupdf.open(stream=pdf)[0].get_text("dict")["blocks"]) == 2
    assert [b.text for b in _blocks(parse_document(pdf, "stead.pdf"))] == [
        f"{first} tables, lists or functions that return them when the game asks."
    ]


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        (
            "see https://www.gnu.",
            "org/software/guile/)",
            "see https://www.gnu.org/software/guile/)",
        ),
        (
            "at https://lists.gnu.org/",
            "mailman/listinfo",
            "at https://lists.gnu.org/mailman/listinfo",
        ),
        ("the page https://tug.org/", "texworks.", "the page https://tug.org/texworks."),
        ("(https://tug.org/xetex).", "fc-list and", "(https://tug.org/xetex). fc-list and"),
        ("see https://tug.org/xetex.", "fc-list and", "see https://tug.org/xetex. fc-list and"),
        ("in /etc/", "environment.", "in /etc/environment."),
        ("under macros/latex/", "macros/plain/ too", "under macros/latex/ macros/plain/ too"),
        ("use it and/", "or not", "use it and/ or not"),
        ("a well-", "known rule", "a well-known rule"),
        ("x86-", "compatible", "x86-compatible"),
        ("on a case-", "by-case basis", "on a case-by-case basis"),
        ("copy qemu-", "user-static", "copy qemu-user-static"),
        ("a com\u00ad", "mand", "a command"),
        ("на один из во-", "просов в списке", "на один из вопросов в списке"),
        ("Во-", "первых, это быстро", "Во-первых, это быстро"),
        ("и, в-", "третьих, дёшево", "и, в-третьих, дёшево"),
        ("кое-", "что ещё", "кое-что ещё"),
        ("ОСНОВНЫЕ ПОЛО-", "ЖЕНИЯ И ТЕРМИНЫ", "ОСНОВНЫЕ ПОЛОЖЕНИЯ И ТЕРМИНЫ"),
        ("ИЗ-", "ЗА ЭТОГО", "ИЗ-ЗА ЭТОГО"),
        ("FHS-", "COMPLIANT", "FHS-COMPLIANT"),
        ("игры в каталоге. Unix-", "версия ищет", "игры в каталоге. Unix-версия ищет"),
        ("открыть PDF-", "файл", "открыть PDF-файл"),
        ("например, при-", "мер", "например, пример"),
        ("настроек вы-", "полняется", "настроек выполняется"),
        ("see https:", "//tug.org/tds", "see https://tug.org/tds"),
        ("(https:", "//tug.org)", "(https://tug.org)"),
        ("the scheme:", "//not a link", "the scheme: //not a link"),
    ],
)
def test_line_joins(left: str, right: str, joined: str) -> None:
    assert join_text(left, right, Vocabulary([])) == joined


def test_a_russian_compound_broken_at_its_hyphen_keeps_it() -> None:
    """stead3's "функциями-" + "обработчиками": two words the document writes apart and the
    dictionary knows, their join a word of neither; a word of the dictionary ("при-" + "мер")
    or a short pair is joined."""
    vocabulary = Vocabulary(["атрибуты могут быть функциями", "вызываются обработчиками"])
    assert (
        join_text("строками, функциями-", "обработчиками и", vocabulary)
        == "строками, функциями-обработчиками и"
    )
    assert join_text("строками, функциями-", "обработчиками и", Vocabulary([])) == (
        "строками, функциямиобработчиками и"  # halves the document never writes: a break
    )
    assert join_text("например, при-", "мер", vocabulary) == "например, пример"
    # a Russian word in a monospaced font, broken by a word processor's hyphenation
    # ("часть ре-" / "дакция", LibreOffice); code and compounds keep theirs
    assert join_text("часть ре-", "дакция на", vocabulary, mono=True) == "часть редакция на"
    assert join_text("dpkg-", "buildpackage", vocabulary, mono=True) == "dpkg-buildpackage"
    assert join_text("пакет-", "версия", vocabulary, mono=True) == "пакет-версия"


RUSSIAN_PROSE = [
    "Доктор вошёл в комнату и увидел больную девочку на кровати.",
    "Снег лежал на крыше больницы, и белой была вся дорога до деревни.",
    "Фельдшер принёс инструменты и зажёг лампу ярко над столом.",
    "Документа не было, и тест пришлось отложить до утра.",
]
BULGARIAN_PROSE = [
    "Тази книга описва системата и нейните възможности за набиране на текст.",
    "Всеки век има своите правила, а торите се описват в отделна глава.",
]


@pytest.mark.parametrize(
    ("left", "right", "joined", "prose"),
    [
        ("кто-", "нибудь пришёл", "кто-нибудь пришёл", RUSSIAN_PROSE),
        ("какого-", "то врача", "какого-то врача", RUSSIAN_PROSE),
        ("всё-", "таки успел", "всё-таки успел", RUSSIAN_PROSE),
        ("на мес-", "то", "на место", RUSSIAN_PROSE),  # a word the dictionary knows
        ("ярко-", "белой простынёй", "ярко-белой простынёй", RUSSIAN_PROSE),
        ("тест-", "документа", "тест-документа", RUSSIAN_PROSE),
        ("двух-", "буквенный код", "двухбуквенный код", RUSSIAN_PROSE),  # a numeral's form
        ("настроек вы-", "полняется", "настроек выполняется", RUSSIAN_PROSE),
        ("век-", "торите", "векторите", BULGARIAN_PROSE),  # not Russian: the strict rule
        ("пришла Свет-", "ка домой", "пришла Светка домой", RUSSIAN_PROSE),  # no particle
        ("кое-", "что ещё", "кое-что ещё", RUSSIAN_PROSE),  # a prefix with its hyphen
        ("давай-", "ка споём", "давай-ка споём", RUSSIAN_PROSE),  # "-ка" after an imperative
        ("на веб-", "сервере", "на веб-сервере", RUSSIAN_PROSE),
        ("бак для топ-", "лива", "бак для топлива", RUSSIAN_PROSE),  # the dictionary's word
        ("мер-", "жить", "мержить", [*RUSSIAN_PROSE, "жить"]),  # halves of three letters
        ("дата-", "сеты", "датасеты", [*RUSSIAN_PROSE, "дата"]),  # eight letters in all
    ],
)
def test_russian_compounds_and_particles_keep_their_hyphen(
    left: str, right: str, joined: str, prose: list[str]
) -> None:
    """A Russian word and its particle ("кто-нибудь"), or two words the dictionary knows
    whose join it does not and one of which the document writes whole ("ярко-белой"), keep
    the hyphen a line end fell on: a calibre print of a Bulgakov story read "чьянибудь",
    "яркобелой" (10 of 135 compounds). Only in a Russian document: the Russian dictionary
    knows Bulgarian "век" and "торите"."""
    assert join_text(left, right, Vocabulary(prose)) == joined


def test_printed_page_numbers_come_with_the_physical_ones() -> None:
    """install.ru.pdf prints "i"–"x" on its first ten pages and "1" on the eleventh: each
    chunk cites both. A PDF without labels, or whose labels are the physical numbers, has
    none."""
    prose = "The installer asks for the keyboard layout and the network settings first."
    doc = pymupdf.open(stream=_pdf([_lines(60, 100, [prose] * 3) for _ in range(4)]))
    doc.set_page_labels(
        [
            {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
            {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1},
        ]
    )
    parsed = parse_document(doc.tobytes(), "install.pdf")
    assert parsed.page_labels == ["i", "ii", "1", "2"]
    chunks = chunk_document(parsed, lambda t: len(t.split()), ChunkingPolicy.for_window(512))
    (chunk,) = chunks
    assert chunk.structure["page_start"] == 1 and chunk.structure["page_end"] == 4
    assert (chunk.structure["page_label"], chunk.structure["page_label_end"]) == ("i", "2")
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": 1}])
    assert parse_document(doc.tobytes(), "plain.pdf").page_labels == []
    assert parse_document(_pdf([_lines(60, 100, [prose] * 9)]), "none.pdf").page_labels == []


def test_page_numbers_printed_on_the_pages_label_a_pdf_without_labels() -> None:
    """pst-eucl's Bulgarian translation has no label tree and prints "3" on its sixth page
    (a title page and contents before page 1): chunks cited page 30 where the page and the
    contents say 27. The numbers printed at the foot now label the pages; numbers that are
    the physical ones give no labels."""
    prose = "The package draws the figures of Euclidean geometry with PSTricks."

    def book(first: int) -> bytes:
        pages = [_lines(60, 100, [f"Title page {n} of the book."]) for n in range(first)]
        for n in range(1, 8):
            pages.append([*_lines(60, 100, [prose] * 3), (297, 800, str(n), "helv", 10)])
        return _pdf(pages)

    parsed = parse_document(book(2), "eucl.pdf")
    assert parsed.page_labels == ["", "", *map(str, range(1, 8))]
    assert parse_document(book(0), "plain.pdf").page_labels == []


def test_page_label_prefixes_written_as_hex_strings_are_decoded() -> None:
    """lshort-ukr gives each range of labels the prefix <FEFF> (an empty UTF-16 string, as a
    hex string), which PyMuPDF returns undecoded: "<FEFF>7" was cited as the printed page.
    Others spell the whole label so: <FEFF0031> is "1"."""
    prose = "The installer asks for the keyboard layout and the network settings first."
    doc = pymupdf.open(stream=_pdf([_lines(60, 100, [prose] * 3) for _ in range(4)]))
    labels = "<</Nums[0<</P<FEFF>/S/r>>2<</P<FEFF0041002D>/S/D>>3<</P<FEFF0031>>>]>>"
    doc.xref_set_key(doc.pdf_catalog(), "PageLabels", labels)
    assert doc[0].get_label() == "<FEFF>i"  # what PyMuPDF gives
    assert parse_document(doc.tobytes(), "ukr.pdf").page_labels == ["i", "ii", "A-1", "1"]


def test_a_table_row_whose_cells_wrap_beside_a_second_option_is_one_row() -> None:
    """eskdx's option tables: two options on two lines beside a description wrapped onto the
    second — "stitching | … On by de-" / "nostitching | fault the margin is on." — were two
    rows, the word cut between them; a short cell (a label, a path) still starts a row."""
    rows = [
        ("stitching", "Turns the margin for the binding on or off. On by de-"),
        ("nostitching", "fault the margin is there, as the standard wants."),
        ("columnviii", "Turns on or off the eighth box of the title block of a"),
        ("nocolumnviii", "(the number of sheets). By default it is shown."),
        ("simple", "Same as nocolumnsxix and nocolumnxxxi together."),
        ("unix", "latin1"),
        ("mac", "applemac"),
    ]
    runs = [(60, 60, "Options of the class", "hebo", 14)]
    runs += [(60, 90, "Before the table a paragraph of running text.", "helv", 10)]
    for n, (name, text) in enumerate(rows):
        runs += [(60, 120 + 13 * n, name, "cour", 10), (160, 120 + 13 * n, text, "helv", 10)]
    runs += [(60, 240, "After the table the text goes on as one paragraph.", "helv", 10)]
    blocks = _blocks(parse_document(_pdf([runs]), "eskdx.pdf"))
    tables = [b.text for b in blocks if b.kind == "table"]
    assert tables == [
        "stitching nostitching | Turns the margin for the binding on or off. On by default the"
        " margin is there, as the standard wants.\n"
        "columnviii nocolumnviii | Turns on or off the eighth box of the title block of a (the"
        " number of sheets). By default it is shown.\n"
        "simple | Same as nocolumnsxix and nocolumnxxxi together.\n"
        "unix | latin1\n"
        "mac | applemac"
    ]


def test_a_cell_centred_on_its_row_is_one_cell_of_that_row() -> None:
    """DocBook's tables (dblatex: the Debian Reference) centre a row's cells on its height: a
    description of two lines has one line above the row's other cells and one below (of
    three, the middle one beside them). The
    line above went on with the row before ("/dev/null | write | return nothing … return the
    NUL character (not the same as the" | "/dev/zero | read") and two such lines in a row
    ended the table. A logo set below its row's line ("\\TeX" | "TeX", the row pitch
    apart) is no centred cell."""
    rows = [
        ("/dev/null", "read", ["return end-of-file"]),
        ("/dev/null", "write", ["return nothing (a bottomless data dump pit)"]),
        ("/dev/zero", "read", ["return the NUL character (not the same as the", "number zero)"]),
        ("/dev/random", "read", ["return random characters from a true random", "generator"]),
        ("/dev/urandom", "read", ["return random characters from a", "secure", "generator"]),
        ("/dev/full", "write", ["return the disk-full error"]),
    ]
    runs: list[Run] = [(60, 90, "There are some special device files.", "helv", 10)]
    runs += [(60, 112, t, "hebo", 10) for t in ["device file"]]
    runs += [(160, 112, "action", "hebo", 10), (240, 112, "description", "hebo", 10)]
    top = 118.0  # of the next row: as tall as its tallest cell, and padding
    for name, action, text in rows:
        y = top + 12 + 6 * (len(text) - 1)  # its one-line cells' baseline: the middle
        runs += [(60, y, name, "cour", 10), (160, y, action, "helv", 10)]
        runs += [(240, top + 12 * (i + 1), line, "helv", 10) for i, line in enumerate(text)]
        top += 12 * len(text) + 6
    logos = [("\\today", "June 1, 2003"), ("\\TeX", ""), ("\\LaTeX", ""), ("\\LaTeXe", "LaTeX2e")]
    for n, (command, example) in enumerate(logos):
        row = 400 + 13.5 * n
        runs += [(60, row, command, "cour", 10), (240, row, f"The name {command[1:]}", "helv", 10)]
        if example:
            runs.append((160, row, example, "helv", 10))
    runs += [(160, 420.3, "TeX", "helv", 10), (160, 433.8, "LaTeX", "helv", 10)]
    tables = [b.text for b in _blocks(parse_document(_pdf([runs]), "ref.pdf")) if b.kind == "table"]
    assert tables[0] == (
        "device file | action | description\n"
        "/dev/null | read | return end-of-file\n"
        "/dev/null | write | return nothing (a bottomless data dump pit)\n"
        "/dev/zero | read | return the NUL character (not the same as the number zero)\n"
        "/dev/random | read | return random characters from a true random generator\n"
        # three lines, the middle one beside the row's other cells
        "/dev/urandom | read | return random characters from a secure generator\n"
        "/dev/full | write | return the disk-full error"
    )
    assert "\\TeX | TeX | The name TeX\n\\LaTeX | LaTeX | The name LaTeX" in tables[1]


def test_a_centred_header_cell_beside_a_close_column_keeps_its_row() -> None:
    """The Debian Reference's "package size" header, two lines centred on the header row, its
    next column 4.5 points off its wider line: measured by that line, the row read as one
    line of text broken into spans, and the header became a paragraph."""
    runs: list[Run] = [(60, 90, "Here are notable GUI infrastructure packages.", "helv", 10)]
    runs += [(68, 125, "package", "hebo", 10), (170, 125, "popcon", "hebo", 10)]
    runs += [(237, 119, "package", "hebo", 10), (237, 131, "size", "hebo", 10)]
    runs += [(276, 125, "description", "hebo", 10)]
    rows = [
        ("mutter", "V:3, I:99", "199", "GNOME's mutter window manager"),
        ("xwayland", "V:176, I:240", "2336", "An X server running on top of wayland"),
        ("gdm3", "V:300, I:400", "4000", "GNOME display manager"),
    ]
    for i, cells in enumerate(rows):
        runs += [
            (x, 143 + 12 * i, c, "helv", 10)
            for x, c in zip((68, 170, 237, 276), cells, strict=True)
        ]
    blocks = _blocks(parse_document(_pdf([runs]), "reference.pdf"))
    (table,) = [b.text for b in blocks if b.kind == "table"]
    assert table.startswith("package | popcon | package size | description\nmutter | ")


def test_a_numbered_code_listing_is_code_not_a_table() -> None:
    """A documented LaTeX source (eskd's, fancyhdr's, babel's) numbers its code lines apart
    from them and indents with the code: read as a table's columns, it was indexed as
    "27 | \\eskd@twosidetrue" rows. Its lines come out as code, indented as printed; a table
    whose rows are numbered but hold cells (TeX's category codes) stays a table, and numbered
    steps of prose in the text's font are no code."""
    code = [
        (27, 0, "\\DeclareOption{twoside}{%"),
        (28, 2, "\\eskd@twosidetrue"),
        (29, 2, "\\PassOptionsToClass{\\CurrentOption}{article}"),
        (30, 0, "}"),
        (31, 0, "\\ProcessOptions"),
    ]
    runs = [(60, 60, "Class options", "hebo", 14)]
    runs += [(60, 90, "The class takes the twoside option as follows.", "helv", 10)]
    for n, (number, indent, text) in enumerate(code):
        runs += [(60, 120 + 12 * n, str(number), "helv", 7)]
        runs += [(80 + 6 * indent, 120 + 12 * n, text, "cour", 10)]
    catcodes = [("0", "Escape character", "\\"), ("1", "Beginning of group", "{")]
    catcodes += [("2", "End of group", "}"), ("3", "Math shift", "$")]
    for n, (number, meaning, sign) in enumerate(catcodes):
        y = 220 + 13 * n
        runs += [(60, y, number, "helv", 10), (90, y, meaning, "helv", 10)]
        runs += [(250, y, sign, "cour", 10)]
    steps = ["Open the file (File menu).", "Choose Save as (Ctrl+S).", "Name it; press Enter."]
    for n, step in enumerate(steps):  # numbered steps of prose: not code
        runs += [(60, 300 + 13 * n, str(n + 1), "helv", 10), (80, 300 + 13 * n, step, "helv", 10)]
    blocks = _blocks(parse_document(_pdf([runs]), "eskd.pdf"))
    assert [b.text for b in blocks if b.kind == "code"] == [
        "\\DeclareOption{twoside}{%\n"
        "  \\eskd@twosidetrue\n"
        "  \\PassOptionsToClass{\\CurrentOption}{article}\n"
        "}\n"
        "\\ProcessOptions"
    ]
    assert [b.text for b in blocks if b.kind == "table"] == [
        "0 | Escape character | \\\n1 | Beginning of group | {\n2 | End of group | }\n"
        "3 | Math shift | $",
        "1 | Open the file (File menu).\n2 | Choose Save as (Ctrl+S).\n3 | Name it; press Enter.",
    ]


def test_a_listing_whose_output_stands_in_columns_is_code_not_a_table() -> None:
    """R's manual prints a matrix under the command that made it, gri's listings set their
    comments in a column: rows of monospaced cells read as a table's ("[3,] | 0 | 7 | 11",
    "read columns x y | # Read (x,y) columns"). They are one code block, spaced as printed."""
    listing = [
        "> x <- array(1:12, dim=c(3,4))",
        "> x",
        "     [,1] [,2] [,3] [,4]",
        "[1,]    1    4    7   10",
        "[2,]    2    5    8   11",
        "[3,]    3    6    9   12",
        "read columns x y     # Read (x,y) columns",
        "draw curve           # Draw data curve",
    ]
    runs = [(60, 80, "Arrays are made with array(), and printed row by row.", "helv", 10)]
    for n, line in enumerate(listing):  # each run of words a cell of its own, as MuPDF has it
        x = 60.0
        for cell in line.split("  "):
            if cell.strip():
                runs.append((x, 110 + 12 * n, cell.strip(), "cour", 10))
            x += pymupdf.get_text_length(cell + "  ", fontname="cour", fontsize=10)
    blocks = _blocks(parse_document(_pdf([runs]), "R-intro.pdf"))
    assert not [b for b in blocks if b.kind == "table"]
    (code,) = [b.text for b in blocks if b.kind == "code"]
    assert [" ".join(row.split()) for row in code.split("\n")] == [
        " ".join(row.split()) for row in listing
    ]


def test_printed_contents_with_leaders_of_dots_set_apart_are_dropped() -> None:
    """ReportLab sets its leaders' dots two spaces apart (".  .  .  .  6"): its user guide's
    four pages of contents were indexed."""
    runs = [(60, 60, "Table of contents", "helv", 14)]
    entries = [("1 Introduction", 6), ("1.1 About this document", 6), ("1.2 What is it", 7)]
    entries += [("2 Graphics and Text", 11), ("2.1 Basic Concepts", 11)]
    for n, (title, page) in enumerate(entries):
        y = 90 + 14 * n
        runs.append((60, y, title, "helv", 10))
        runs.append((220, y, " ." * 2 + "  ." * 24 + f" {page}", "helv", 10))
    body = _lines(60, 200, ["This document is an introduction to the library and its uses."])
    doc = parse_document(_pdf([runs, body]), "userguide.pdf")
    assert doc.metadata["printed_contents_pages"] == [1]
    assert _text(doc) == "This document is an introduction to the library and its uses."


@pytest.mark.parametrize("rotate", [90, 270])
def test_a_turned_page_reads_as_the_same_page_upright(rotate: int) -> None:
    """scheherazade-features (landscape, /Rotate 90): MuPDF gives the lines in the unturned
    page's space, where each stands upright beside the next. Every line was a paragraph of
    its own, and lines were dropped as running heads. Read turned, the page reads as it would
    set upright; the portrait page's number at its foot goes."""
    lines = [
        "The font includes a number of optional features that provide an",
        "alternative rendering that might be preferable for use in some of",
        "the contexts. The chart below enumerates all of the features and",
        "their details. Whether these features are available to the users",
        "depends on both the application and the rendering technology.",
    ]
    upright = pymupdf.open()
    page = upright.new_page(width=842, height=595)
    for i, text in enumerate(lines):
        page.insert_text((60, 80 + 14 * i), text, fontsize=11)
    turned = pymupdf.open()
    page = turned.new_page(width=595, height=842)
    for i, text in enumerate(lines):
        if rotate == 90:  # text running up the portrait page, lines stacked left to right
            page.insert_text((80 + 14 * i, 782), text, fontsize=11, rotate=90)
        else:  # running down, lines stacked right to left
            page.insert_text((515 - 14 * i, 60), text, fontsize=11, rotate=270)
    page.insert_text((290, 820), "7", fontsize=9)
    page.set_rotation(rotate)
    expected = _blocks(parse_document(upright.tobytes(), "upright.pdf"))
    found = _blocks(parse_document(turned.tobytes(), "turned.pdf"))
    assert [b.text for b in found] == [b.text for b in expected]
    assert len(expected) == 1


def test_a_pdf_without_any_heading_is_not_one_front_matter_section() -> None:
    """ukrhyph's two pages have no heading the parser can tell: every chunk was cited under
    "Front matter" (an English label at the head of Ukrainian text) — the text now stands
    under the document itself, as a Markdown file without headings does."""
    text = [
        _lines(60, 80 + 200 * k, [f"Paragraph {k} of a text with no headings at all."])
        for k in (0, 1)
    ]
    doc = parse_document(_pdf([text[0] + text[1]]), "rules.pdf")
    assert doc.toc() == []
    assert [b.text for b in doc.root.blocks] == [
        "Paragraph 0 of a text with no headings at all.",
        "Paragraph 1 of a text with no headings at all.",
    ]


def test_footnote_marks_leave_titles_but_powers_stay() -> None:
    """pst-eucl-bg's title page: "Пакет pst-eucl¹ Евклидова геометрия с PSTricks²" was the
    book's title in every citation; a unit's power is no footnote."""
    from mirage_pipeline.parsing.pdf_tree import NOTE_MARKS

    assert NOTE_MARKS.sub("", "Пакет pst-eucl¹ Евклидова геометрия с PSTricks²") == (
        "Пакет pst-eucl Евклидова геометрия с PSTricks"
    )
    assert (
        NOTE_MARKS.sub("", "Площадь 10 м², объём x³ (Notes¹²)") == "Площадь 10 м², объём x³ (Notes)"
    )


def test_code_lines_broken_with_a_continuation_mark_are_joined() -> None:
    """dblatex breaks a long command with "←" and a hooked arrow its font does not map (U+FFFD),
    the rest indented on the next line — a block of its own: "… sources.list.d/ ←�" and
    "    bookworm-backports.sources.list". Seven commands of the Debian Edu manual; a break at a
    space keeps one ("non-free-firmware" / "contrib")."""
    from mirage_pipeline.parsing.pdf_tree import _continued_code

    blocks = [
        Block("paragraph", "Using backports is simple:", page=79),
        Block(
            "code",
            'echo "deb http://deb.debian.org/debian/" > /etc/apt/sources.list.d/ ←\ufffd',
            page=79,
        ),
        Block("code", "    bookworm-backports.sources.list\napt update", page=80),
        Block("code", "id ether 22:11:33:44:55: ←\ufffd\n    ff.\nA ←\nB", page=80),
        Block(
            "code", "deb http://deb.debian.org/debian/ sid main non-free-firmware ←\ufffd", page=80
        ),
        Block("code", "    contrib non-free", page=80),
        Block("paragraph", "After which one can install backported packages.", page=80),
        Block("code", "# b’’нb’’b’’аb’’ ←\ufffd\n    b’’сb’’b’’тb’’", page=81),
    ]
    assert [(b.kind, b.text, b.page, b.page_end) for b in _continued_code(blocks)] == [
        ("paragraph", "Using backports is simple:", 79, None),
        (
            "code",
            'echo "deb http://deb.debian.org/debian/" > /etc/apt/sources.list.d/'
            "bookworm-backports.sources.list\napt update",
            79,
            80,
        ),
        ("code", "id ether 22:11:33:44:55:ff.\nA ←\nB", 80, None),
        (
            "code",
            "deb http://deb.debian.org/debian/ sid main non-free-firmware contrib non-free",
            80,
            None,
        ),
        ("paragraph", "After which one can install backported packages.", 80, None),
        ("code", "# b’’нb’’b’’аb’’b’’сb’’b’’тb’’", 81, None),  # a bytes literal: text_repair.py
    ]


def _literals(text: str) -> str:
    """Text as the installation guide's PDFs set its example files' comments: each Cyrillic
    letter a Python bytes literal ("b’’нb’’")."""
    return "".join(f"b’’{c}b’’" if "а" <= c.lower() <= "я" else c for c in text)


def test_a_listing_read_as_prose_loses_its_continuation_marks_too() -> None:
    """The installation guide's example preseed file: a comment broken inside a bytes literal
    ends a code block ("намереваете" + "b’ ←�") and goes on in a paragraph, where the mark
    also sits between words ("выполнять ←� оставшуюся"): 33 fragments of 15 blocks stayed
    garbled. A break between two literals is a space where the dictionary knows both halves
    and not the joined word ("выполнять оставшуюся", "на" + "стройки" is "настройки").
    A table of arrows, and "↩" ending prose (the Return key), are left alone."""
    from mirage_pipeline.parsing.pdf_tree import _continued_code
    from mirage_pipeline.parsing.text_repair import literal_break

    assert literal_break(_literals("# выполнять"), _literals("оставшуюся часть")) == " "
    assert literal_break(_literals("# на"), _literals("стройки сети")) == ""
    assert literal_break(_literals("# испо"), _literals("льзовать")) == ""
    assert literal_break("a b’’", "b’’ c") == ""  # no letters either side: as before

    head = _literals("# Если вы намереваете") + "b’ ←\ufffd"
    rest = (
        "’сb’’"
        + _literals("ь выполнять")
        + " ←\ufffd "
        + _literals("оставшуюся часть")
        + " ←\ufffd\n"
        + _literals("установки")
        + "\n#d-i anna/choose_modules string network-console"
    )
    blocks = [
        Block("code", head, page=92),
        Block("paragraph", rest, page=92),
        Block("table", "← | \\gets ↩\n→ | \\to", page=92),
        Block("paragraph", "Then press Enter ↩", page=93),
        Block("paragraph", "The installer starts.", page=93),
    ]
    out = _continued_code(blocks)
    assert [(b.kind, b.page) for b in out] == [
        ("code", 92),
        ("table", 92),
        ("paragraph", 93),
        ("paragraph", 93),
    ]
    assert "←" not in out[0].text
    assert _block_texts_repaired(out[0].text) == (
        "# Если вы намереваетесь выполнять оставшуюся часть установки\n"
        "#d-i anna/choose_modules string network-console"
    )
    assert out[1].text == "← | \\gets ↩\n→ | \\to"
    assert out[2].text == "Then press Enter ↩"


def _block_texts_repaired(text: str) -> str:
    from mirage_pipeline.parsing.text_repair import _repaired

    return _repaired(text)[0]


def test_sphinx_labels_of_a_listing_broken_across_pages_are_left_out() -> None:
    """The Ubuntu packaging guide (Sphinx, English and Russian): "(continues on next page)"
    under the first part of a listing and "(continued from previous page)" — or
    "(продолжение с предыдущей страницы)" — over the rest were indexed as paragraphs, and the
    listing was two."""
    code = [f"$ apt-cache show package-{i}" for i in range(8)]
    first = [
        *_lines(72, 100, ["A package's record tells where it comes from and what it needs."]),
        *[(72, 130 + 12 * i, text, "cour", 9) for i, text in enumerate(code[:4])],
        (440, 790, "(continues on next page)", "helv", 8),
    ]
    second = [
        (400, 80, "(продолжение с предыдущей страницы)", "F0", 8),
        *[(72, 100 + 12 * i, text, "cour", 9) for i, text in enumerate(code[4:])],
        *_lines(72, 200, ["The record's fields are the package's control file's."]),
    ]
    blocks = _blocks(parse_document(_pdf([first, second], cyrillic="F0"), "guide.pdf"))
    text = "\n".join(b.text for b in blocks)
    assert "continue" not in text and "продолжение" not in text
    # and the listing is one block again, from its page to the next
    listing = [b for b in blocks if b.kind == "code"]
    assert [(b.text, b.page, b.page_end) for b in listing] == [("\n".join(code), 1, 2)]


def test_a_listing_filling_its_page_goes_on_overleaf() -> None:
    """TeX and the browsers break a listing at a page's foot without a mark: the two halves
    were two code blocks (stead3's Lua, the installation guide's preseed file, 363 such pairs
    in 206 documents). A listing reaching the foot of a full page goes on with the listing
    opening the next one, at the head of its text; one ending higher up the page does not,
    nor does one under a figure overleaf."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    prose = [
        f"Running text {a} and {b} fills the page above the listing." for a in words for b in words
    ]
    code = [f"obj {{ nam = 'item{i}'; dsc = 'An item on the table.' }};" for i in range(8)]

    def page(listing: list[str], top: float) -> list[Run]:
        runs = _lines(72, 100, prose[: int((top - 120) // 12)])  # a blank line above it
        return runs + [(72, top + 12 * i, text, "cour", 9) for i, text in enumerate(listing)]

    full = page(code[:4], 724)  # its last line at the foot of the page (760)
    short = page(code[:4], 500)
    rest = [*[(72, 100 + 12 * i, t, "cour", 9) for i, t in enumerate(code[4:])]]
    rest += _lines(72, 160, prose[13:64])  # a full page: its text ends at 760 too
    # a listing under a figure at the head of the next page is a listing of its own (mpman)
    figure = [(72, 400 + 12 * i, t, "cour", 9) for i, t in enumerate(code[4:])]
    figure += _lines(72, 460, prose[13:38])
    for first, second, halves in ((full, rest, 1), (short, rest, 2), (full, figure, 2)):
        blocks = _blocks(parse_document(_pdf([first, second, page([], 772)]), "stead.pdf"))
        listings = [b for b in blocks if b.kind == "code"]
        assert len(listings) == halves
        assert "\n".join(b.text for b in listings) == "\n".join(code)


def test_a_paragraph_goes_on_under_a_float_at_the_head_of_the_next_page() -> None:
    """TeX sets a table at the head of the page a paragraph runs on to, and goes on with the
    paragraph under it: MetaPost's manual "… Вследствие того, что" | Таблица 2 | "квадратные
    скобки приведены …" was two paragraphs. Past a table or a caption at the page's head the
    paragraph goes on; past the page's own text, or from a caption, it does not."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    prose = [
        f"The text about {a} and {b} runs down the page to its foot" for a in words for b in words
    ]
    first = _lines(72, 100, [*prose[:55], "and the last line of the page ends with no full stop"])
    table = [(72, 100, "Table 2: Character classes", "helv", 10)]
    for i, (a, b) in enumerate([("letters", "A-Z a-z"), ("digits", "0-9"), ("signs", "+ - * /")]):
        table += [(72, 124 + 12 * i, a, "helv", 10), (200, 124 + 12 * i, b, "helv", 10)]
    after = [f"Then {a} and {b} go on under the table to the foot" for a in words for b in words]
    rest = _lines(
        72, 190, ["so the brackets stand on lines of their own in the table.", *after[:40]]
    )
    texts = [b.text for b in _blocks(parse_document(_pdf([first, table + rest]), "mpman.pdf"))]
    assert any("no full stop so the brackets stand on lines of their own" in t for t in texts)
    assert any(t.startswith("Table 2") for t in texts)
    own = _lines(72, 60, ["A paragraph of this page's own opens it."])
    texts = [b.text for b in _blocks(parse_document(_pdf([first, own + table + rest]), "m.pdf"))]
    assert not any("no full stop so the brackets" in t for t in texts)


def test_a_plots_data_points_set_as_glyphs_are_left_out() -> None:
    """miniplot.pdf's figures draw each data point as a "." glyph, 35 000 of them a page: they
    came out as 97 473 one-character blocks (and 21.8 s of parsing for 31 pages). A table of
    symbols (150 one-sign lines, all different, in the densest real one) stays."""
    # scattered: each point on a baseline of its own, as a plot's are
    points = [(60 + (i * 37) % 460, 300 + i * 0.45, ".", "helv", 6) for i in range(600)]
    symbols = [
        (60 + (i % 20) * 24, 620 + (i // 20) * 14, s, "symb", 9)
        for i, s in enumerate("+-*/<>=|~^" * 4)
    ]
    page = [*_lines(60, 100, ["The figure below plots the measured values over a year."]), *points]
    blocks = _blocks(
        parse_document(_pdf([page, [*symbols, *_lines(60, 100, ["Signs."])]]), "p.pdf")
    )
    texts = [b.text for b in blocks]
    assert sum(t.count(".") + t.count("…") for t in texts) == 2  # the two sentences' ends
    assert "The figure below plots the measured values over a year." in " ".join(texts)
    assert sum(t.count("+") for t in texts) == 4  # the table's signs: fewer than a plot's


def test_a_groff_pdfs_minus_signs_before_letters_are_hyphens() -> None:
    """groff sets an option's or a name's hyphen as a minus ("find [−H] −−version"): a command
    copied from the citation failed in a shell. Only in a PDF groff made: elsewhere a minus
    before a letter is arithmetic ("(1−x)")."""
    minus = "\u2212"
    lines = [f"find [{minus}H] [{minus}L] {minus * 2}version, or active{minus}region, (1{minus}x)."]

    def pdf(creator: str) -> bytes:
        doc = pymupdf.open()
        page = doc.new_page(width=595, height=842)
        page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("tiro").buffer)
        for i, text in enumerate(lines):
            page.insert_text((72, 100 + 14 * i), text, fontsize=10, fontname="F0")
        doc.set_metadata({"creator": creator})
        return doc.tobytes()

    assert _text_of(pdf("groff version 1.22.4")) == [
        "find [-H] [-L] --version, or active-region, (1-x)."
    ]
    assert _text_of(pdf("LaTeX with hyperref")) == lines


def _text_of(pdf: bytes) -> list[str]:
    return [b.text for b in _blocks(parse_document(pdf, "find.pdf"))]


def test_an_html_pages_navigation_bar_goes_wherever_it_stands() -> None:
    """xfig's manual (htmldoc): "[ Contents | Introduction | Credits ]" wherever an HTML page
    began, on 25 of 176 pages; a bar once, or a pipeline in code on every page, stays."""
    bar = "[ Contents | Introduction | Credits ]"
    prose = "The canvas shows the figure being drawn; its rulers show the units chosen."
    pages = []
    for n in range(8):
        runs = _lines(60, 120 + 40 * n, [prose, bar, prose])
        runs.append((60, 500 + 30 * n, "grep canvas | sort", "cour", 10))
        pages.append(runs)
    pages[0].append((60, 700, "Option | Default", "helv", 10))
    text = _text(parse_document(_pdf(pages), "xfig.pdf"))
    assert bar not in text and text.count(prose) == 16
    assert text.count("grep canvas | sort") == 8 and "Option | Default" in text


def test_an_api_references_bold_monospaced_titles_are_headings() -> None:
    """A browser's print of an API reference sets each function's title in a bold
    monospaced font a little larger than its listings ("fs.chmod(path, mode, callback)" at
    9.6 pt over 9 pt code and 10 pt prose): all 61 of Node's fs titles were code blocks and the
    text under them cited "File system". A bold line of a listing, in its size, stays code."""
    prose = "Changes the permissions of the file named by its path, as the system call does."
    runs: list[Run] = [(60, 60, "File system", "hebo", 16)]
    y = 100.0
    for name in ("fs.chmod(path, mode, callback)", "fs.chown(path, uid, gid, callback)"):
        runs.append((60, y, name, "cobo", 9.6))
        runs += _lines(60, y + 24, [prose, prose])
        runs += [(60, y + 60, "$ node chmod.js", "cobo", 9), (60, y + 71, "done", "cour", 9)]
        runs += [(60, y + 82, "const fs = require('node:fs');", "cour", 9)]
        y += 130
    doc = parse_document(_pdf([runs]), "fs.pdf")
    titles = [s.title for _, s in doc.root.walk()]
    assert "fs.chmod(path, mode, callback)" in titles
    assert "fs.chown(path, uid, gid, callback)" in titles
    assert "$ node chmod.js" not in titles
    section = next(s for _, s in doc.root.walk() if s.title.startswith("fs.chown"))
    assert [b.kind for b in section.blocks] == ["paragraph", "code"]


def test_an_office_footnote_whose_number_stands_apart_lets_the_paragraph_go_on() -> None:
    """LibreOffice and Word set a footnote's number apart, in the note's size, its text
    hanging to the right ("4" | "In July …"): it was read as a paragraph, and the paragraph
    broken by the page stayed two ("…каталоги назна-" / "чения»)."). A page number or an
    index's column of numbers is no note."""
    body = [
        "Once the build has run, the files it made are installed into the directories",
        "named for them, each kind in its own place, as the policy says for all of the",
    ]
    pdf = _pdf(
        [
            [
                *_lines(60, 600, body),
                (60, 760, "4", "helv", 8),
                (72, 760, "In July the council did the same thing again.", "helv", 8),
                (290, 800, "17", "helv", 9),
            ],
            _lines(60, 100, ["packages of the archive, and the rules file says where they go."]),
        ]
    )
    texts = [b.text for b in _blocks(parse_document(pdf, "guide.pdf"))]
    assert texts == [
        " ".join(body) + " packages of the archive, and the rules file says where they go.",
        "4 In July the council did the same thing again.",
    ]


def test_a_sentence_going_on_with_a_name_in_a_monospaced_font_is_one_paragraph() -> None:
    """A line of prose opening with a file name set in a monospaced font ("*.html. Вы
    должны…", "\\outer (p. 232).") started a paragraph of its own."""
    first = "The documentation is usually in files such as README, INSTALL or"
    then = " files; they tell how to build the program and where to install it."
    runs: list[Run] = [
        *_lines(75, 100, [first]),
        (60, 116, "*.html", "cour", 10),
        (_after(60, "*.html", "cour", 10), 116, then, "helv", 10),
    ]
    texts = [b.text for b in _blocks(parse_document(_pdf([runs]), "maint.pdf"))]
    assert texts == [f"{first} *.html{then}"]
