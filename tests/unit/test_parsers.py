"""Every parser on fixtures built in code: structure, metadata, cleaning and named failures."""

from __future__ import annotations

import io

import pymupdf
import pytest

from mirage_pipeline.parsing import ParseError, parse_document
from mirage_pipeline.parsing.model import ParsedDocument
from mirage_pipeline.parsing.policy import MarkdownPolicy, policy_from_mapping

LOREM = (
    "Retrieval needs coherent passages. Every chunk holds one piece of one section, and a "
    "citation says where it came from. "
)


def _pdf(pages: list[list[tuple[str, float]]], toc: list[list] | None = None) -> bytes:
    """Pages of (text, font size) lines, with a running header and a page number on each."""
    doc = pymupdf.open()
    for number, lines in enumerate(pages, start=1):
        page = doc.new_page(width=420, height=600)
        page.insert_text((40, 30), "The Handbook of Testing — running header", fontsize=8)
        y = 70.0
        for text, size in lines:
            for chunk in _wrap(text, 60 if size <= 11 else 40):
                page.insert_text((40, y), chunk, fontsize=size)
                y += size * 1.5
            y += size * 0.8
        page.insert_text((200, 580), str(number), fontsize=8)
    if toc:
        doc.set_toc(toc)
    data = doc.tobytes()
    doc.close()
    return data


def _block_texts(doc: ParsedDocument) -> list[str]:
    return [b.text for _, s in doc.root.walk() for b in s.blocks]


def _wrap(text: str, width: int) -> list[str]:
    if "\n" in text:
        return [line for part in text.split("\n") for line in _wrap(part, width)]
    lines, current = [], ""
    for word in text.split(" "):
        if current and len(current) + len(word) + 1 > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return [*lines, current]


def _book_pages() -> list[list[tuple[str, float]]]:
    body = LOREM * 3
    return [
        [("Chapter 1. Beginnings", 18), (body, 10), ("1.1 First steps", 14), (body, 10)],
        [
            (body, 10),
            ("1.2 Second steps", 14),
            ("The exam-\nple of a hyphen joins; a non-\nprivileged user keeps it.", 10),
        ],
        [("Chapter 2. Endings", 18), (body, 10), (body, 10)],
        [(body, 10), ("2.1 Last words", 14), (body, 10)],
    ]


def test_pdf_outline_places_text_under_mid_page_headings() -> None:
    toc = [
        [1, "Chapter 1. Beginnings", 1],
        [2, "1.1 First steps", 1],
        [2, "1.2 Second steps", 2],
        [1, "Chapter 2. Endings", 3],
        [2, "2.1 Last words", 4],
    ]
    doc = parse_document(_pdf(_book_pages(), toc), "book.pdf")
    assert doc.pages == 4
    assert [(t["level"], t["title"], t["page"]) for t in doc.toc()] == [
        (1, "Chapter 1. Beginnings", 1),
        (2, "1.1 First steps", 1),
        (2, "1.2 Second steps", 2),
        (1, "Chapter 2. Endings", 3),
        (2, "2.1 Last words", 4),
    ]
    sections = {s.title: s for _, s in doc.root.walk()}
    # "1.1 First steps" starts mid-page 1: the paragraph above it belongs to the chapter.
    assert sections["Chapter 1. Beginnings"].blocks[0].page == 1
    assert sections["1.1 First steps"].blocks[0].page == 1
    second = " ".join(b.text for b in sections["1.2 Second steps"].blocks)
    assert "example of a hyphen" in second and "a non-privileged user" in second
    everything = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "running header" not in everything
    assert "First steps" not in everything  # headings are structure, not body text


def test_pdf_without_outline_detects_headings_from_font_sizes() -> None:
    doc = parse_document(_pdf(_book_pages()), "book.pdf")
    assert doc.metadata["structure_source"] == "font sizes"
    titles = [(t["level"], t["title"]) for t in doc.toc()]
    assert (1, "Chapter 1. Beginnings") in titles
    assert (2, "1.1 First steps") in titles
    assert (1, "Chapter 2. Endings") in titles
    assert (2, "2.1 Last words") in titles


def _labelled_chapters() -> list[list[tuple[str, float]]]:
    """A LaTeX book's chapter pages: "Chapter 1" (stead3-ru: "Глава 1") above the chapter's
    title, or Sphinx's "CHAPTER" / "TWO", large."""
    body = LOREM * 3
    return [
        [("Chapter 1", 16), ("Foundations", 20), (body, 10), (body, 10)],
        [("CHAPTER", 16), ("TWO", 16), ("Scenery", 20), (body, 10)],
    ]


def test_pdf_chapter_label_above_an_outline_title_is_part_of_the_heading() -> None:
    """stead3-ru, Sphinx: the label was left as the last words of the chapter before ("… a
    citation says where it came from. CHAPTER TWO")."""
    toc = [[1, "Foundations", 1], [1, "Scenery", 2]]
    doc = parse_document(_pdf(_labelled_chapters(), toc), "book.pdf")
    sections = {s.title: s for _, s in doc.root.walk()}
    first = " ".join(b.text for b in sections["Foundations"].blocks)
    assert "Retrieval needs" in first and "CHAPTER" not in first and "TWO" not in first
    everything = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "Chapter" not in everything and "CHAPTER" not in everything and "TWO" not in everything
    assert "Retrieval needs" in everything


def test_pdf_chapter_label_and_title_detected_from_fonts_are_one_heading() -> None:
    doc = parse_document(_pdf(_labelled_chapters()), "book.pdf")
    titles = [t["title"] for t in doc.toc()]
    assert titles[-2:] == ["Chapter 1 Foundations", "CHAPTER TWO Scenery"]
    assert not {"Chapter 1", "CHAPTER", "TWO", "CHAPTER TWO"} & set(titles)


def test_pdf_a_figure_caption_set_large_is_not_a_heading() -> None:
    """eskd.pdf: "Рис. 1: Поля документа" under a drawing, set like a heading, made a section
    of its own that took the text after it."""
    pages = _book_pages()
    pages[1].insert(1, ("Figure 1: Page margins", 14))
    titles = [t["title"] for t in parse_document(_pdf(pages), "book.pdf").toc()]
    assert "1.2 Second steps" in titles and not any("Figure" in t for t in titles)


def test_pdf_printed_contents_are_dropped_and_the_body_after_them_kept() -> None:
    contents = [
        ("Contents", 14),
        ("1 Beginnings . . . . . . . . . . . . . . . . . . . . . 2", 10),
        ("1.1 First steps . . . . . . . . . . . . . . . . . . . . 2", 10),
        ("1.2 Second steps . . . . . . . . . . . . . . . . . . . 3", 10),
        ("2 Endings . . . . . . . . . . . . . . . . . . . . . . . 4", 10),
        ("2.1 Last words . . . . . . . . . . . . . . . . . . . . 5", 10),
        ("Preface", 14),
        ("A preface after the contents, on the same page. A form with dots: name ..........", 10),
    ]
    toc = [
        [1, "Preface", 1],
        [1, "Chapter 1. Beginnings", 2],
        [2, "1.1 First steps", 2],
        [2, "1.2 Second steps", 3],
        [1, "Chapter 2. Endings", 4],
        [2, "2.1 Last words", 5],
    ]
    doc = parse_document(_pdf([contents, *_book_pages()], toc), "book.pdf")
    assert doc.metadata["printed_contents_pages"] == [1]
    everything = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "Contents" not in everything and ". . ." not in everything
    preface = {s.title: s for _, s in doc.root.walk()}["Preface"]
    # the page's body stays; a dot leader left in running text is shortened to an ellipsis
    assert preface.blocks[0].text.startswith("A preface after the contents")
    assert preface.blocks[0].text.endswith("name …")


