"""EPUBs whose spine holds more than the table of contents: other languages, notes, chrome.

The books are written here as ZIP archives (container.xml, OPF, nav, XHTML), shaped after
Sphinx's multilingual EPUBs: an English table of contents, translations in their own folders
with a nav each, navigation bars and a copyright footer on every page.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import ParsedDocument, Section

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

FOOTER = "© Copyright 2010-2024, The Packaging Team. Created using Sphinx."


def _page(
    title: str, body: str, *, nav: tuple[str, str, str] = ("", "", ""), lang: str = ""
) -> str:
    """A Sphinx-like page: related-navigation bars above and below, a footer."""
    heading, forward, back = nav
    related = (
        f'<div class="related" role="navigation"><h3>{heading}</h3><ul>'
        f'<li><a href="b.xhtml" accesskey="N">{forward}</a></li>'
        f'<li><a href="a.xhtml">{back}</a> |</li>'
        f'<li><a href="index.xhtml">Guide</a> &#187;</li></ul></div>'
        if heading
        else ""
    )
    attr = f' lang="{lang}" xml:lang="{lang}"' if lang else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<html xmlns="http://www.w3.org/1999/xhtml"{attr}><head><title>{title}</title></head>'
        f'<body>{related}<div class="body" role="main">{body}</div>{related}'
        f'<div class="footer" role="contentinfo">{FOOTER}</div></body></html>'
    )


def _nav(lang: str, links: list[tuple[str, str]]) -> str:
    """A navigation document; a link text starting with '>' nests under the one before."""
    items = ""
    for href, text in links:
        link = f'<a href="{href}">{text.lstrip(">")}</a>'
        if text.startswith(">"):
            items = items.removesuffix("</li>") + f"<ol><li>{link}</li></ol></li>"
        else:
            items += f"<li>{link}</li>"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"'
        f' lang="{lang}" xml:lang="{lang}"><head><title>Table of Contents</title></head><body>'
        f'<nav epub:type="toc"><h1>Table of Contents</h1><ol>{items}</ol></nav></body></html>'
    )


def _epub(
    files: dict[str, str | bytes],
    spine: list[str],
    *,
    language: str = "en",
    broken: bool = False,
    title: str = "Packaging Guide",
    creator: str = "The Packaging Team",
) -> bytes:
    """An EPUB 3 of `files` (paths under OEBPS/); `nav.xhtml` is the package's nav; spine
    items ending in '?' are linear="no". `broken` names a missing file in the manifest, which
    ebooklib refuses, so the archive is read leniently."""
    manifest = [
        f'<item id="i{n}" href="{path}" media-type="application/xhtml+xml"'
        + (' properties="nav"' if path == "nav.xhtml" else "")
        + "/>"
        for n, path in enumerate(files)
    ]
    if broken:
        manifest.append('<item id="css" href="missing.css" media-type="text/css"/>')
    ids = {path: f"i{n}" for n, path in enumerate(files)}
    refs = [
        f'<itemref idref="{ids[p.rstrip("?")]}"'
        + (' linear="no"' if p.endswith("?") else "")
        + "/>"
        for p in spine
    ]
    opf = f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">test-book</dc:identifier><dc:title>{title}</dc:title>
    <dc:language>{language}</dc:language><dc:creator>{creator}</dc:creator>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>{"".join(manifest)}</manifest>
  <spine>{"".join(refs)}</spine>
</package>"""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("OEBPS/content.opf", opf)
        for path, text in files.items():
            archive.writestr(f"OEBPS/{path}", text)
    return out.getvalue()


EN_INTRO = (
    "<h1>1. Introduction</h1><p>Ubuntu is made of thousands of packages, and this guide "
    "shows how they are built and fixed.</p>"
)
EN_SETUP = (
    "<h1>2. Getting set up</h1><p>There are a number of things you need to do before you "
    "start working on packages.</p><section id='keys'><h2>2.1. Keys</h2><p>Create your GPG "
    "key with the gpg tool; it is used to sign every upload.</p></section>"
)
RU_INTRO = (
    "<h1>1. Введение</h1><p>Ubuntu состоит из тысяч пакетов, и это руководство показывает, "
    "как их собирать и исправлять.</p><h2>1.1. Сообщество</h2><p>Разработчики общаются в "
    "списках рассылки и в чатах.</p>"
)
PT_INTRO = (
    "<h1>1. Introdução</h1><p>O Ubuntu é feito de milhares de pacotes, e este guia mostra "
    "como eles são construídos e corrigidos.</p>"
)
DE_EXTRA = (
    "<h1>Anhang</h1><p>Die Werkzeuge sind in dem Paket ubuntu-dev-tools enthalten, das Sie "
    "mit apt installieren können.</p>"
)


