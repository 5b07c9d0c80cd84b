"""EPUBs as converters write them: calibre's (class names renamed after the first element of
each style), pandoc's. Built in code; the probes behind them converted real books."""

from __future__ import annotations

from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.html_blocks import read_xhtml
from mirage_pipeline.parsing.model import ParsedDocument
from tests.unit.test_epub_spine import _epub, _nav


def _book(
    body: str, body_class: str = "", title: str = "История", language: str = "ru"
) -> ParsedDocument:
    """A book of one page, p.xhtml, whose body is `body`, in the TOC as `title`."""
    page = (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"'
        f' xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head>'
        f'<body class="{body_class}">{body}</body></html>'
    )
    nav = _nav(language, [("p.xhtml", title)])
    files = {"nav.xhtml": nav, "p.xhtml": page}
    return parse_document(_epub(files, ["nav.xhtml", "p.xhtml"], language=language), "b.epub")


def _texts(doc: ParsedDocument) -> list[str]:
    return [b.text for _, s in doc.root.walk() for b in s.blocks]


CALIBRE_PAGE = (
    '<div class="toc"><p class="calibre3"><a href="p.xhtml#c1">1. Выпуски 0.x</a></p>'
    '<p class="calibre3"><a href="p.xhtml#c2">2. Выпуски 1.x</a></p></div>'
    '<div class="toc"><h2 class="calibre4" id="c1">1. Выпуски 0.x</h2>'
    '<p class="toc">Разработка Debian была начата Яном Мёрдоком в 1993 году.</p></div>'
    '<div class="toc"><h2 class="calibre4" id="c2">2. Выпуски 1.x</h2>'
    '<p class="calibre5">Первый выпуск с номером 1.1 вышел в 1996 году.</p></div>'
    "<p>Конец истории.</p>"
)


def test_calibre_class_names_do_not_make_chapters_navigation() -> None:
    """calibre names each style after the first element that had it: a DocBook book opens
    with its contents in <div class="toc">, and every later wrapper (and paragraph) of the same
    style is class="toc" too. In its output (body class "calibre") the class no longer says
    navigation; the contents, a block of links, still goes."""
    texts = _texts(_book(CALIBRE_PAGE, "calibre"))
    assert texts == [
        "Разработка Debian была начата Яном Мёрдоком в 1993 году.",
        "Первый выпуск с номером 1.1 вышел в 1996 году.",
        "Конец истории.",
    ]
    # an author's own class="toc" is navigation, as before
    assert _texts(_book(CALIBRE_PAGE)) == ["Конец истории."]


def test_a_run_of_headings_that_are_only_links_is_a_table_of_contents() -> None:
    """A contents page set as headings of links (calibre renamed their "toc" class "toc1",
    "toc2") made a second, empty tree of the book; a section title linking back to the
    contents, alone, stays a title (docutils)."""
    body = (
        '<h4 class="toc1"><a href="p.xhtml#a">1. About this manual</a></h4>'
        '<h5 class="toc2"><a href="p.xhtml#b">1.1 For the impatient</a></h5>'
        '<h5 class="toc2"><a href="p.xhtml#c">1.2 Terms</a></h5>'
        "<p>This manual covers live-build 3.</p>"
        '<h2 id="a"><a href="#top">Usage</a></h2><p>Run the build with lb build.</p>'
    )
    doc = _book(body, "calibre", title="Manual")
    titles = [s.title for _, s in doc.root.walk()]
    assert "Usage" in titles
    assert not {"1. About this manual", "1.1 For the impatient", "1.2 Terms"} & set(titles)
    assert _texts(doc) == ["This manual covers live-build 3.", "Run the build with lb build."]
    # docutils' titles linking back to the contents above them, one right under another
    backlinked = (
        '<h2><a class="toc-backref" href="#c1">Usage</a></h2>'
        '<h3><a class="toc-backref" href="#c2">Building</a></h3>'
        '<h4><a class="toc-backref" href="#c3">Options</a></h4><p>Pass --debug for more.</p>'
    )
    titles = [s.title for _, s in _book(backlinked, title="Manual").root.walk()]
    assert {"Usage", "Building", "Options"} <= set(titles)