def test_pdf_tables_become_rows_of_cells_and_two_columns_of_prose_do_not() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 60), "Where things live", fontsize=16)
    page.insert_text((60, 100), LOREM.strip(), fontsize=10)
    rows = [
        ("", "shareable", "unshareable"),
        ("static", "/usr", "/etc"),
        ("", "/opt", "/boot"),  # the cells above, wrapped onto a second line
        ("variable", "/var/mail", "/var/run"),
    ]
    for n, cells in enumerate(rows):
        for x, cell in zip((80, 220, 360), cells, strict=True):
            if cell:
                page.insert_text((x, 150 + 16 * n), cell, fontsize=10)
    page.insert_text((60, 240), "After the table the text goes on as one paragraph.", fontsize=10)
    prose = doc.new_page(width=595, height=842)  # two columns of running text
    for n in range(20):
        prose.insert_text((50, 80 + 14 * n), "Left column text runs on and on here,", fontsize=10)
        prose.insert_text((310, 80 + 14 * n), "right column text runs on as well, too", fontsize=10)
    parsed = parse_document(doc.tobytes(), "tables.pdf")
    blocks = [b for _, s in parsed.root.walk() for b in s.blocks]
    tables = [b for b in blocks if b.kind == "table"]
    assert [t.text.split("\n") for t in tables] == [
        [
            " | shareable | unshareable",
            "static | /usr /opt | /etc /boot",
            "variable | /var/mail | /var/run",
        ]
    ]
    assert tables[0].page == 1 and parsed.metadata["tables"] == 1
    assert "shareable" not in [t["title"] for t in parsed.toc()]
    others = " ".join(b.text for b in blocks if b.kind != "table")
    assert "After the table the text goes on" in others and "/usr" not in others
    assert "Left column text runs on" in others  # the prose page stays prose


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty file"),
        (b"just some text, not a PDF at all", "not a PDF"),
        (b"%PDF-1.4\n1 0 obj <<>> endobj\n" + b"\x00garbage" * 20, "corrupt PDF"),
    ],
)
def test_pdf_failures_are_named(data: bytes, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse_document(data, "bad.pdf")


def test_pdf_encrypted_and_scanned() -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((50, 50), LOREM * 3)
    locked = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    with pytest.raises(ParseError, match="encrypted PDF"):
        parse_document(locked, "locked.pdf")
    blank = pymupdf.open()
    for _ in range(3):
        blank.new_page().draw_rect(pymupdf.Rect(50, 50, 200, 200))  # no text anywhere
    with pytest.raises(ParseError, match="PDF without body text: 0 characters of text on 3"):
        parse_document(blank.tobytes(), "blank.pdf")
    picture = pymupdf.open()
    picture.new_page().insert_text((50, 50), LOREM * 3)
    png = picture[0].get_pixmap(dpi=30).tobytes("png")
    scan = pymupdf.open()
    for _ in range(3):  # pages that are pictures of text
        scan.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), stream=png)
    with pytest.raises(ParseError, match="scanned PDF without a text layer; OCR is not supported"):
        parse_document(scan.tobytes(), "scan.pdf")


def _epub(chapters: list[tuple[str, str]], *, language: str = "en") -> bytes:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("id-1")
    book.set_title("A Test Book")
    book.set_language(language)
    book.add_author("Ada Writer")
    items = []
    for n, (title, body) in enumerate(chapters, start=1):
        item = epub.EpubHtml(title=title, file_name=f"ch{n}.xhtml", lang=language)
        item.content = (
            f"<html><head><style>p {{color: red}}</style><script>var x = 1;</script></head>"
            f"<body><h1>{title}</h1>{body}</body></html>"
        )
        book.add_item(item)
        items.append(item)
    book.toc = [
        epub.Link(i.file_name, t, f"c{n}")
        for n, (t, _), i in zip(range(9), chapters, items, strict=False)
    ]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


def test_epub_toc_tree_metadata_and_inner_headings() -> None:
    data = _epub(
        [
            ("Down the Hole", f"<p>{LOREM}</p><h2>A Small Door</h2><p>Drink me.</p>"),
            ("The Pool", f"<p>{LOREM}</p><p>Swim <a href='#n1' epub:type='noteref'>1</a></p>"),
        ]
    )
    doc = parse_document(data, "book.epub")
    assert doc.title == "A Test Book"
    assert doc.metadata["authors"] == ["Ada Writer"]
    assert doc.metadata["language"] == "en"
    titles = [(t["level"], t["title"]) for t in doc.toc()]
    assert (1, "Down the Hole") in titles and (1, "The Pool") in titles
    assert (2, "A Small Door") in titles
    text = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "Drink me." in text
    assert "color: red" not in text and "var x" not in text


def test_epub_not_a_zip_is_named() -> None:
    with pytest.raises(ParseError, match="corrupt EPUB"):
        parse_document(b"PK? not really", "broken.epub")


@pytest.mark.parametrize(
    ("package", "reason"),
    [
        (None, "package document named in container.xml is missing"),
        (b"", "package document is not XML"),
        (b"\x00\x01 binary", "package document is not XML"),
    ],
)
def test_epub_whose_package_cannot_be_read_is_named(package: bytes | None, reason: str) -> None:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr(
            "META-INF/container.xml",
            '<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles>'
            "</container>",
        )
        if package is not None:
            archive.writestr("OEBPS/content.opf", package)
    with pytest.raises(ParseError, match=reason):
        parse_document(out.getvalue(), "broken.epub")


def _fb2(encoding: str = "windows-1251") -> bytes:
    xml = f"""<?xml version="1.0" encoding="{encoding}"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"
             xmlns:l="http://www.w3.org/1999/xlink">
 <description><title-info>
  <genre>prose</genre>
  <author><first-name>Антон</first-name><last-name>Чехов</last-name></author>
  <book-title>Рассказы</book-title><lang>ru</lang>
 </title-info></description>
 <body>
  <title><p>Антон Чехов</p><p>Рассказы</p></title>
  <epigraph><p>Краткость — сестра таланта.</p></epigraph>
  <section><title><p>Толстый и тонкий</p></title>
   <p>На вокзале Николаевской железной дороги встретились два приятеля.</p>
   <subtitle>II</subtitle>
   <p>Тонкий вдруг побледнел, окаменел.</p>
  </section>
  <section><title><p>Хамелеон</p></title><p>Через базарную площадь идёт полицейский.</p>
   <image l:href="#pic"/></section>
 </body>
 <body name="notes"><section id="n1"><title><p>1</p></title><p>Примечание.</p></section></body>
 <binary id="pic" content-type="image/jpeg">/9j/4AAQSkZJRgABAQ==</binary>
</FictionBook>"""
    return xml.encode(encoding)


def test_fb2_honours_declared_encoding_and_builds_the_tree() -> None:
    doc = parse_document(_fb2("windows-1251"), "book.fb2")
    assert doc.title == "Рассказы"
    assert doc.metadata["authors"] == ["Антон Чехов"]
    assert doc.metadata["language"] == "ru"
    titles = [(t["level"], t["title"]) for t in doc.toc()]
    assert (1, "Толстый и тонкий") in titles and (1, "Хамелеон") in titles
    assert (2, "II") in titles  # a subtitle starts a sub-section
    # text before the first section stands under the body's title, not "Front matter"
    lead = doc.root.children[0]
    assert (lead.title, [b.text for b in lead.blocks]) == (
        "Антон Чехов Рассказы",
        ["Краткость — сестра таланта."],
    )
    text = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "встретились два приятеля" in text and "Примечание." in text
    assert "/9j/" not in text  # embedded binaries are skipped
    assert parse_document(_fb2("utf-8"), "book.fb2").toc() == doc.toc()


def test_fb2_refuses_entity_expansion() -> None:
    bomb = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">]>
<FictionBook><body><section><p>&lol2;</p></section></body></FictionBook>"""
    with pytest.raises(ParseError, match="unsafe FB2"):
        parse_document(bomb, "bomb.fb2")


def test_fb2_text_set_straight_in_a_section_is_kept() -> None:
    """pandoc's FB2 sets code outside any <p> ("&gt; perl install-tl"), and a page's link
    index as bare text among <a> elements: it was all lost, or came out as "1.2." paragraphs."""
    book = """<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"
 xmlns:l="http://www.w3.org/1999/xlink"><body><section><title><p>Установка</p></title>
<p>Запустите установщик:</p>
&gt; cd /path/to/installer
&gt; perl install-tl -gui
<p>Он спросит, куда ставить.</p>1.1. <a l:href="#a">Что это?</a> | 1.2. <a l:href="#b">Как?</a>
</section></body></FictionBook>"""
    doc = parse_document(book.encode(), "texlive.fb2")
    (section,) = [s for _, s in doc.root.walk() if s.title == "Установка"]
    assert [(b.kind, b.text) for b in section.blocks] == [
        ("paragraph", "Запустите установщик:"),
        ("code", "> cd /path/to/installer\n> perl install-tl -gui"),
        ("paragraph", "Он спросит, куда ставить."),
        ("paragraph", "1.1. Что это? | 1.2. Как?"),
    ]


def test_fb2_soft_hyphens_and_manual_line_breaks_split_no_word() -> None:
    """Library FB2s hyphenate long words with soft hyphens ("при\xadмер": PostgreSQL read
    "мер" and "ом") and keep Word's manual line break, a vertical tab ("Текст\x0bглавы" read
    "Текстглавы")."""
    book = """<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"><body><section>