def _multilingual(broken: bool = False) -> bytes:
    ru_nav = ("Навигация", "вперёд", "назад")
    files = {
        "nav.xhtml": _nav(
            "en",
            [
                ("guide/intro.xhtml", "Introduction"),
                ("guide/setup.xhtml", "Getting set up"),
                ("guide/setup.xhtml#keys", ">Keys"),
            ],
        ),
        "guide/intro.xhtml": _page(
            "1. Introduction", EN_INTRO, nav=("Navigation", "next", "previous")
        ),
        "guide/setup.xhtml": _page(
            "2. Getting set up", EN_SETUP, nav=("Navigation", "next", "previous")
        ),
        # A chapter split over two files: no heading, same folder, read on in order.
        "guide/setup-2.xhtml": _page(
            "2. Getting set up", "<p>Then upload the key to Launchpad so that it knows you.</p>"
        ),
        "guide/notes.xhtml": _page(
            "Notes",
            "<h1>Notes</h1><p>These notes were written by the translators of the guide.</p>",
        ),
        "ru/nav.xhtml": _nav("ru", [("guide/intro.xhtml", "Введение")]),
        "ru/guide/intro.xhtml": _page("1. Введение", RU_INTRO, nav=ru_nav),
        "ru/guide/thanks.xhtml": _page(
            "Благодарности",
            "<p>Спасибо всем, кто переводил это руководство на русский язык.</p>",
            nav=ru_nav,
        ),
        "pt_BR/nav.xhtml": _nav("pt-BR", [("guide/intro.xhtml", "Introdução")]),
        "pt_BR/guide/intro.xhtml": _page(
            "1. Introdução", PT_INTRO, nav=("Navegação", "próximo", "anterior")
        ),
        "de/guide/extra.xhtml": _page("Anhang", DE_EXTRA, lang="de"),
    }
    spine = [
        "guide/intro.xhtml",
        "guide/setup.xhtml",
        "guide/setup-2.xhtml",
        "guide/notes.xhtml",
        "ru/nav.xhtml?",
        "ru/guide/intro.xhtml?",
        "ru/guide/thanks.xhtml?",
        "pt_BR/nav.xhtml?",
        "pt_BR/guide/intro.xhtml?",
        "de/guide/extra.xhtml?",
    ]
    return _epub(files, spine, broken=broken)


def _tree(doc: ParsedDocument) -> list[tuple[int, str]]:
    return [(t["level"], t["title"]) for t in doc.toc()]


def _text_under(section: Section) -> str:
    return " ".join(b.text for _, s in section.walk() for b in s.blocks)


def _chunks(doc: ParsedDocument):
    return chunk_document(doc, lambda t: len(t.split()) + 2, ChunkingPolicy.for_window(512))


@pytest.mark.parametrize("broken", [False, True], ids=["ebooklib", "lenient"])
def test_documents_outside_the_toc_get_their_own_sections(broken: bool) -> None:
    doc = parse_document(_multilingual(broken), "guide.epub")
    assert bool(doc.warnings) == broken
    assert _tree(doc) == [
        (1, "1. Introduction"),  # the contents' title, with the number its heading prints
        (1, "2. Getting set up"),
        (2, "2.1. Keys"),
        (1, "Notes"),  # English, but not in the TOC and with a heading of its own
        (1, "1. Введение"),
        (2, "1.1. Сообщество"),
        (1, "Благодарности"),  # no heading: its <title>
        (1, "1. Introdução"),
        (1, "Anhang"),
    ]
    chapters = {s.title: s for s in doc.root.children}
    setup = _text_under(chapters["2. Getting set up"])
    assert "upload the key to Launchpad" in setup  # the split chapter's second file
    for english in ("1. Introduction", "2. Getting set up", "Notes"):
        text = _text_under(chapters[english])
        assert not any("а" <= ch <= "я" for ch in text), english
        assert "pacotes" not in text and "Werkzeuge" not in text


@pytest.mark.parametrize("broken", [False, True], ids=["ebooklib", "lenient"])
def test_navigation_chrome_is_dropped_in_every_language(broken: bool) -> None:
    doc = parse_document(_multilingual(broken), "guide.epub")
    titles = [title for _, title in _tree(doc)]
    assert not {"Navigation", "Навигация", "Navegação", "Table of Contents"} & set(titles)
    text = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    for chrome in ("next", "previous", "вперёд", "назад", "próximo", "anterior", "»", "Copyright"):
        assert chrome not in text
    assert "Create your GPG key" in text and "Спасибо всем" in text