def test_pandocs_notes_follow_the_paragraph_that_cites_them() -> None:
    """pandoc's EPUB sets a chapter's notes after its last section as a list (<ol><li
    epub:type="footnote">): they were read as a list filed under the last section. Each now
    follows the paragraph that cites it, behind its number; an EPUB 3 <aside> note too; a
    note nothing cites stays where it is."""
    body = (
        '<section><h1>Асинхронность</h1><p>Он берёт задачу<a href="#fn1" class="footnote-ref"'
        ' epub:type="noteref">1</a> и продолжает работу.</p>'
        "<section><h2>Бургеры</h2><p>Вы ждёте заказ<a href='#fn2' epub:type='noteref'>2</a>"
        ' и кассир<a href="#n3" epub:type="noteref">3</a> зовёт вас.</p>'
        '<aside epub:type="footnote" id="n3"><p>3 Или робот.</p></aside></section></section>'
        '<section epub:type="footnotes"><hr/><ol>'
        '<li id="fn1" epub:type="footnote"><p>Допустим, медленный файл.'
        '<a href="#fnref1" role="doc-backlink">↩︎</a></p></li>'
        '<li id="fn2" epub:type="footnote"><p>По сравнению с процессором.</p></li>'
        '<li id="fn9" epub:type="footnote"><p>Никем не цитируемая.</p></li></ol></section>'
    )
    doc = _book(body, title="Асинхронность")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert sections["Асинхронность"] == [
        "Он берёт задачу¹ и продолжает работу.",
        "¹ Допустим, медленный файл.",
    ]
    assert sections["Бургеры"] == [
        "Вы ждёте заказ² и кассир³ зовёт вас.",
        "² По сравнению с процессором.",
        "3 Или робот.",
        "³ Никем не цитируемая.",
    ]


def test_calibres_cover_page_and_unknown_author_are_no_metadata() -> None:
    """calibre puts its cover page (<title>Cover</title>, an image) first in the spine, and
    writes "Unknown" where the book names no author: a slug's title gave way to "Cover", and
    "Unknown" was an author."""
    cover = (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        '<head><title>Cover</title></head><body><img src="cover.jpg" alt=""/></body></html>'
    )
    page = (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        "<head><title>Debian Developer's Reference</title></head><body class='calibre'>"
        "<h1>1. Scope</h1><p>This reference describes the procedures of the project.</p>"
        "</body></html>"
    )
    nav = _nav("en", [("p.xhtml", "1. Scope")])
    data = _epub(
        {"nav.xhtml": nav, "titlepage.xhtml": cover, "p.xhtml": page},
        ["titlepage.xhtml", "nav.xhtml", "p.xhtml"],
        title="developers-reference",
        creator="Unknown",
    )
    doc = parse_document(data, "devref.epub")
    assert doc.title == "Debian Developer's Reference"
    assert "authors" not in doc.metadata


def _page(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        f"<head><title>Page</title></head><body class='calibre'>{body}</body></html>"
    )


def test_an_entry_pointing_to_the_end_of_a_split_file_starts_the_next_one() -> None:
    """calibre splits a long file where a section begins; each part repeats the section's
    <section id=…>, and the TOC points to the empty copy closing the first part. The entry
    landed after all the text, and the next part, whose heading no entry names, went to the
    end of the book ("INTRODUCTORY", seven paragraphs of a children's anthology)."""
    files = {
        "nav.xhtml": _nav(
            "en",
            [
                ("a.xhtml", "Part One"),
                ("a.xhtml#intro", ">Introductory"),
                ("c.xhtml", ">The Real Princess"),
            ],
        ),
        "a.xhtml": _page(
            "<h1>Part One</h1><p>Stories for the young reader.</p><section id='intro'></section>"
        ),
        "b.xhtml": _page(
            "<section id='intro'><h2>INTRODUCTORY</h2><p>These stories were gathered over many "
            "years.</p></section>"
        ),
        "c.xhtml": _page("<h2>The Real Princess</h2><p>There was once a prince.</p>"),
    }
    data = _epub(files, ["nav.xhtml", "a.xhtml", "b.xhtml", "c.xhtml"])
    doc = parse_document(data, "anthology.epub")
    order = [(s.title, [b.text for b in s.blocks]) for _, s in doc.root.walk()][1:]
    assert order == [
        ("Part One", ["Stories for the young reader."]),
        ("Introductory", ["These stories were gathered over many years."]),
        ("The Real Princess", ["There was once a prince."]),
    ]