<title><p>Гла\u00adва 1</p></title><p>При\u00adмер пере\u00adноса.</p><p>Текст\x0bглавы.</p>
</section></body></FictionBook>"""
    doc = parse_document(book.encode(), "book.fb2")
    (section,) = [s for _, s in doc.root.walk() if s.title == "Глава 1"]
    assert [b.text for b in section.blocks] == ["Пример переноса.", "Текст главы."]


def test_fb2_with_broken_markup_keeps_the_rest_of_the_book() -> None:
    """One stray end tag made libxml2's recovery close the body there: the chapters after it
    and the notes were lost with only "read in recovery mode" said. HTML's entities left
    undeclared stood in the text ("Текст&nbsp;тут"), a bare "&" cut "AT&T" to "AT"."""
    chapter = "<section><title><p>Глава {0}</p></title><p>Текст главы {0}.</p></section>"
    book = f"""<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"
 xmlns:l="http://www.w3.org/1999/xlink"><body>{chapter.format(1)}</section>{chapter.format(2)}
<section><title><p>Глава 3</p></title><p>AT&T и&nbsp;&laquo;Ромашка&raquo;.</p></p><empty-line>
<p>Он сказал<emphasis> «Привет» </emphasis>и ушёл<a l:href="#n1" type="note">1</a>.</p></section>
</body><body name="notes"><section id="n1"><title><p>1</p></title><p>Сноска.</p></section>
</body></FictionBook>"""
    doc = parse_document(book.encode(), "book.fb2")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert sections["Глава 2"] == ["Текст главы 2."]
    # an open <empty-line> lost the rest of its section; words met inline elements' spaces
    assert sections["Глава 3"] == ["AT&T и «Ромашка».", "Он сказал «Привет» и ушёл¹."]
    assert sections["1"] == ["Сноска."]
    assert doc.warnings and "mended" in doc.warnings[0]


def test_fb2_notes_poems_and_scene_breaks() -> None:
    """A note reference's number was glued to its word ("одна2", no search finds it); a poem
    lost its title and author, and a poem in an epigraph its line breaks ("один,строка");
    "* * *" as a subtitle made a section of that name, as a paragraph was indexed; the
    annotation's paragraphs ran together ("книги.Вторая")."""
    book = """<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"
 xmlns:l="http://www.w3.org/1999/xlink"><description><title-info><book-title>Стихи</book-title>
<annotation><p>Сборник.</p><p>Избранное.</p> и <emphasis>стихи</emphasis></annotation>
</title-info></description><body>
<section><title><p>Глава</p></title><epigraph><poem><stanza><v>Строка один,</v><v>строка два.</v>
</stanza></poem><text-author>Автор</text-author></epigraph>
<p>Сноска здесь<a l:href="#n1" type="note">1</a> и ещё одна <a l:href="#n2" type="note">[2]</a>.</p>
<subtitle>* * *</subtitle><p>* * *</p><p>После разрыва.</p>
<poem><title><p>Песня</p></title><stanza><v>Мороз и солнце;</v><v>день чудесный!</v></stanza>
<text-author>А. С. Пушкин</text-author><date>1829</date></poem></section></body></FictionBook>"""
    doc = parse_document(book.encode(), "poems.fb2")
    assert doc.metadata["annotation"] == "Сборник. Избранное. и стихи"
    assert [s.title for _, s in doc.root.walk()] == ["", "Глава"]
    assert [b.text for b in doc.root.children[0].blocks] == [
        "Строка один,\nстрока два.\nАвтор",
        "Сноска здесь¹ и ещё одна².",
        "После разрыва.",
        "Песня\nМороз и солнце;\nдень чудесный!\nА. С. Пушкин\n1829",
    ]


def test_fb2_volumes_of_a_compilation_are_sections() -> None:
    """Two main bodies (a compilation's volumes): the second's title and epigraph went before
    the first volume, and both volumes' "Глава 1" stood side by side."""
    volume = "<body><title><p>{0}</p></title><epigraph><p>Эпиграф: {0}.</p></epigraph>"
    volume += "<section><title><p>Глава 1</p></title><p>Текст: {0}.</p></section></body>"
    book = f"""<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">{volume.format("Том первый")}
{volume.format("Том второй")}</FictionBook>"""
    doc = parse_document(book.encode(), "volumes.fb2")
    sections = [(s.level, s.title, [b.text for b in s.blocks]) for _, s in doc.root.walk()]
    assert sections[1:] == [
        (1, "Том первый", ["Эпиграф: Том первый."]),
        (2, "Глава 1", ["Текст: Том первый."]),
        (1, "Том второй", ["Эпиграф: Том второй."]),
        (2, "Глава 1", ["Текст: Том второй."]),
    ]


def test_fb2_text_after_a_nested_section_reads_after_it() -> None:
    """Text a converter set after a chapter's sub-sections (schemas forbid it) was read before
    them, and text after a chapter at the body's level went to the front matter; an untitled
    notes body was "Notes" in a Russian book."""
    book = """<?xml version="1.0" encoding="utf-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"><body>
<section><title><p>Глава 1</p></title><p>Начало главы.</p>
<section><title><p>Часть 1</p></title><p>Первая часть.</p></section>
<section><title><p>Часть 2</p></title><p>Вторая часть.</p></section>
<p>Конец главы.</p></section><p>После главы.</p></body>
<body name="notes"><section id="n1"><title><p>1</p></title><p>Сноска.</p></section></body>
</FictionBook>"""
    doc = parse_document(book.encode(), "book.fb2")
    read = [(s.title, b.text) for _, s in doc.root.walk() for b in s.blocks]
    assert read == [
        ("Глава 1", "Начало главы."),
        ("Часть 1", "Первая часть."),
        ("Часть 2", "Вторая часть."),
        ("Часть 2", "Конец главы."),
        ("Часть 2", "После главы."),
        ("1", "Сноска."),
    ]
    assert doc.root.children[-1].title == "Примечания"


def test_fb2_that_is_not_xml() -> None:
    with pytest.raises(ParseError, match="FB2"):
        parse_document(b"\x00\x01 not xml", "x.fb2")


def test_text_paragraphs_lines_and_cp1251() -> None:
    text = "Первый абзац,\nв две строки.\n\n\nВторой абзац.\n"
    doc = parse_document(text.encode("cp1251"), "notes.txt")
    blocks = doc.root.blocks
    assert [b.text for b in blocks] == ["Первый абзац,\nв две строки.", "Второй абзац."]
    assert [(b.line_start, b.line_end) for b in blocks] == [(1, 2), (5, 5)]
    assert doc.warnings == ["not UTF-8: read as Windows-1251"]
    assert not parse_document(text.encode(), "notes.txt").warnings


_OLD_RUSSIAN = (
    "ЧАСТО ЗАДАВАЕМЫЕ ВОПРОСЫ\n\nКак настроить модем? Откройте файл настроек, "
    "найдите строку с номером порта и замените её.\n\nЁлки-палки: «кавычки» и тире.\n"
)


@pytest.mark.parametrize(
    ("encoding", "name", "said"),
    [
        ("koi8_r", "faq.txt", "KOI8-R"),
        ("cp866", "faq.txt", "CP866 (DOS)"),
        ("koi8_r", "faq.md", "KOI8-R"),
        ("cp1251", "faq.md", "Windows-1251"),
    ],
)
def test_legacy_russian_encodings_are_told_apart(encoding: str, name: str, said: str) -> None:
    """Read as Windows-1251, a KOI8-R text swaps the case of every letter ("оПХБЕР") and a
    CP866 one is punctuation: each is read in its own encoding, and the document says so."""
    data = _OLD_RUSSIAN.replace("«", '"').replace("»", '"').encode(encoding)
    doc = parse_document(data, name)
    text = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "найдите строку с номером порта" in text and "Ёлки-палки" in text
    assert f"not UTF-8: read as {said}" in doc.warnings