def test_each_document_sets_its_chunks_language() -> None:
    doc = parse_document(_multilingual(), "guide.epub")
    by_chapter = {}
    for chunk in _chunks(doc):
        by_chapter.setdefault(chunk.structure["chapter"], set()).add(chunk.lang)
    assert by_chapter == {
        "1. Introduction": {"en"},
        "2. Getting set up": {"en"},
        "Notes": {"en"},
        "1. Введение": {"ru"},  # from ru/nav.xhtml: the page itself declares nothing
        "Благодарности": {"ru"},
        "1. Introdução": {"pt"},  # pt-BR → pt
        "Anhang": {"de"},  # declared on its <html>
    }


def test_undeclared_documents_take_the_language_of_their_text() -> None:
    files = {
        "nav.xhtml": _nav("en", [("one.xhtml", "One")]),
        "one.xhtml": _page(
            "One", "<h1>One</h1><p>This chapter is in English, as the book says.</p>"
        ),
        "deux.xhtml": _page(
            "Deux",
            "<h1>Deux</h1><p>Ce chapitre est écrit en français, et il ne le dit pas dans son "
            "code : le texte suffit pour le savoir.</p>",
        ),
        # The page template says English, the text is Russian: the alphabet wins.
        "three.xhtml": _page(
            "Три",
            "<h1>Три</h1><p>Эта глава написана по-русски, хотя шаблон говорит иначе.</p>",
            lang="en",
        ),
        "figure.xhtml": _page("Figure", "<p>1914–1918</p>"),  # no words: the book's language
        "quote.xhtml": _page(
            "Quote",
            "<h1>Quote</h1><p>He wrote it down in Latin.</p>"
            '<blockquote xml:lang="la">Omnia mutantur, nihil interit.</blockquote>',
            lang="en",
        ),
    }
    doc = parse_document(
        _epub(files, ["one.xhtml", "deux.xhtml", "three.xhtml", "figure.xhtml", "quote.xhtml"]),
        "book.epub",
    )
    langs = {s.title: {b.lang for b in s.blocks} for _, s in doc.root.walk() if s.blocks}
    assert langs == {
        "One": {"en"},
        "Deux": {"fr"},
        "Три": {"ru"},
        "Figure": {"en"},
        "Quote": {"en", "la"},
    }


def test_repeated_footers_and_link_lists_are_left_out_without_class_names() -> None:
    footer = "<p>Copyright 2024 Example Press. All rights reserved.</p>"
    contents = (
        "<h2>Contents</h2><ul><li><a href='c1.xhtml'>The Start</a></li>"
        "<li><a href='c2.xhtml'>The Middle</a></li></ul>"
    )
    sources = (
        "<h2>Sources</h2><ul><li><a href='https://example.org/a'>The archive</a></li>"
        "<li><a href='https://example.org/b'>The letters</a></li></ul>"
    )
    plain = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>{}</body></html>'
    files = {
        "nav.xhtml": _nav("en", [(f"c{n}.xhtml", f"Chapter {n}") for n in range(1, 5)]),
        "c1.xhtml": plain.format(
            f"<h1>Chapter 1</h1>{contents}<h2>Spring</h2><p>It began in spring.</p>{footer}"
        ),
        "c2.xhtml": plain.format(f"<h1>Chapter 2</h1><p>Summer came.</p>{footer}"),
        "c3.xhtml": plain.format(f"<h1>Chapter 3</h1><p>Autumn was wet.</p>{sources}{footer}"),
        "c4.xhtml": plain.format(f"<h1>Chapter 4</h1><p>Winter ended it.</p>{footer}"),
    }
    doc = parse_document(_epub(files, [f"c{n}.xhtml" for n in range(1, 5)]), "b.epub")
    text = " ".join(b.text for _, s in doc.root.walk() for b in s.blocks)
    assert "Copyright" not in text and "The Start" not in text
    assert "The archive" in text and "It began in spring." in text
    titles = [title for _, title in _tree(doc)]
    assert "Contents" not in titles  # its only content was the link list
    assert "Sources" in titles


def test_a_book_without_repeats_keeps_a_once_only_paragraph() -> None:
    files = {
        "nav.xhtml": _nav("en", [("c1.xhtml", "One"), ("c2.xhtml", "Two")]),
        "c1.xhtml": _page("One", "<h1>One</h1><p>All rights reserved by the narrator.</p>"),
        "c2.xhtml": _page("Two", "<h1>Two</h1><p>All rights reserved by the narrator.</p>"),
    }
    doc = parse_document(_epub(files, ["c1.xhtml", "c2.xhtml"]), "b.epub")
    text = [b.text for _, s in doc.root.walk() for b in s.blocks]
    assert text.count("All rights reserved by the narrator.") == 2  # two documents are not many