def test_a_note_reference_in_a_div_paragraph_is_a_raised_mark() -> None:
    """calibre writes an FB2 book's paragraphs as <div class="paragraph">: a note reference
    there ("<a href=…><sup>[1]</sup></a>") read "Грачевку[1]", as a word."""
    body = (
        "<h1>Полотенце с петухом</h1><div class='paragraph'>Сорок верст, отделяющих уездный "
        "город Грачевку<a href='index_split_010.xhtml#n1' title='Примечание номер 1'>"
        "<sup class='calibre10'>[1]</sup></a> от больницы, ехали мы сутки.</div>"
    )
    assert _texts(_book(body, "calibre", title="Полотенце с петухом")) == [
        "Сорок верст, отделяющих уездный город Грачевку¹ от больницы, ехали мы сутки."
    ]


def test_notes_are_placed_by_links_into_their_own_page_only() -> None:
    """A reference marked by DPUB-ARIA's role (doc-noteref) is a raised mark too; a link to
    another page's "#n1" does not take this page's note n1; a list of which only some items
    are notes is a list."""
    body = (
        "<h1>Notes</h1><p>Alpha<a href='other.xhtml#n1'><sup>1</sup></a>.</p><p>Beta.</p>"
        "<p>Gamma<a role='doc-noteref' href='#n1'>1</a>.</p>"
        '<aside epub:type="footnote" id="n1"><p>1 The note.</p></aside>'
        '<ol><li>Plain item</li><li epub:type="footnote" id="n2">Not alone</li></ol>'
    )
    assert _texts(_book(body, title="Notes", language="en")) == [
        "Alpha¹.",
        "Beta.",
        "Gamma¹.",
        "1 The note.",
        "- Plain item\n- Not alone",
    ]


def test_a_heading_only_title_page_names_the_book_and_calibre_keeps_sphinx_marks_out() -> None:
    """A slug's title gives way to the first page with a heading or text (a title page with
    only its <h1>), not to a chapter after it; in calibre's output a Sphinx heading's "¶" link
    keeps its class and stays out."""
    title_page = _page("<h1>Debian Developer's Reference</h1>").replace(
        "<title>Page</title>", "<title>Debian Developer's Reference</title>"
    )
    chapter = _page("<h1>1. Scope<a class='headerlink' href='#s'>¶</a></h1><p>Procedures.</p>")
    nav = _nav("en", [("t.xhtml", "Title"), ("c.xhtml", "1. Scope")])
    data = _epub(
        {"nav.xhtml": nav, "t.xhtml": title_page, "c.xhtml": chapter},
        ["nav.xhtml", "t.xhtml", "c.xhtml"],
        title="developers-reference",
    )
    doc = parse_document(data, "devref.epub")
    assert doc.title == "Debian Developer's Reference"
    assert "¶" not in " ".join(s.title for _, s in doc.root.walk())


def test_a_link_naming_its_own_page_places_a_note_and_calibres_links_keep_their_words() -> None:
    """A reference written with its page's own file name ("p.xhtml#n1" in p.xhtml) is a
    reference to this page's note; in calibre's output a link outside a heading keeps its
    words whatever its class (the converter's "toc" on an inline link)."""
    body = (
        "<h1>Build</h1><p>Alpha<a href='p.xhtml#n1'><sup>1</sup></a>.</p><p>Beta.</p>"
        '<aside epub:type="footnote" id="n1"><p>1 The note.</p></aside>'
        "<p>See <a class='toc' href='q.xhtml'>the build chapter</a> for the steps.</p>"
    )
    assert _texts(_book(body, "calibre", title="Build", language="en")) == [
        "Alpha¹.",
        "1 The note.",
        "Beta.",
        "See the build chapter for the steps.",
    ]


def test_in_calibres_output_a_heading_keeps_its_navigation_class() -> None:
    """A heading marked navigation (a contents page's "About", "User" set as <h1 class="toc">)
    stays navigation in calibre's output: mistaken, it costs a title, not text."""
    page = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body class="calibre">'
        '<h1 class="toc">About</h1><h1 class="toc">User</h1>'
        '<div class="toc"><h2>1. Scope</h2><p>What the manual covers.</p></div></body></html>'
    )
    events = read_xhtml(page.encode()).events
    assert [e.text for e in events if e.kind == "heading"] == ["1. Scope"]