def test_markdown_saved_as_text_is_read_as_markdown() -> None:
    """cmark-gfm's spec.txt is Markdown: 80 headings opening with "#", none found, and two
    numbered list items became its chapters. A text file whose "#" lines are a root prompt's
    commands or a configuration's comments stays text."""
    body = (
        "---\ntitle: GitHub Flavored Markdown Spec\n---\n\n# Introduction\n\n"
        "## What is Markdown?\n\nMarkdown is a plain text format for writing documents.\n\n"
        "```\n# not a heading\n```\n\n## Why is a spec needed?\n\nJohn Gruber's description "
        "leaves many aspects unspecified.\n\n12. Can list items be empty?\n"
    )
    doc = parse_document(body.encode(), "spec.txt")
    assert [s.title for _, s in doc.root.walk()][1:] == [
        "Introduction",
        "What is Markdown?",
        "Why is a spec needed?",
    ]
    assert doc.title == "GitHub Flavored Markdown Spec"
    shell = (
        "Installing from a USB stick\n\nCopy the image as root:\n\n"
        "# cp debian.iso /dev/sdX\n\n# sync\n\nThen boot from it. A preseed file:\n\n"
        "# Locale sets language and country.\nd-i debian-installer/locale string en_US\n\n"
        "# dpkg-reconfigure exim4-config\n"
    )
    assert parse_document(shell.encode(), "install.txt").format == "text"
    config = "Sample configuration\n\n# Network settings\n\nhost = a\n\n# Wireless\n\n"
    config += "ssid = b\n\n# Build\n\njobs = 2\n"
    assert parse_document(config.encode(), "sample.txt").title == "Sample configuration"


def test_a_grid_table_in_text_is_rows_of_cells() -> None:
    """The Debian Reference as text draws its tables with "+---+" and "|", a row's cells
    wrapped over several lines: a chunk held half a row ("|gpm |V:11, |521 |The Unix style
    cut-and-paste on the text|") and the next the rest. Each row is one line of cells now,
    under the header and a rule the chunker repeats over a split table's parts."""
    table = [
        "Table 1.1. List of interesting text-mode program packages",
        "",
        "    +------------------------------------------+",
        "    | package |popcon|size |  description      |",
        "    |---------+------+-----+-------------------|",
        "    |mc       |V:54, |1482 |A text-mode file   |",
        "    |         |I:226 |     |manager            |",
        "    |---------+------+-----+-------------------|",
        "    |gpm      |V:11, |521  |The Unix style     |",
        "    |         |I:14  |     |cut-and-paste      |",
        "    +------------------------------------------+",
    ]
    doc = parse_document("\n".join(table).encode(), "reference.txt")
    blocks = [(b.kind, b.text) for _, s in doc.root.walk() for b in s.blocks]
    assert blocks[-1] == (
        "table",
        "package | popcon | size | description\n--- | --- | --- | ---\n"
        "mc | V:54, I:226 | 1482 | A text-mode file manager\n"
        "gpm | V:11, I:14 | 521 | The Unix style cut-and-paste",
    )


def test_western_text_that_is_not_utf8_keeps_its_accents() -> None:
    doc = parse_document("Größe und Übung: schön, daß Sie da sind.\n".encode("cp1252"), "a.txt")
    assert doc.root.blocks[0].text == "Größe und Übung: schön, daß Sie da sind."


def _md(front: str, body: str) -> bytes:
    return f"---\n{front}\n---\n{body}".encode()


ADR = """# ADR-1: Use PostgreSQL

## Context

We need one store for text and vectors.

## Decision

PostgreSQL with pgvector.

## Consequences

One backup, one thing to run.
"""


def test_policy_skips_untyped_story_nodes_and_untagged() -> None:
    policy = policy_from_mapping({"indexing": {"markdown": {"preset": "rag-indexing-v0.1"}}})
    assert isinstance(policy, MarkdownPolicy)
    story = parse_document(_md("type: story-node\ntags: [x]", "# S\n\ntext"), "s.md", policy)
    assert story.skipped and "story-node" in story.skipped
    untyped = parse_document(_md("tags: [x]", "# S\n\ntext"), "u.md", policy)
    assert untyped.skipped and "type" in untyped.skipped
    untagged = parse_document(_md("type: adr", ADR), "a.md", policy)
    assert untagged.skipped and "tags" in untagged.skipped
    kept = parse_document(_md("type: adr\ntags: [db]", ADR), "a.md", policy)
    assert kept.skipped is None
    # Without a policy every file is indexed.
    assert parse_document(_md("type: story-node", "# S\n\ntext"), "s.md").skipped is None


def test_policy_errors_are_named() -> None:
    with pytest.raises(ParseError, match="unknown preset"):
        policy_from_mapping({"indexing": {"markdown": {"preset": "nope"}}})
    assert policy_from_mapping({"project_id": "demo"}) is None  # a CLI .mirage.yaml


def test_markdown_html_comments_are_not_text_but_code_keeps_them():
    from mirage_pipeline.parsing import parse_document

    text = (
        "# fs\n\n## fs.access(path)\n\n<!-- YAML\nadded: v0.11.15\nchanges:\n"
        "  - version: v6.3.0\n-->\n\n<!-- YAML\nchanges:\n  - pr-url: https://github.com/x/1\n"
        "    description: The `mode` argument is checked, `path` too.\n-->\n\n"
        "Tests a user's permissions <!-- TODO: link `mode` --> for a file.\n\n"
        "Write `<!-- note -->` to leave a note.\n\n```html\n<!-- kept: code -->\n```\n"
    )
    doc = parse_document(text.encode(), "fs.md")
    blocks = _block_texts(doc)
    assert blocks == [
        "Tests a user's permissions  for a file.",
        "Write `<!-- note -->` to leave a note.",
        "```html\n<!-- kept: code -->\n```",
    ]


def _double_encoded(text: str, encoding: str = "cp1252") -> str:
    """`text`'s UTF-8 read in an 8-bit encoding, as a tool that got it wrong saved it."""
    return text.encode("utf-8").decode(encoding, errors="replace")


def test_double_encoded_utf8_is_repaired_and_said() -> None:
    """A Sphinx source with "â€”" for "—", a note whose Russian became "Ð¿Ñ€Ð¸…", a tree
    listing saved through Mac Roman: repaired; German "ßŒ" and clean text are not touched."""
    russian = "Пакеты попадают в архив после проверки."
    body = (
        f"# {_double_encoded('Архив — разделы', 'latin-1')}\n\n"
        f"Раздел main архива Debian {_double_encoded('—')} то, что является его ядром.\n\n"
        f"{_double_encoded(russian, 'latin-1')}\n\n"
        f"    {_double_encoded('├── chunks/  # Coleção', 'mac_roman')}\n\n"
        "Der Befehl \\MakeUppercase{\\ss\\OE} setzt ßŒ.\n\n"
        f"{_double_encoded('Decisões de recuperação híbrida', 'mac_roman')}\n"
    )
    doc = parse_document(body.encode(), "devref.md")
    texts = _block_texts(doc)
    assert [s.title for _, s in doc.root.walk()][1] == "Архив — разделы"
    assert texts[0] == "Раздел main архива Debian — то, что является его ядром."
    assert texts[1] == russian
    assert "├── chunks/  # Coleção" in texts[2]
    assert texts[3] == "Der Befehl \\MakeUppercase{\\ss\\OE} setzt ßŒ."
    assert texts[4] == "Decisões de recuperação híbrida"  # a seed note's "Decis√µes"
    assert doc.warnings == [
        '4 passages held UTF-8 read in an 8-bit encoding ("â€”" for "—"): repaired'
    ]
    clean = parse_document("# Архив — разделы\n\nТекст «как есть».\n".encode(), "a.md")
    assert not clean.warnings