def test_toc_entries_on_empty_files_keep_their_sections() -> None:
    files = {
        "nav.xhtml": _nav("en", [("part1.xhtml", "Part One"), ("ch1.xhtml", ">The Start")]),
        "part1.xhtml": '<html xmlns="http://www.w3.org/1999/xhtml"><body><img src="p.png"/></body>'
        "</html>",
        "ch1.xhtml": _page("The Start", "<h1>The Start</h1><p>It began in spring.</p>"),
    }
    doc = parse_document(_epub(files, ["part1.xhtml", "ch1.xhtml"]), "b.epub")
    assert _tree(doc) == [(1, "Part One"), (2, "The Start")]


def test_a_toc_entry_repeating_its_parent_is_not_a_section_of_its_own() -> None:
    """developers-reference-ru, the Ubuntu packaging guide (Sphinx): "Архив Debian" nests an
    "Архив Debian" with the same target, and every passage under it was cited
    "Архив Debian › Архив Debian"."""
    body = (
        '<section id="archive"><h1>Archive</h1><p>The archive holds every package.</p>'
        '<section id="sections"><h2>Sections</h2><p>main, contrib and non-free.</p>'
        "</section></section>"
    )
    nav = _nav(
        "en",
        [
            ("a.xhtml#archive", "Archive"),
            ("a.xhtml#archive", ">Archive"),
            ("a.xhtml#sections", ">Sections"),
        ],
    )
    data = _epub({"nav.xhtml": nav, "a.xhtml": _page("Archive", body)}, ["nav.xhtml", "a.xhtml"])
    doc = parse_document(data, "reference.epub")
    assert _tree(doc) == [(1, "Archive"), (2, "Sections")]


def test_anchors_inside_headings_place_their_toc_entries() -> None:
    """DocBook XSL (tex-refs): `<h2 class="title"><a id="opt"/>2.1 Options</h2>`. The anchor
    inside the heading was not seen, every entry of the file fell back to its start, and
    passages were cited "2 LaTeX › 2.4 Parameters › 2 LaTeX › 2.1 Options › 2.1.3 -ini"."""
    body = (
        '<div class="chapter"><h1 class="title"><a id="latex"></a>2 LaTeX</h1>'
        "<p>LaTeX is a macro package.</p>"
        '<div class="section"><h2 class="title"><a id="opt"></a>2.1 Options</h2>'
        "<p>Options are given on the command line.</p>"
        '<h3 class="title"><a name="ini"></a>2.1.1 -ini</h3><p>Start in INI mode.</p></div>'
        '<div class="section"><h2 class="title"><a id="par"></a>2.2 Parameters</h2>'
        "<p>Parameters tune the layout.</p></div></div>"
    )
    nav = _nav("en", [("c.xhtml#latex", "2 LaTeX"), ("c.xhtml#opt", ">2.1 Options")])
    nav = nav.replace(
        "2.1 Options</a></li>",
        '2.1 Options</a></li><li><a href="c.xhtml#par">2.2 Parameters</a></li>',
    )
    data = _epub({"nav.xhtml": nav, "c.xhtml": _page("LaTeX", body)}, ["nav.xhtml", "c.xhtml"])
    doc = parse_document(data, "tex-refs.epub")
    assert _tree(doc) == [
        (1, "2 LaTeX"),
        (2, "2.1 Options"),
        (3, "2.1.1 -ini"),
        (2, "2.2 Parameters"),
    ]
    under = {s.title: _text_under(s) for _, s in doc.root.walk()}
    assert under["2.2 Parameters"] == "Parameters tune the layout."
    assert under["2.1.1 -ini"] == "Start in INI mode."


def test_a_partly_translated_page_keeps_its_russian_paragraphs_russian() -> None:
    """ubuntu-packaging-guide-ru (Sphinx and gettext): a page without `lang` attributes whose
    untranslated paragraphs outweigh the translated ones is guessed English as a whole; its
    Russian passages were stemmed as English, their words unstemmed and unlemmatized."""
    english = (
        "<p>If you followed the instructions to get set up with Ubuntu development, you "
        "should be all set and ready to go. The tools are in the ubuntu-dev-tools package, "
        "and the source of every package can be fetched with one command.</p>"
    ) * 6
    russian = (
        "<p>Очень важно документировать свои изменения, чтобы разработчики, которые будут "
        "смотреть на код в будущем, не гадали о ваших намерениях. Команда dch -i добавит "
        "новую запись в журнал изменений debian/changelog.</p>"
    )
    body = f"<h1>Fixing a bug</h1><h2>Finding</h2>{english}<h2>Документирование</h2>{russian * 3}"
    nav = _nav("en", [("fix.xhtml", "Fixing a bug")])
    data = _epub(
        {"nav.xhtml": nav, "fix.xhtml": _page("Fixing a bug", body)},
        ["nav.xhtml", "fix.xhtml"],
        language="ru",
    )
    chunks = _chunks(parse_document(data, "guide-ru.epub"))
    assert {c.lang for c in chunks if "If you" in c.content} == {"en"}
    assert [c.lang for c in chunks if "Очень важно" in c.content] == ["ru"]