@pytest.mark.parametrize(
    ("codec", "name", "example"),
    [("cp1251", "Windows-1251", "Ïðàâèëà"), ("koi8-r", "KOI8-R/KOI8-U", "ðÒÁ×ÉÌÁ")],
)
def test_cyrillic_converted_as_latin_1_is_re_decoded(codec: str, name: str, example: str) -> None:
    """An old Windows-1251 or KOI8 e-book converted to UTF-8 as if it were Latin-1: "Ãëàâà 1"
    was indexed as it stood. Its passages are decoded as written, in the encoding whose
    letters read as Cyrillic words; the Western words beside them stay."""
    russian = [
        "Глава 1. Введение",
        "Не очень краткое введение в систему вёрстки, написанное для тех, кто только начинает.",
        "Многое из включённого в это введение материала исходит из австрийского введения.",
    ]
    misread = [line.encode(codec).decode("latin-1") for line in russian]
    body = f"# {misread[0]}\n\n{misread[1]}\n\n{misread[2]}\n\nSee Müller, café, déjà vu.\n"
    for file in ("book.md", "book.txt"):
        doc = parse_document(body.encode(), file)
        texts = [s.title for _, s in doc.root.walk() if s.title] + _block_texts(doc)
        assert russian[1] in texts and russian[2] in texts
        assert "Глава 1. Введение" in " ".join(texts)
        assert "See Müller, café, déjà vu." in texts
        assert f'held Cyrillic in {name} read as Latin-1 ("{example}")' in doc.warnings[-1]
    french = "# Été\n\nLe garçon a été très content à côté de la fenêtre; où est-il allé?\n"
    assert not parse_document(french.encode(), "fr.md").warnings
    letters = "| ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞß |\n|---|\n| àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ |\n"
    assert not parse_document(f"# Latin-1\n\n{letters}".encode(), "table.md").warnings


def test_cyrillic_read_in_the_other_cyrillic_encoding_is_read_back() -> None:
    """An FB2 declaring Windows-1251 over KOI8 bytes read "Антон Чехов" as "юОФПО еЕИПЧ": the
    letters are Cyrillic, of a permuted alphabet in swapped case. Read back, they are far
    likelier in running text; a Markdown note misread the other way round too."""
    koi8 = _fb2("windows-1251").decode("cp1251").replace("—", "-").encode("koi8-r")
    doc = parse_document(koi8, "book.fb2")
    assert doc.title == "Рассказы" and doc.metadata["authors"] == ["Антон Чехов"]
    assert "встретились два приятеля" in " ".join(_block_texts(doc))
    assert doc.warnings[-1].endswith(
        "held Cyrillic in KOI8-R/KOI8-U read as Windows-1251: re-decoded"
    )
    note = (
        "# Глава первая\n\nНа вокзале Николаевской железной дороги встретились два приятеля:"
        " один толстый, другой тонкий. Толстый только что пообедал на вокзале, и губы его,"
        " подёрнутые маслом, лоснились, как спелые вишни. Пахло от него хересом и флёр"
        " д'оранжем. Тонкий же только что вышел из вагона и был навьючен чемоданами.\n"
    )
    doc = parse_document(note.encode("cp1251").decode("koi8_u").encode(), "note.md")
    assert "встретились два приятеля" in _block_texts(doc)[0]
    assert doc.warnings[-1].endswith(
        "held Cyrillic in Windows-1251 read as KOI8-R/KOI8-U: re-decoded"
    )
    assert not parse_document(note.encode(), "clean.md").warnings
    acronyms = "ЦФО ЮФО ФСИН ЭЦП ЖКХ МЧС ФСБ МВД ЦБ РФ ФНС ПФР ФСС ГИБДД ВУЗ НИИ ОГРН ИНН. "
    assert not parse_document(f"# СОКРАЩЕНИЯ\n\n{acronyms * 6}\n".encode(), "abbr.md").warnings


def test_misread_cyrillic_is_re_decoded_passage_by_passage() -> None:
    """A document misread in part: the clean appendix of a KOI8 FB2 read as Windows-1251 stays
    as it is, and Western words and typographic marks beside Cyrillic converted as Latin-1
    ("Zürich", "café", "—", "“…”") stay theirs."""
    russian = (
        "На вокзале Николаевской железной дороги встретились два приятеля: один толстый,"
        " другой тонкий. Толстый только что пообедал на вокзале, и губы его лоснились."
    )
    clean = "Приложение: этот абзац был набран заново и прочитан верно."
    misread = russian.encode("koi8-r").decode("cp1251")
    body = f"# Глава\n\n{misread}\n\n{misread}\n\n## Приложение\n\n{clean} — «так»\n"
    doc = parse_document(body.encode(), "mixed.md")
    assert _block_texts(doc) == [russian, russian, f"{clean} — «так»"]
    assert doc.warnings[-1].startswith("2 passages held Cyrillic in KOI8-R/KOI8-U")
    latin = "Не очень краткое введение в систему вёрстки".encode("cp1251").decode("latin-1")
    body = (
        f"# Éloïse à Zürich\n\n{latin} — “Bonjour, café” {latin}.\n\n{latin}, {latin}: {latin}.\n"
    )
    texts = _block_texts(parse_document(body.encode(), "fr.md"))
    intro = "Не очень краткое введение в систему вёрстки"
    assert texts[0] == f"{intro} — “Bonjour, café” {intro}."
    assert [s.title for _, s in parse_document(body.encode(), "fr.md").root.walk()][1] == (
        "Éloïse à Zürich"
    )


def test_control_characters_go_from_every_format() -> None:
    """A glyph no encoding maps reads as a control character (a PDF's picture fonts draw lines
    with "\x1a"): no text holds one, the embedder and a citation got them as they were. They
    go; a block of nothing else goes with them; tabs and line breaks stay."""
    body = (
        "# Colours\x1b\n\n"
        "Print \x1b[31mred\x1b[0m text.\n\n"
        "\x1a\x1a\x1a\x1a \x18\x18\n\n"
        "```\nmake\tall\x00\n```\n"
    )
    doc = parse_document(body.encode(), "colours.md")
    assert [s.title for _, s in doc.root.walk()][1] == "Colours"
    assert _block_texts(doc) == ["Print [31mred[0m text.", "```\nmake\tall\n```"]


def test_markdown_lines_are_counted_as_markdown_counts_them() -> None:
    """A form feed, U+0085 or U+2028 inside a paragraph is no line break: str.splitlines()
    made it one, and every block after it was cut from the wrong lines or lost."""
    body = "# T\r\n\r\nFirst\x0c page.\r\n\r\nSecond\u2028one.\n\n## U\n\nThird \x85 one.\n"
    doc = parse_document(body.encode(), "notes.md")
    blocks = [(s.title, b.text, b.line_start) for _, s in doc.root.walk() for b in s.blocks]
    assert blocks == [
        ("T", "First\n page.", 3),  # the form feed a line break (text_repair.py)
        ("T", "Second\u2028one.", 5),
        ("U", "Third \x85 one.", 9),
    ]


def test_markdown_inline_html_tags_go_and_their_text_stays() -> None:
    """charis-features.md was a third tags (`<span class=… style=…>a … z</span>`); Docker's
    option tables break cells with `<br>`. Placeholders and addresses in angle brackets are
    text, and so is HTML quoted in a code span or a fence."""
    body = (
        "# Features\n\n"
        "<span class='affects'>Affects: all capitals</span>\n\n"
        "Standard <span class='charis-R' style='font-feature-settings: \"ss01\" 1'>a … z</span>"
        ' and <a href="#x">its link</a><br>on a new line. <img src="b.png" alt="badge"/>\n\n'
        "Run `aptitude install <package>` as <root@localhost>; write `<span>` to mark it.\n\n"
        "```\n<div>kept in code</div>\n```\n"
    )
    doc = parse_document(body.encode(), "features.md")
    texts = _block_texts(doc)
    assert texts == [
        "Affects: all capitals",
        "Standard a … z and its link on a new line.",
        "Run `aptitude install <package>` as <root@localhost>; write `<span>` to mark it.",
        "```\n<div>kept in code</div>\n```",
    ]
    # in a heading too: "List<String>" lost its "<String>", "Vec<T>" its "<T>"
    titled = "# Use List<String>\n\n## Vec<T> and <code>x</code> <a name='y'></a>Z <br/>\n\nT.\n"
    titles = [s.title for _, s in parse_document(titled.encode(), "t.md").root.walk()][1:]
    assert titles == ["Use List<String>", "Vec<T> and x Z"]


def test_stress_marks_leave_cyrillic_words_whole() -> None:
    """A dictionary's "за́мок" (combining acute) and a PDF's "з ´о-шит", "бай- ´ок" (the accent
    a glyph of its own, set before its letter) cut words in two for full-text search; Latin
    accents and a lone acute stay. A space between two words stays: before a one-letter word
    (Bulgarian "ѝ", set "´и") and between two words the dictionary knows."""
    body = (
        "# Уда́рение\n\nЗа́мок на двери и замо́к на горе; Петербꙋ́ржстѣй.\n\n"
        "Переносять по складах: з ´о-шит, словн ´ик, бай- ´ок.\n\n"
        "Café, résumé and a lone ´ acute stay.\n\n"
        "Вижте документацията ´и могат; слово ´эхо, за ´мок, ходж ´у.\n"
    )
    doc = parse_document(body.encode(), "accents.md")
    assert [s.title for _, s in doc.root.walk()][1] == "Ударение"
    assert _block_texts(doc) == [
        "Замок на двери и замок на горе; Петербꙋржстѣй.",
        "Переносять по складах: зо-шит, словник, бай-ок.",
        "Café, résumé and a lone ´ acute stay.",
        "Вижте документацията и могат; слово эхо, замок, ходжу.",
    ]


def test_markdown_links_images_and_attribute_lists_read_as_a_reader_sees_them() -> None:
    """texlive-ru.md's "[2.1](#x1-90002.1)" indexed the anchor "x1-90002.1", a README's CI
    badge was a paragraph of URL pieces, then "CI" (natasha's README: a chunk of it), and
    Python-Markdown's attribute lists stood in titles ("Phases of processing {: #stages }").
    A paragraph of badges goes; an image among words reads as its text. Code keeps its
    brackets."""
    body = (
        "# Guide\n\n[![CI](https://github.com/o/r/actions/badge.svg)](https://github.com/o/r) "
        "![PyPI][pypi]\n\n[pypi]: https://img.shields.io/pypi/v/r.svg\n\n"
        "The logo ![Natasha](logo.svg) is a cat.\n\n"
        "## Phases of processing {: #stages }\n\n"
        "See [2.1](#x1-90002.1) and [the manual](https://ex.org/a_(b)) `[x](y)`.\n"
    )
    doc = parse_document(body.encode(), "readme.md")
    assert [s.title for _, s in doc.root.walk()][1:] == ["Guide", "Phases of processing"]
    assert _block_texts(doc) == [
        "The logo Natasha is a cat.",
        "See 2.1 and the manual `[x](y)`.",
    ]


def test_markdown_reference_links_read_as_their_text() -> None:
    """Node.js's fs.md holds 137 reference links — "the properties will be [bigints][]",
    "Alias of [`filehandle.writeFile()`][]" — indexed with their brackets; a link whose text is
    a code span kept its target too. Brackets defining no label ("[options]") and those in code
    stay."""
    body = (
        "# fs\n\nThe properties will be [bigints][], see [`fs.open()`][] and [the API][api].\n"
        "Call [`x()`](#x) with [options]; `[bigints][]` is code.\n\n"
        "[bigints]: https://tc39.es/bigint\n[`fs.open()`]: #fsopen\n[API]: https://api\n"
    )
    doc = parse_document(body.encode(), "fs.md")
    assert _block_texts(doc) == [
        "The properties will be bigints, see `fs.open()` and the API.\n"
        "Call `x()` with [options]; `[bigints][]` is code."
    ]


def test_markdown_admonitions_are_titled_paragraphs_not_code() -> None:
    """FastAPI's (and any MkDocs site's) "!!! tip" kept its marker as text, and the second
    paragraph of its indented body became a code block ("    В этом случае `str` является
    параметром типа…"). The marker is the body's title now, the body text at the lines it is
    on; a content tab reads the same way, and the syntax shown in a fence stays code."""
    body = (
        "# Типы\n\n!!! tip\n    Эти типы называются «параметрами типов».\n\n"
        "    В этом случае `str` является параметром типа.\n\n"
        '!!! warning "Осторожно"\n    Тело предупреждения.\n\n'
        '=== "Linux"\n    ```\n    make\n    ```\n\n'
        "```\n!!! note\n    пример\n```\n\nДальше текст.\n"
    )
    doc = parse_document(body.encode(), "types.md")
    blocks = [(b.kind, b.text, b.line_start) for _, s in doc.root.walk() for b in s.blocks]
    assert blocks == [
        ("paragraph", "Tip:\nЭти типы называются «параметрами типов».", 3),
        ("paragraph", "В этом случае `str` является параметром типа.", 6),
        ("paragraph", "Осторожно:\nТело предупреждения.", 8),
        ("paragraph", "Linux:", 11),
        ("code", "```\nmake\n```", 12),
        ("code", "```\n!!! note\n    пример\n```", 16),
        ("paragraph", "Дальше текст.", 21),
    ]


def test_markdown_numbered_first_chapter_is_no_title() -> None:
    """disser's README opens with "# 1. Введение" and goes on with "# 2. …": the first heading
    is a chapter, and as the title it stood at the head of every citation ("1. Введение ›
    4. Установка"). A book's one top-level heading, numbered or not, stays its title."""
    chapters = "# 1. Введение\n\nПакет.\n\n# 2. Установка\n\n## 2.1. Из архива\n\nТекст.\n"
    doc = parse_document(chapters.encode(), "disser-README-ru.md")
    assert doc.title == "disser-README-ru"
    assert [s.title for _, s in doc.root.walk()][1:] == [
        "1. Введение",
        "2. Установка",
        "2.1. Из архива",
    ]
    book = "# Руководство\n\nТекст.\n\n# Глава 2\n\nТекст.\n"
    assert parse_document(book.encode(), "guide.md").title == "Руководство"
    single = "# 1. Введение\n\nТекст.\n\n## 1.1. Цель\n\nТекст.\n"
    assert parse_document(single.encode(), "intro.md").title == "1. Введение"


def test_latin_accents_set_apart_join_their_letters() -> None:
    """TeX's OT1 fonts have no accented letters: a PDF made with them sets the accent as a glyph
    of its own before its letter, and the text read "G¨urtler", "d´eshabiller", "soup¸con" —
    words full-text search never matched. A spacing accent before a space stays."""
    body = (
        "# Names\n\nG¨urtler and Erd˝os met at the Hˆotel; soup¸con, d´eshabiller, na¨ıve.\n\n"
        "The accent ¨ alone, and `code` with ´ spaced.\n"
    )
    doc = parse_document(body.encode(), "names.md")
    assert _block_texts(doc) == [
        "Gürtler and Erdős met at the Hôtel; soupçon, déshabiller, naïve.",
        "The accent ¨ alone, and `code` with ´ spaced.",
    ]


def test_texs_not_slash_read_onto_a_letter_is_the_negated_relation() -> None:
    """TeX's \\not reads as a combining overlay on the letter before the relation ("r̸ = 0");
    a minus before a letter outside a groff PDF is arithmetic and stays ("(1−x)")."""
    body = "# Loop\n\nwhile r\u0338 = 0 and n?\u0338 \u2208 known do (1\u2212x) \u2212b.\n"
    doc = parse_document(body.encode(), "loop.md")
    assert _block_texts(doc) == ["while r \u2260 0 and n? \u2209 known do (1\u2212x) \u2212b."]


def test_a_letter_in_a_circle_is_the_copyright_or_registered_sign() -> None:
    """texinfo draws © as "c" under a combining circle: R's and gri's manuals read
    "Copyright c⃝1990 W. N. Venables", and "copyright ©" matched nothing."""
    body = "# Legal\n\nCopyright c\u20dd1990 W. N. Venables; Gri\u20dd is R\u20dd, (c\u20dd)\n"
    doc = parse_document(body.encode(), "legal.md")
    assert _block_texts(doc) == ["Copyright © 1990 W. N. Venables; Gri⃝ is ®, (©)"]


def test_pandoc_title_block_is_the_title_not_a_paragraph() -> None:
    """rclone's manual opens with pandoc's title block ("% rclone(1) User Manual", "% Nick
    Craig-Wood", "% Apr 23, 2023"): it was indexed as a paragraph, the first heading the
    title. The lines after it keep their numbers."""
    body = "% rclone(1) User Manual\n% Nick Craig-Wood\n% Apr 23, 2023\n\n# Rclone\n\nIt syncs.\n"
    doc = parse_document(body.encode(), "MANUAL.md")
    assert doc.title == "rclone(1) User Manual"
    assert doc.metadata["authors"] == ["Nick Craig-Wood"]
    (block,) = [b for _, s in doc.root.walk() for b in s.blocks]
    assert (block.text, block.line_start) == ("It syncs.", 7)
    yaml_directive = parse_document(b"%YAML 1.2\n\n# Rclone\n\nIt syncs.\n", "conf.md")
    assert yaml_directive.title == "Rclone"