def test_terms_and_definitions_are_lines_of_their_own() -> None:
    """DocBook XSL writes a variable list with nothing between its elements: the term ran into
    its definition ("\\boldsymbolProduces a bold math symbol", "latin1Linux, Unix")."""
    body = (
        "<h1>Math</h1><dl><dt><span class='term'>\\boldsymbol</span></dt><dd><p>Produces a "
        "bold math symbol.</p></dd><dt>latin1</dt><dd><p>Linux, Unix</p><p>VMS</p></dd></dl>"
    )
    nav = _nav("en", [("m.xhtml", "Math")])
    data = _epub({"nav.xhtml": nav, "m.xhtml": _page("Math", body)}, ["nav.xhtml", "m.xhtml"])
    (block,) = [b for _, s in parse_document(data, "refs.epub").root.walk() for b in s.blocks]
    assert block.text == "\\boldsymbol\nProduces a bold math symbol.\nlatin1\nLinux, Unix\nVMS"


def _one_page_texts(title: str, body: str) -> list[str]:
    """The block texts of a book of one page, `body` under `title`."""
    nav = _nav("en", [("p.xhtml", title)])
    data = _epub({"nav.xhtml": nav, "p.xhtml": _page(title, body)}, ["nav.xhtml", "p.xhtml"])
    return [b.text for _, s in parse_document(data, "p.epub").root.walk() for b in s.blocks]


def test_the_source_line_breaks_of_a_paragraph_are_spaces_its_br_lines() -> None:
    """DocBook's and Sphinx's XHTML wrap paragraphs and items in the source; a browser shows
    those breaks as spaces, and the index kept them ("- в пакете\ndebmake-doc и"). A `<br/>`
    (verse) and a `<pre>` keep their lines."""
    body = (
        "<h1>Docs</h1><p>This guide is available\nin the package and\non the web.</p>"
        "<ul><li>в пакете\ndebmake-doc и</li><li>на веб-сайте\nДокументации Debian.</li></ul>"
        "<p>April is the cruellest month,<br/>breeding\nLilacs</p><pre>make\n  install</pre>"
        "<ul><li><p>Run:</p><pre>make\nmake install</pre></li></ul>"
    )
    assert _one_page_texts("Docs", body) == [
        "This guide is available in the package and on the web.",
        "- в пакете debmake-doc и\n- на веб-сайте Документации Debian.",
        "April is the cruellest month,\nbreeding Lilacs",
        "make\n  install",
        "- Run:\nmake\nmake install",  # a <pre> inside an item keeps its lines too
    ]


def test_footnote_references_read_as_raised_marks_not_words() -> None:
    """Sphinx's EPUB (Debian Policy) links each footnote with its number: "must be
    conversant. 1 If one person" read a stray "1" into the sentence; pandoc's and EPUB 3's
    note references the same."""
    body = (
        "<h1>Scope</h1><p>The developers must be conversant. <a class='footnote-reference "
        "brackets' href='#id6'>1</a> If one person maintains several packages<a "
        "class='footnote-ref' href='#fn2'><sup>[2]</sup></a>, they should say so.</p>"
    )
    assert _one_page_texts("Scope", body) == [
        "The developers must be conversant.¹ If one person maintains several packages², they "
        "should say so."
    ]


def test_a_slug_for_a_title_gives_way_to_the_first_page_title() -> None:
    """developers-reference (Sphinx): `dc:title` is the project's name, "developers-reference";
    the first page's <title> is "Debian Developer's Reference"."""
    files = {
        "nav.xhtml": _nav("en", [("index.xhtml", "Reference")]),
        "index.xhtml": _page("Debian Developer's Reference", "<h1>Scope</h1><p>It covers all.</p>"),
    }
    spine = ["nav.xhtml", "index.xhtml"]
    slug = _epub(files, spine, title="developers-reference")
    assert parse_document(slug, "d.epub").title == "Debian Developer's Reference"
    assert parse_document(_epub(files, spine), "d.epub").title == "Packaging Guide"