def test_adobe_private_use_letters_and_digits_become_standard_ones() -> None:
    """A font whose Unicode map follows the Adobe Glyph List puts Serbian б and д, old-style
    digits and small capitals in the private-use area ("дистри\uf6c5уције" was never found);
    the Symbol font's bracket pieces go, and a block of nothing else, or of glyphs no font
    mapped (U+FFFD) among signs."""
    body = (
        "# Увод\n\nсофтверске дистри\uf6c5уције, \uf6c6ата \uf732\uf730\uf732\uf731,"
        " \uf76e\uf76f\uf774\uf765 \uf8eb(a)\uf8f6.\n\n\uf8ec \uf8ec\n\n"
        "\ufffd \ufffd \ufffd\n\n$ # &\n"
    )
    doc = parse_document(body.encode(), "sr.md")
    assert _block_texts(doc) == [
        "софтверске дистрибуције, дата 2021, note (a).",
        "$ # &",
    ]


def test_words_mixing_look_alike_latin_and_cyrillic_letters_take_one_script() -> None:
    """lshort-ukr's fonts map Latin i to Ukrainian і ("Tobіas", "\\begіn{pіcture}"), a Russian
    text has a Latin C ("Cоздатель"): such words match no search. A Latin name with a Russian
    ending, a word no script fits and a Cyrillic word the dictionary does not know stay."""
    body = (
        "# Вступ\n\nTobіas Oetіker, Versіon 4.12: \\begіn{pіcture} іn ASCІІ.\n\n"
        "Cоздатель TEXа и Unixу; Яndex, ~Aархив, Україна ііі.\n"
    )
    doc = parse_document(body.encode(), "mixed.md")
    assert _block_texts(doc) == [
        "Tobias Oetiker, Version 4.12: \\begin{picture} in ASCII.",
        "Создатель TEXа и Unixу; Яndex, ~Aархив, Україна ііі.",
    ]


def test_bytes_literals_around_letters_leave_the_letters() -> None:
    """The Debian installation guide's PDFs set their example files' comments with each
    non-ASCII letter as a Python bytes literal ("b’’нb’’"), and a listing's line break can fall
    inside one ("b ’’т", "b’ ’в"). Doubled quotes and a lone "b’’" elsewhere stay."""
    garbled = (
        "# b’’нb’’b’’уb’’b’’жb’’b’’нb’’b’’оb’’ b’’иb’’b’’зb’’b’’мb’’b’’еb’’b’’нb’’b’’иb’’b ’’тb’’"
        "b’’ьb’’ b’’сb’’b’’оb’’b’’гb’’b’’лb’’b’’аb’’b’’сb’’b’’нb’’b’’оb’’ b’ ’вb’’b’’аb’’b’’шb’’"
        "b’’иb’’b’’мb’’\nsubnet 192.168.1.0 netmask 255.255.255.0 {"
    )
    quotes = "b’’“b’’double quoted textb’’”b’’ and b’’‘b’’single quoted textb’’’b’’"
    kept = "He said ‘‘stop’’; a b’’ stays, the verb’’ — b’’ too."
    body = f"# Пример\n\n```\n{garbled}\n```\n\n{quotes} b’’й\u0306b’’\n\n{kept}\n"
    doc = parse_document(body.encode(), "dhcp.md")
    assert _block_texts(doc) == [
        "```\n# нужно изменить согласно вашим\nsubnet 192.168.1.0 netmask 255.255.255.0 {\n```",
        "“double quoted text” and ‘single quoted text’ й\u0306",
        kept,
    ]


def test_pdf_title_is_the_first_pages_first_run_of_biggest_lines() -> None:
    """russ.sty's manual has no title in its metadata; its first page sets the title, a date
    below it, the abstract, then "Contents" as big as the title: the title is the first run of
    the biggest lines, not every big line on the page ("… Contents 1. Usage")."""
    abstract = "The package brings Russian commands, letters in formulas and hyphenation."
    first = [("The russ package", 17), ("26 January 2012", 12), (abstract, 10), ("Contents", 17)]
    doc = parse_document(_pdf([first, [(LOREM, 10)]]), "russ_doc.pdf")
    assert doc.title == "The russ package"
    wrapped = [("A Very Long Title That the Page Sets on Two Lines", 17), (LOREM, 10)]
    doc = parse_document(_pdf([wrapped]), "long.pdf")
    assert doc.title == "A Very Long Title That the Page Sets on Two Lines"


def test_markdown_contents_lists_html_tables_and_heading_markup() -> None:
    """A README's contents (a list of links to its own headings, under "Table of Contents")
    matched every question about its headings; an HTML table read as tags and cells cut at
    the source's line breaks (KiCad's help via pandoc); emphasis and code marks stood in
    titles ("Declaring _program_ variable")."""
    body = (
        "# Tool\n\nTable of Contents\n\n- [Install](#install)\n- [Declaring _program_ variable]"
        "(#declaring)\n  - [Node options such as `--harmony`](#node)\n\n"
        "## Install\n\nRun it.\n\n- [the site](https://ex.org)\n- [Usage](#declaring)\n\n"
        '<table class="grid">\n<colgroup>\n<col style="width: 41%" />\n</colgroup>\n<tbody>\n'
        '<tr class="odd">\n<td><img\nsrc="a.png" alt="a_png" /></td>\n<td><p>Clear all\n'
        "layers</p></td>\n</tr>\n<tr>\n<td>F2</td>\n<td><p>Load Gerber files</p></td>\n</tr>\n"
        "</tbody>\n</table>\n\n"
        "## Declaring _program_ variable\n\nText.\n\n"
        "### Node options such as `--harmony`\n\nMore.\n"
    )
    doc = parse_document(body.encode(), "README.md")
    assert [s.title for _, s in doc.root.walk()][1:] == [
        "Tool",
        "Install",
        "Declaring program variable",
        "Node options such as --harmony",
    ]
    assert [(b.kind, b.text) for b in doc.root.children[0].children[0].blocks] == [
        ("paragraph", "Run it."),
        ("list", "- the site\n- Usage"),  # links elsewhere: a list of the text's own
        ("table", " | Clear all layers\nF2 | Load Gerber files"),
    ]
    assert "Table of Contents" not in _block_texts(doc)


def test_markdown_html_block_that_is_not_xml_keeps_its_cyrillic() -> None:
    """`<details><summary>…` is no well-formed XML: read as HTML, its UTF-8 was Latin-1 (the
    word "исходников" stayed "Ð¸Ñ\x81Ñ…Ð¾Ð´" past ftfy) and a warning blamed the file."""
    body = (
        "# Сборка\n\n<details>\n<summary>Подробнее об исходниках</summary>\n\n"
        "Пакеты собирают из исходников.\n\n</details>\n"
    )
    doc = parse_document(body.encode(), "build.md")
    assert _block_texts(doc)[:2] == ["Подробнее об исходниках", "Пакеты собирают из исходников."]
    assert not doc.warnings


def test_markdown_books_front_matter_titles_figures_and_entities() -> None:
    """Markdown books as pandoc, bookdown and Hugo write them: TOML front matter ("+++") was a
    paragraph and the title the file's name; "# Глава 1. Начало" over chapters was the book's
    title; a figure's caption, its image's alt text, was dropped with the badges (and its
    "{#fig:arch width=80%}" kept); "&laquo;", "&nbsp;" stood in the text as written; a
    <details> box's title ran into its text. A file opening with a rule, a heading and text
    up to the next rule lost them as front matter that was no mapping."""
    book = (
        '+++\ntitle = "Руководство"\nweight = 10\n+++\n\n# Глава 1. Начало\n\n'
        "Текст &laquo;в кавычках&raquo;&nbsp;и AT&amp;T, http://x.org/?a=1&notify=1 "
        "&mdash; конец.\n\n![Рис. 3.1. Общая схема архитектуры](arch.png){#fig:arch width=80%}"
        "\n\n[![CI status](https://ci.example.org/badge.svg)](https://ci.example.org)\n\n"
        "<details><summary>Ответ</summary>Сорок два.</details>\n\n"
        "# Глава 2. Продолжение\n\nЕщё текст.\n"
    )
    doc = parse_document(book.encode(), "book.md")
    assert (doc.title, doc.metadata["weight"]) == ("Руководство", 10)
    assert _block_texts(doc) == [
        "Текст «в кавычках»\u00a0и AT&T, http://x.org/?a=1&notify=1 — конец.",
        "Рис. 3.1. Общая схема архитектуры",
        "Ответ",
        "Сорок два.",
        "Ещё текст.",
    ]
    chapters = "# Chapter 1: Getting Started\n\nText.\n\n# Chapter 2: Configuration\n\nMore.\n"
    assert parse_document(chapters.encode(), "guide.md").title == "guide"
    ruled = "---\n\n# Эпиграф\n\nПервый абзац.\n\n---\n\nТекст.\n"
    doc = parse_document(ruled.encode(), "notes.md")
    assert _block_texts(doc) == ["Первый абзац.", "Текст."] and not doc.warnings
    # the closing rule right under a paragraph made that paragraph a heading
    tight = parse_document(
        "---\n# Эпиграф\n\nАбзац один.\nАбзац два.\n---\n\nТекст.\n".encode(), "t.md"
    )
    assert [s.title for _, s in tight.root.walk()][1:] == ["Эпиграф"]
    assert _block_texts(tight) == ["Абзац один.\nАбзац два.", "Текст."]


def test_markdown_site_generators_markup_is_not_text() -> None:
    """Docusaurus' ":::note" boxes, GitBook's "{% hint %}", Hugo's "{{< notice >}}", GitHub's
    "> [!NOTE]" and bookdown's "# (PART) Основы {-}" were indexed as written: the markup's
    words in the text and in the titles; a figure's caption went with its markup. A listing
    showing the markup keeps it."""
    body = (
        "# (PART) Основы {-}\n\n# Введение {-}\n\n:::tip Важно\nТекст заметки.\n:::\n\n"
        '{% hint style="info" %}\nПодсказка.\n{% endhint %}\n\n{{< notice warning >}}\n'
        "Предупреждение.\n{{< /notice >}}\n\n> [!NOTE]\n> Полезное.\n\n"
        '{{< figure src="net.png" caption="Рис. 1. Схема сети" >}}\n\n'
        '{{< notice title="Важно" >}}\nЗаметка.\n{{< /notice >}}\n\n'
        "```markdown\n:::note\nв коде\n:::\n```\n"
    )
    doc = parse_document(body.encode(), "book.md")
    assert [s.title for _, s in doc.root.walk()][1:] == ["Основы", "Введение"]
    assert _block_texts(doc) == [
        "Важно:\nТекст заметки.",
        "Подсказка.",
        "Предупреждение.",
        "> Note:\n> Полезное.",
        "Рис. 1. Схема сети",  # a figure's caption, a box's title
        "Важно:\nЗаметка.",
        "```markdown\n:::note\nв коде\n:::\n```",
    ]


def test_words_hyphenated_at_line_ends_of_text_and_markdown_are_whole() -> None:
    """A book recognised to text, a manual wrapped by hand: "вы-" / "полнение" was two
    halves no search finds; a compound keeps its hyphen ("Build-" / "Depends"), as in PDFs."""
    body = (
        "в котором вы-\nполнение программы под-\nробно описано; поля Build-\nDepends и "
        "Pre-\nDepends, решение case-\nby-case.\n\n> цитата с пере-\n> носом.\n"
    )
    for name in ("book.txt", "book.md"):
        doc = parse_document(body.encode(), name)
        assert _block_texts(doc) == [
            "в котором выполнение программы подробно описано; поля Build-Depends и "
            "Pre-Depends, решение case-by-case.",
            "> цитата с переносом.",
        ]
    # a numbered list's next item is no word's rest
    steps = parse_document(b"Steps:\n1. Install the pre-\n2. Configure it.\n", "steps.txt")
    assert _block_texts(steps) == ["Steps:\n1. Install the pre-\n2. Configure it."]


def test_markdown_footnotes_follow_the_paragraph_citing_them() -> None:
    """A book's notes written at its end ("[^1]: …") were cited under its last chapter and
    read "[^1]:"; one whose text is a single address vanished as a link definition; a code
    span's "[^[:punct:]]" is code."""
    body = (
        "# Глава 1\n\nТолстой писал[^1] о семье[^tolstoy].\n\nЕщё абзац[^2] и "
        '`grep "[^[:punct:]]"`.\n\n# Глава 2\n\nТекст.\n\n'
        "[^1]: «Анна Каренина», 1877.\n[^tolstoy]: Лев Николаевич Толстой.\n"
        "[^2]: https://ru.wikipedia.org/wiki/Tolstoy\n"
    )
    doc = parse_document(body.encode(), "book.md")
    chapters = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert chapters["Глава 1"] == [
        "Толстой писал¹ о семье.",
        "¹ «Анна Каренина», 1877.",
        "tolstoy: Лев Николаевич Толстой.",
        'Ещё абзац² и `grep "[^[:punct:]]"`.',
        "² https://ru.wikipedia.org/wiki/Tolstoy",
    ]
    assert chapters["Глава 2"] == ["Текст."]
    # a note is cited at the paragraph it follows: a chunk of both reached the file's end
    lines = [(b.line_start, b.line_end) for _, s in doc.root.walk() for b in s.blocks]
    assert lines[:3] == [(3, 3)] * 3
    # a note of one address in a paragraph of its own was lost ("here^1"); a reference to no
    # note is text ("[^abc]" of a regular expression: it went)
    body = "See here[^1]. Use [^abc] to match.\n\n[^1]: https://example.org/a\n"
    texts = [b.text for _, s in parse_document(body.encode(), "u.md").root.walk() for b in s.blocks]
    assert texts == ["See here¹. Use [^abc] to match.", "¹ https://example.org/a"]
    # a note's second paragraph, indented under it as pandoc writes it, was a code block
    body = "Текст[^1].\n\n[^1]: Первый абзац.\n\n    Второй абзац\n    сноски.\n\n```\ncode\n```\n"
    blocks = [
        (b.kind, b.text)
        for _, s in parse_document(body.encode(), "n.md").root.walk()
        for b in s.blocks
    ]
    assert blocks == [
        ("paragraph", "Текст¹."),
        ("paragraph", "¹ Первый абзац.\nВторой абзац\nсноски."),
        ("code", "```\ncode\n```"),
    ]


def test_a_manual_page_as_text_has_its_sections() -> None:
    """`man ls > ls.txt`: each title at the margin with its text indented right under it, no
    blank line between, was read as one paragraph with its text: no section at all. A term
    and its definition laid out the same way, or a list's items, stay text."""
    page = (
        "LS(1)                     User Commands                    LS(1)\n\n"
        "ИМЯ\n       ls - выводит список содержимого каталога\n\n"
        "СИНТАКСИС\n       ls [ПАРАМЕТР]... [ФАЙЛ]...\n\n"
        "ОПИСАНИЕ\n       Выводит информацию о ФАЙЛАХ (текущий каталог по умолчанию).\n\n"
        "       -a, --all\n              не скрывать файлы, начинающиеся с .\n\n"
        "СМ. ТАКЖЕ\n       dir(1), vdir(1)\n"
    )
    doc = parse_document(page.encode(), "ls.txt")
    sections = [(s.title, s.level) for _, s in doc.root.walk()][1:]
    assert sections == [("ИМЯ", 1), ("СИНТАКСИС", 1), ("ОПИСАНИЕ", 1), ("СМ. ТАКЖЕ", 1)]
    assert "не скрывать файлы" in " ".join(b.text for b in doc.root.children[2].blocks)
    notes = "- **День 1:**\n   - прочитать\n\n- **День 2:**\n   - написать\n\n"
    notes += "- **День 3:**\n   - проверить\n\nTerm\n    its definition, indented.\n"
    assert [s.title for _, s in parse_document(notes.encode(), "plan.txt").root.walk()] == [""]
    # a definition list in a text whose paragraphs start at the margin (Debian Policy's
    # upgrading checklist as text): the terms are not sections
    changes = "Upgrading checklist\n===================\n\nChanges since 4.6.\nRead them.\n\n"
    for term in ("virtual", "perl", "virtual", "debconf"):
        changes += f"{term}\n   New packages for {term}, and what\n   they provide.\n\n"
    sections = [s.title for _, s in parse_document(changes.encode(), "policy.txt").root.walk()]
    assert sections == ["", "Upgrading checklist"]