def test_epub_zipped_from_the_folder_above_it_is_read() -> None:
    """Debian Edu's Audacity manual: every path of the archive starts with "epub/", so
    META-INF/container.xml was "missing" and the book an error."""
    files = {
        "nav.xhtml": _nav("uk", [("index.xhtml", "Посібник")]),
        "index.xhtml": _page("Посібник", "<h1>Плаґіни</h1><p>Існує кілька плаґінів.</p>"),
    }
    flat = zipfile.ZipFile(io.BytesIO(_epub(files, ["nav.xhtml", "index.xhtml"])))
    nested = io.BytesIO()
    with zipfile.ZipFile(nested, "w") as out:
        for name in flat.namelist():
            out.writestr(f"epub/{name}", flat.read(name))
    doc = parse_document(nested.getvalue(), "audacity.epub")
    assert doc.title == "Packaging Guide"
    assert "Існує кілька плаґінів." in [b.text for _, s in doc.root.walk() for b in s.blocks]


def test_text_between_the_blocks_of_a_div_is_kept_whole() -> None:
    """Text outside <p> inside a <div> lost its inline elements, or all of it: Sphinx's
    signatures ("<code>new-preinst</code> install <em>old-version</em>" came out "install"),
    Double Commander's command names in <div><span>, the Live Manual's <li> items in a <div>
    (182 of them). Numbers set beside the text (line numbers, sisu's paragraph labels, a
    note's reference mark) are not text; an anchor in the run still marks its place."""
    body = (
        '<div class="section"><code>new-preinst</code> install <em>old-version</em>'
        " <em>new-version</em></div>"
        '<div class="cmdname"><span>cm_OpenVirtualFileSystemList</span></div>'
        '<div class="substance"><label class="ocn"><a href="#o13">13</a></label>'
        '<li class="bullet" id="o13"><b>Live system</b>: boots without installation.</li></div>'
        '<div>And went on in sunlight, into the Hofgarten,<span class="lnum">10</span></div>'
        '<div>Son of man,<a epub:type="noteref" href="#n1">*</a></div>'
        '<div><span id="later"></span><h2>Later</h2><p>The last words.</p></div>'
    )
    files = {
        "nav.xhtml": _nav("en", [("index.xhtml", "Scripts"), ("index.xhtml#later", "Later")]),
        "index.xhtml": _page("Scripts", f"<h1>Scripts</h1>{body}"),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "index.xhtml"]), "policy.epub")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert sections["Scripts"] == [
        "new-preinst install old-version new-version",
        "cm_OpenVirtualFileSystemList",
        "Live system: boots without installation.",
        "And went on in sunlight, into the Hofgarten,",
        "Son of man,",
    ]
    assert sections["Later"] == ["The last words."]


def test_a_table_inside_a_table_cell_is_not_read_twice() -> None:
    """Double Commander's help sets key tables inside the cells of a layout table: each inner
    row came out in its cell and again as a row of the outer table (+6 % of the book)."""
    inner = "<table><tr><td>F5</td><td>Copy</td></tr><tr><td>F6</td><td>Move</td></tr></table>"
    body = f"<table><tbody><tr><td>Keys</td><td>{inner}</td></tr></tbody></table>"
    files = {
        "nav.xhtml": _nav("en", [("index.xhtml", "Keys")]),
        "index.xhtml": _page("Keys", f"<h1>Keys</h1>{body}"),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "index.xhtml"]), "dc.epub")
    (table,) = [b.text for _, s in doc.root.walk() for b in s.blocks]
    assert table.count("F5") == 1 and table.startswith("Keys | F5")


def test_sphinx_section_numbers_stay_in_the_titles() -> None:
    """Debian Policy's EPUB numbers its headings ("2.2. Archive areas") but not its contents:
    the sections were "Archive areas", and a citation of "Policy 2.2" matched nothing."""
    body = (
        '<section id="archive"><h1><span class="section-number">2. </span>The Debian Archive'
        '</h1><p>It has areas.</p><section id="areas"><h2><span class="section-number">2.2. '
        "</span>Archive areas</h2><p>Main and contrib.</p></section></section>"
    )
    links = [("index.xhtml#archive", "The Debian Archive"), ("index.xhtml#areas", ">Archive areas")]
    files = {
        "nav.xhtml": _nav("en", links),
        "index.xhtml": _page("The Debian Archive", body),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "index.xhtml"]), "policy.epub")
    titles = [s.title for _, s in doc.root.walk() if s.title]
    assert titles == ["2. The Debian Archive", "2.2. Archive areas"]


def test_a_boxed_notes_heading_is_not_a_section() -> None:
    """debmake-doc (DocBook): `<div class="tip"><h3 class="title">Tip</h3>…</div>` opened a
    section "Tip" that took the text after the box (22 of 24 such paragraphs); the title
    page's author made a section the licence went under."""
    body = (
        '<div class="titlepage"><h3 class="author">Osamu Aoki</h3></div>'
        "<p>Permission is granted.</p>"
        "<h2>4.6. The first build</h2><p>Run debmake.</p>"
        '<div class="tip"><h3 class="title">Tip</h3><p>Use -x1 for a minimal package.</p></div>'
        "<p>The output of debmake is verbose.</p>"
    )
    files = {
        "nav.xhtml": _nav("en", [("index.xhtml", "A simple example")]),
        "index.xhtml": _page("A simple example", f"<h1>A simple example</h1>{body}"),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "index.xhtml"]), "debmake.epub")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert "Tip" not in sections and "Osamu Aoki" not in sections
    assert sections["4.6. The first build"] == [
        "Run debmake.",
        "Tip",
        "Use -x1 for a minimal package.",
        "The output of debmake is verbose.",
    ]


LONG_RU = "Программа установки спросит, какие пакеты поставить, и скачает их из архива."


def test_a_page_that_is_not_xml_and_names_no_encoding_is_read_as_utf8() -> None:
    """A page with an HTML entity (`&nbsp;`: not XML) and no XML declaration is read by the
    HTML parser, which took its UTF-8 for Latin-1: "ÐŸÑ€Ð¸" for "При" (ftfy mended most of
    it, with a warning about the book's encoding). A page stating its charset is read in it."""
    body = "<h1>{0}</h1><p>Пакеты&nbsp;собирают из исходников.</p>"
    page = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><head>{1}<title>{0}</title></head>'
        f"<body>{body}</body></html>"
    )
    stated = page.format("Сборка", '<meta charset="windows-1251"/>').encode("windows-1251")
    files = {
        "nav.xhtml": _nav(
            "ru", [("a.xhtml", "Введение"), ("b.xhtml", "Сборка"), ("c.xhtml", "Установка")]
        ),
        "a.xhtml": page.format("Введение", ""),
        "b.xhtml": stated,
        # Windows-1251 undeclared: read as Latin-1 ("Óñòàíîâêà"), its heading missed the
        # contents' and the chapter was there twice, "Установка › Установка"
        "c.xhtml": (
            '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Установка</title></head>'
            f"<body><h1>Установка</h1><p>{LONG_RU}</p></body></html>"
        ).encode("windows-1251"),
    }
    spine = ["nav.xhtml", "a.xhtml", "b.xhtml", "c.xhtml"]
    doc = parse_document(_epub(files, spine), "guide.epub")
    sections = [(s.title, [b.text for b in s.blocks]) for _, s in doc.root.walk()][1:]
    assert sections[:2] == [
        (title, ["Пакеты собирают из исходников."]) for title in ("Введение", "Сборка")
    ]
    assert sections[2:] == [("Установка", [LONG_RU])]
    assert not doc.warnings


def test_named_entities_under_an_xhtml_doctype_are_their_characters() -> None:
    """Sigil's and InDesign's EPUB 2 pages declare XHTML 1.1's DTD: the XML parser accepted
    "&nbsp;", "&mdash;" undefined and dropped them ("Здравствуйте, сказал он.Войнаимир").
    A windows-1251 page whose XML declaration states it, sent to the HTML parser, was read
    as U+FFFD. Lines of a poem set in a <div> with <br/> were glued ("чудесный!Еще")."""
    doctype = (
        '<?xml version="1.0" encoding="{0}"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN"'
        ' "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">\n'
    )
    body = (
        "<h1>{0}</h1><p>&mdash;&nbsp;Здравствуйте,&nbsp;&mdash; сказал он. &laquo;Война"
        "&nbsp;и&nbsp;мир&raquo;, 20&nbsp;&deg;C, AT&amp;T.</p>"
        '<div class="stanza">Мороз и солнце; день чудесный!<br/>Еще ты дремлешь</div>'
    )
    page = '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{0}</title></head><body>'
    first = doctype.format("utf-8") + page.format("Глава 1") + body.format("Глава 1")
    # an unclosed <p>: not XML, read as HTML in the declared encoding
    second = doctype.format("windows-1251") + page.format("Глава 2") + body.format("Глава 2")
    files = {
        "nav.xhtml": _nav("ru", [("a.xhtml", "Глава 1"), ("b.xhtml", "Глава 2")]),
        "a.xhtml": first + "</body></html>",
        "b.xhtml": (second + "<p>Конец</body></html>").encode("windows-1251"),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "a.xhtml", "b.xhtml"]), "novel.epub")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    expected = [
        "— Здравствуйте, — сказал он. «Война и мир», 20 °C, AT&T.",
        "Мороз и солнце; день чудесный! Еще ты дремлешь",
    ]
    assert sections["Глава 1"] == expected
    assert sections["Глава 2"] == [*expected, "Конец"]
    assert not doc.warnings


def test_chapters_titled_by_their_number_alone_are_sections() -> None:
    """A novel whose contents list its parts only: each chapter's heading is "Глава 1",
    "III" or "5" — and was dropped as "a bare number above the real heading", the whole part
    one section (as were one-word titles of Roman letters: "Civil", "Mix"). A number over the
    real title stays no section of its own, and the contents' "Глава 2. Утро" takes its
    "Глава 2" heading."""
    part = (
        "<h1>Часть первая</h1><h2>Глава 1</h2><p>Текст первой главы.</p><h2>III</h2>"
        "<p>Текст третьей.</p><h2>Civil</h2><p>Гражданская.</p><h2>Mix</h2><h3>Начало</h3>"
        "<p>Смесь.</p><h2>190</h2><h2>Конец</h2>"
        "<p>Последняя.</p>"
    )
    second = "<h2>Глава 2</h2><p>Текст второй части.</p>"
    files = {
        "nav.xhtml": _nav("ru", [("a.xhtml", "Часть первая"), ("b.xhtml", "Глава 2. Утро")]),
        "a.xhtml": _page("Часть первая", part),
        "b.xhtml": _page("Глава 2", second),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "a.xhtml", "b.xhtml"]), "novel.epub")
    sections = [(s.level, s.title, [b.text for b in s.blocks]) for _, s in doc.root.walk()]
    assert sections[1:] == [
        (1, "Часть первая", []),
        (2, "Глава 1", ["Текст первой главы."]),
        (2, "III", ["Текст третьей."]),
        (2, "Civil", ["Гражданская."]),
        (2, "Mix", []),  # over a heading of its own: a title, not a number
        (3, "Начало", ["Смесь."]),
        (2, "Конец", ["Последняя."]),
        (1, "Глава 2. Утро", ["Текст второй части."]),
    ]


def test_unmarked_note_references_are_raised_numbers() -> None:
    """Most converters mark a note reference by nothing but a raised link ("Слово<a
    href="#n5"><sup>5</sup></a>", DocBook's "<sup>[<a href="#ftn.1">1</a>]</sup>"): its
    number was glued to the word ("Слово5", no search finds it) or stood as "[1]". A raised
    link that is no number ("рис. <sup>2</sup>" as a link, a letter) keeps its text."""
    body = (
        '<p>Опытный пользователь<sup>[<a href="#ftn1" id="r1">1</a>]</sup> и слово<a '
        'href="notes.xhtml#n5"><sup>5</sup></a>, см. <a href="#s2">раздел 2</a>, <a href="#f2">'
        'рис. <sup>2</sup></a> и x<a href="#a"><sup>a</sup></a>.</p>'
        '<div class="footnote"><p><sup>[<a href="#r1" id="ftn1">1</a>]</sup> Немного о Unix.'
        "</p></div>"
    )
    files = {
        "nav.xhtml": _nav("ru", [("a.xhtml", "Введение")]),
        "a.xhtml": _page("Введение", f"<h1>Введение</h1>{body}"),
    }
    doc = parse_document(_epub(files, ["nav.xhtml", "a.xhtml"]), "guide.epub")
    (section,) = [s for _, s in doc.root.walk() if s.title == "Введение"]
    assert [b.text for b in section.blocks] == [
        "Опытный пользователь¹ и слово⁵, см. раздел 2, рис. 2 и xa.",
        "¹ Немного о Unix.",
    ]


def test_an_anchor_inside_a_sentence_of_a_div_does_not_cut_it() -> None:
    """calibre's books set text in <div>s with "filepos" anchors, pages with "page_5" ones,
    anywhere: each anchor ended a paragraph, mid-sentence ("Начало предложения" /
    "продолжение"). One after a sentence's end still starts the section a contents entry
    points to."""
    body = (
        '<div class="calibre1">Начало предложения <a id="filepos1234"></a>продолжение и '
        '<span id="page_5"></span>конец. <a id="ch2"></a>Вторая глава начинается здесь.</div>'
    )
    links = [("a.xhtml", "Первая"), ("a.xhtml#ch2", "Вторая")]
    files = {"nav.xhtml": _nav("ru", links), "a.xhtml": _page("Первая", body)}
    doc = parse_document(_epub(files, ["nav.xhtml", "a.xhtml"]), "book.epub")
    sections = {s.title: [b.text for b in s.blocks] for _, s in doc.root.walk()}
    assert sections["Первая"] == ["Начало предложения продолжение и конец."]
    assert sections["Вторая"] == ["Вторая глава начинается здесь."]
