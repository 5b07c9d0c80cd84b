"""Plain text gets a structure from its layout: headings, printed contents, separators, code."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirage_pipeline.parsing import ParsedDocument, parse_document

ANSWER = (
    "    The answer runs over a few lines of text, indented like the rest of the\n"
    "    body, and it says something worth finding with a question later on.\n"
)


def _parse(text: str) -> ParsedDocument:
    return parse_document(text.encode(), "book.txt")


def _toc(doc: ParsedDocument) -> list[tuple[int, str, int]]:
    return [(e["level"], e["title"], e["line"]) for e in doc.toc()]


def _levels(doc: ParsedDocument) -> list[tuple[int, str]]:
    return [(level, title) for level, title, _ in _toc(doc)]


def _line(text: str, start: str) -> int:
    """The 1-based number of the first line of `text` that starts with `start`."""
    return next(n for n, line in enumerate(text.split("\n"), 1) if line.startswith(start))


def _text(doc: ParsedDocument) -> str:
    return "\n".join(b.text for _, s in doc.root.walk() for b in s.blocks)


FAQ = f"""
             The Frequently Asked Questions

---------------------------------------------------------------------

Contents

1. Basics
    1.1. What is this?
    1.2. Why would anybody read a document that asks so many questions
    at once?
2. Details
    2.1. Where next?

Chapter 1. Basics

1.1. What is this?

{ANSWER}
1.2. Why would anybody read a document that asks so many questions at
once?

{ANSWER}
Chapter 2. Details

2.1. Where next?

{ANSWER}
    $ apt-get install the-faq

    * * *
"""


def test_numbered_headings_wrapped_and_contents_dropped() -> None:
    doc = _parse(FAQ)
    assert _toc(doc) == [
        (1, "Chapter 1. Basics", _line(FAQ, "Chapter 1.")),
        (2, "1.1. What is this?", _line(FAQ, "1.1.")),
        (
            2,
            "1.2. Why would anybody read a document that asks so many questions at once?",
            _line(FAQ, "1.2."),
        ),
        (1, "Chapter 2. Details", _line(FAQ, "Chapter 2.")),
        (2, "2.1. Where next?", _line(FAQ, "2.1.")),
    ]
    text = _text(doc)
    assert "Contents" not in text and "1.1. What is this?" not in text  # printed contents gone
    assert "* * *" not in text and "-----" not in text  # separators are not text
    chapter2 = doc.root.children[1].children[0]
    assert [b.kind for b in chapter2.blocks] == ["paragraph", "code"]
    assert chapter2.blocks[0].text.startswith("The answer runs")  # dedented
    first = _line(FAQ, "2.1.") + 2
    assert (chapter2.blocks[0].line_start, chapter2.blocks[0].line_end) == (first, first + 1)


def test_setext_underlines_rank_by_first_appearance() -> None:
    doc = _parse(
        "Installing\n==========\n\nRead this first.\n\n"
        "Requirements\n------------\n\nA computer.\n\n"
        "Steps\n-----\n\nRun the installer.\n\n"
        "Using it\n========\n\nStart it.\n"
    )
    assert _toc(doc) == [
        (1, "Installing", 1),
        (2, "Requirements", 6),
        (2, "Steps", 11),
        (1, "Using it", 16),
    ]
    assert "=====" not in _text(doc) and "Run the installer." in _text(doc)


def test_rst_title_lined_over_and_under() -> None:
    doc = _parse("======\n CARE\n======\n\nSynopsis\n========\n\ncare [option] command\n")
    assert _toc(doc) == [(1, "CARE", 1), (2, "Synopsis", 5)]


def test_capital_headings_and_roman_parts() -> None:
    paragraph = "It was a bright cold day in April, and the clocks were striking thirteen.\n"
    text = (
        f"THE FIRST STORY\n\nI.\n\n{paragraph}\nII.\n\n{paragraph}\n"
        f'"STOP THERE."\n\n{paragraph}\nRAID0\n\n{paragraph}\n\n\n'
        f"THE SECOND STORY\n\n{paragraph}"
    )
    assert _toc(_parse(text)) == [
        (1, "THE FIRST STORY", 1),
        (2, "I.", 3),
        (2, "II.", 7),
        (1, "THE SECOND STORY", _line(text, "THE SECOND")),
    ]
    doc = _parse(text)
    assert '"STOP THERE."' in _text(doc) and "RAID0" in _text(doc)  # dialogue and terms stay


def test_gutenberg_chapter_with_its_title_on_the_next_line() -> None:
    body = "Alice was beginning to get very tired of sitting by her sister.\n"
    doc = _parse(
        f"CHAPTER I.\nDown the Rabbit-Hole\n\n{body}\nCHAPTER II.\nThe Pool of Tears\n\n{body}"
    )
    assert _toc(doc) == [
        (1, "CHAPTER I. Down the Rabbit-Hole", 1),
        (1, "CHAPTER II. The Pool of Tears", 6),
    ]


def test_parts_sit_above_chapters_and_appendices_follow() -> None:
    body = "Some text of the book that is long enough to be a paragraph.\n"
    doc = _parse(
        f"Part I\n\nChapter 1\n\n{body}\nChapter 2\n\n{body}\n"
        f"Part II\n\nChapter 3\n\n{body}\nAppendix A. Tables\n\n{body}\nA.1. Sizes\n\n{body}"
    )
    assert _levels(doc) == [
        (1, "Part I"),
        (2, "Chapter 1"),
        (2, "Chapter 2"),
        (1, "Part II"),
        (2, "Chapter 3"),
        (2, "Appendix A. Tables"),
        (3, "A.1. Sizes"),
    ]


def test_prose_and_lists_are_not_headings() -> None:
    doc = _parse(
        "Pancakes\n\n"
        "2 cups of flour and a pinch of salt go into the bowl first\n\n"
        "Short Capitalised Line\n\n"
        "1. Mix the flour.\n\n"
        "Then the milk goes in, slowly, while you whisk.\n\n"
        "2. Add the eggs.\n\n"
        "1. Download the tarball\n\n2. Unpack it\n\n3. Run make\n\n"
        "Chapter 3 explains the rest of the process in detail.\n"
    )
    assert doc.toc() == []
    blocks = [b.text for b in doc.root.blocks]
    assert "2 cups of flour and a pinch of salt go into the bowl first" in blocks
    assert "Short Capitalised Line" in blocks and "3. Run make" in blocks


def test_numbered_list_items_between_numbered_headings() -> None:
    body = "This section explains one thing and then it stops explaining it.\n"
    doc = _parse(
        f"1. Introduction\n\n{body}\n"
        "   1. a first step of the list\n\n   2. a second step\n\n"
        f"2. Usage\n\n{body}\n2.1. Options\n\n{body}\n3. Limits\n\n{body}"
    )
    assert [title for _, title, _ in _toc(doc)] == [
        "1. Introduction",
        "2. Usage",
        "2.1. Options",
        "3. Limits",
    ]


def test_rfc_page_furniture_and_margin_titles() -> None:
    body = "   The protocol carries packets between two peers over a reliable\n   stream.\n"
    page = "Author                     Informational                      [Page {n}]\n\f\n"
    header = "RFC 9999                      Example                       May 2024\n"
    text = (
        f"\n\nAbstract\n\n{body}\nTable of Contents\n\n"
        "   1. Introduction . . . . . . . . . . . . . . . . . . . . . . .   2\n"
        "   2. Packets  . . . . . . . . . . . . . . . . . . . . . . . . .   2\n"
        "   3. Security Considerations  . . . . . . . . . . . . . . . . .   3\n"
        "   Author's Address  . . . . . . . . . . . . . . . . . . . . . .   3\n\n"
        f"{page.format(n=1)}{header}\n"
        f"1. Introduction\n\n{body}\n2. Packets\n\n{body}\n"
        f"{page.format(n=2)}{header}\n{body}\n"
        f"3. Security Considerations\n\n{body}\n"
        f"{page.format(n=3)}{header}\n"
        f"Author's Address\n\n   Jane Doe\n   Example Org\n"
    )
    doc = _parse(text)
    assert _levels(doc) == [
        (1, "Abstract"),
        (1, "1. Introduction"),
        (1, "2. Packets"),
        (1, "3. Security Considerations"),
        (1, "Author's Address"),
    ]
    everything = _text(doc)
    assert "[Page" not in everything and "RFC 9999" not in everything
    assert ". . ." not in everything and "Table of Contents" not in everything


def test_indented_code_and_indented_prose() -> None:
    prose = "The text of this guide runs flush with the margin,\nover two lines or more.\n\n"
    doc = _parse(
        f"{prose}Build it like this:\n\n"
        "    int main(void) {\n        return 0;\n    }\n\n"
        "    An indented paragraph of prose is a quotation of some kind, and it\n"
        "    stays an ordinary paragraph of the text, whatever its margin.\n\n"
        f"{prose}# apt-get install build-essential\n"
    )
    kinds = ["paragraph", "paragraph", "code", "paragraph", "paragraph", "code"]
    assert [b.kind for b in doc.root.blocks] == kinds
    assert doc.root.blocks[2].text == "int main(void) {\n    return 0;\n}"


def test_a_file_of_separators_only() -> None:
    from mirage_pipeline.parsing import ParseError

    with pytest.raises(ParseError, match="no text to index"):
        _parse("-----\n\n* * *\n\n=====\n")


@pytest.mark.corpus
def test_gpl3_sections_from_the_corpus(corpus: Path) -> None:
    """A real plain text: the GPL's numbered sections with Title-Cased titles, its preamble
    left at the top, and the numbered paragraph inside section 5 not taken for a section."""
    doc = parse_document((corpus / "LICENSES" / "GPL-3.txt").read_bytes(), "GPL-3.txt")
    toc = _toc(doc)
    assert [title for _, title, _ in toc][:3] == [
        "0. Definitions.",
        "1. Source Code.",
        "2. Basic Permissions.",
    ]
    assert len(toc) == 18 and {level for level, _, _ in toc} == {1}
    assert toc[-1][1] == "17. Interpretation of Sections 15 and 16."
    assert doc.root.blocks[0].text.startswith("GNU GENERAL PUBLIC LICENSE\n")
    assert "TERMS AND CONDITIONS" in _text(doc) and "Preamble" in _text(doc)


def test_russian_chapters_questions_and_appendix() -> None:
    body = (
        "    Ответ на вопрос занимает несколько строк текста с отступом, как\n    всё остальное.\n"
    )
    doc = _parse(
        f"Глава 1. Введение\n\n1.1. Что это такое?\n\n{body}\n1.2. Зачем это нужно?\n\n{body}\n"
        f"Глава 2. Установка\n\n2.1. Где взять?\n\n{body}\n"
        f"Приложение А. Таблицы\n\nА.1. Размеры\n\n{body}"
    )
    assert _levels(doc) == [
        (1, "Глава 1. Введение"),
        (2, "1.1. Что это такое?"),
        (2, "1.2. Зачем это нужно?"),
        (1, "Глава 2. Установка"),
        (2, "2.1. Где взять?"),
        (1, "Приложение А. Таблицы"),
        (2, "А.1. Размеры"),
    ]


def test_ukrainian_chapters_and_appendix() -> None:
    """lshort-ukr: "Розділ 2", "Додаток А" head chapters as "Глава" and "Приложение" do."""
    body = "    Відповідь займає кілька рядків тексту з відступом, як\n    усе інше.\n"
    doc = _parse(
        f"Розділ 1. Вступ\n\n1.1. Що це таке?\n\n{body}\n"
        f"Розділ 2. Набір тексту\n\n2.1. Абзаци\n\n{body}\n"
        f"Додаток А. Таблиці\n\nА.1. Розміри\n\n{body}"
    )
    assert _levels(doc) == [
        (1, "Розділ 1. Вступ"),
        (2, "1.1. Що це таке?"),
        (1, "Розділ 2. Набір тексту"),
        (2, "2.1. Абзаци"),
        (1, "Додаток А. Таблиці"),
        (2, "А.1. Розміри"),
    ]


def test_chapter_sections_numbered_from_one_again_go_under_their_chapter() -> None:
    """The Mutt manual's text dump: "Chapter 2. Getting Started", then "1. Core Concepts",
    "2. Screens and Menus", "2.1. Index" — each chapter numbers from 1 again, and its sections
    were siblings of the chapters, their citations ambiguous. Sections numbered by their
    chapter ("2.1." under "Chapter 2.") keep their depth."""
    body = "    The text of the section runs over a couple of lines, indented as\n    the rest.\n"
    contents = (
        "Table of Contents\n\n1. Introduction\n    1. Home Page\n    2. Mailing Lists\n"
        "2. Getting Started\n    1. Core Concepts\n    2. Screens and Menus\n        2.1. Index\n"
        "3. Configuration\n    3.1. Locations\n\n"
    )
    doc = _parse(
        f"{contents}Chapter 1. Introduction\n\n1. Home Page\n\n{body}\n"
        f"2. Mailing Lists\n\n{body}\n"
        f"Chapter 2. Getting Started\n\n1. Core Concepts\n\n{body}\n"
        f"2. Screens and Menus\n\n{body}\n2.1. Index\n\n{body}\n"
        f"Chapter 3. Configuration\n\n3.1. Locations\n\n{body}"
    )
    assert _levels(doc) == [
        (1, "Chapter 1. Introduction"),
        (2, "1. Home Page"),
        (2, "2. Mailing Lists"),
        (1, "Chapter 2. Getting Started"),
        (2, "1. Core Concepts"),
        (2, "2. Screens and Menus"),
        (3, "2.1. Index"),
        (1, "Chapter 3. Configuration"),
        (2, "3.1. Locations"),
    ]


def test_a_recurring_note_title_stays_under_its_numbered_section() -> None:
    """The FHS's text dump: "LSB Workgroup, The Linux Foundation" on the title page set the
    margin style a top level, and each of its 27 "Rationale" notes became a chapter with the
    numbered sections after it as children."""
    body = "    The text of the section runs over a couple of lines, indented as\n    the rest.\n"
    doc = _parse(
        f"Filesystem Hierarchy Standard\n\nLSB Workgroup\n\n{body}\n"
        f"1. Introduction\n\n{body}\nRationale\n\n{body}\n"
        f"2. The Root Filesystem\n\n{body}\n2.1. Purpose\n\n{body}\nRationale\n\n{body}\n"
        f"2.2. Requirements\n\n{body}\nRationale\n\n{body}\n"
    )
    assert _levels(doc)[-7:] == [
        (1, "1. Introduction"),
        (2, "Rationale"),
        (1, "2. The Root Filesystem"),
        (2, "2.1. Purpose"),
        (3, "Rationale"),
        (2, "2.2. Requirements"),
        (3, "Rationale"),
    ]


def test_sphinx_bulleted_contents_set_apart_by_blank_lines_are_dropped() -> None:
    """developers-reference-ru.txt: Sphinx writes its contents as list items with a blank line
    between each, so no run of lines looked like contents; it was indexed as 12 chunks."""
    entries = ["1. Scope", "2. Applying", "2.1. Getting started", "2.2. Mentors", "3. Duties"]
    contents = "\n\n".join(("  " if "." in e.split()[0][:-1] else "") + f"* {e}" for e in entries)
    sections = "\n\n".join(f"{e}\n{'*' * len(e)}\n\n{ANSWER}" for e in entries)
    text = f"Developer's Reference\n*********************\n\n{contents}\n\n\n{sections}"
    doc = _parse(text)
    assert [t for _, t, _ in _toc(doc)][-5:] == entries
    body = _text(doc)
    assert "* 2.1." not in body and "Getting started" not in body
    assert body.count("The answer runs") == 5


def test_a_heading_spaced_otherwise_than_its_contents_entry_is_found() -> None:
    """OFL-FAQ.txt: the contents lists "2  USING OFL FONTS FOR WEB PAGES AND ONLINE WEB FONT
    SERVICES", the body says "WEBPAGES"; the heading was not taken and its eleven chunks were
    cited under section 1."""
    titles = [
        "USING AND DISTRIBUTING FONTS LICENSED UNDER THE OFL",
        "USING OFL FONTS FOR WEB PAGES AND ONLINE WEB FONT SERVICES",
        "MODIFYING OFL-LICENSED FONTS",
    ]
    contents = "\n".join(f"{n}  {t}" for n, t in enumerate(titles, 1))
    body = "\n\n".join(
        f"{n}  {t.replace('WEB PAGES', 'WEBPAGES')}\n\n{n}.1  Can I use the fonts for a book?\n"
        f"{ANSWER}\n\n{n}.2  Is any kind of acknowledgement required?\n{ANSWER}"
        for n, t in enumerate(titles, 1)
    )
    doc = _parse(f"OFL FAQ\n\n\nCONTENTS OF THIS FAQ\n{contents}\n\n{body}\n")
    assert [t for level, t, _ in _toc(doc) if level == 1] == [
        "1 USING AND DISTRIBUTING FONTS LICENSED UNDER THE OFL",
        "2 USING OFL FONTS FOR WEBPAGES AND ONLINE WEB FONT SERVICES",
        "3 MODIFYING OFL-LICENSED FONTS",
    ]


def test_the_first_line_titles_the_text_when_it_reads_as_a_title() -> None:
    """OFL-FAQ.txt, install.ru.txt, debian-faq.ru.txt open with their title; a text opening
    with a sentence, a copyright line or a rule keeps its file name."""
    body = f"\n\n{ANSWER}\n"
    assert _parse(f"   Часто задаваемые вопросы о Debian\n\n{body}").title == (
        "Часто задаваемые вопросы о Debian"
    )
    assert _parse(f"# Mini-LightRAG - Specification\n{body}").title == (
        "Mini-LightRAG - Specification"
    )
    for opening in ("This program reads the file\nand prints it", "Copyright (c) 2013, Me", "----"):
        assert _parse(f"{opening}\n{body}").title == "book"


def test_a_nested_bulleted_contents_gives_its_titles_levels_and_goes() -> None:
    """pandoc's plain text (yt-dlp's README): a nested bulleted contents, headings in capitals
    and in mixed case ("Network Options:") set as lines of their own. Only the capitals were
    headings (all level 1, "WIKI" too short to count), the contents stayed as body text."""
    contents = (
        "-   NEW FEATURES\n    -   Differences in default behavior\n"
        "-   INSTALLATION\n    -   Update\n-   USAGE AND OPTIONS\n    -   General Options\n"
        "    -   Network Options\n-   WIKI\n"
    )
    body = "".join(
        f"{title}\n\n{ANSWER}\n"
        for title in (
            "NEW FEATURES",
            "Differences in default behavior",
            "INSTALLATION",
            "UPDATE",
            "USAGE AND OPTIONS",
            "General Options:",
            "Network Options:",
            "WIKI",
        )
    )
    doc = _parse(f"[YT-DLP]\n\nA downloader.\n\n{contents}\n{body}")
    assert _levels(doc) == [
        (1, "NEW FEATURES"),
        (2, "Differences in default behavior"),
        (1, "INSTALLATION"),
        (2, "UPDATE"),
        (1, "USAGE AND OPTIONS"),
        (2, "General Options"),
        (2, "Network Options"),
        (1, "WIKI"),
    ]
    assert "-   INSTALLATION" not in _text(doc)
    # a bulleted list whose items do not come back as lines of their own is text
    plain = _parse(f"Notes\n\n{contents.replace('O', 'Q')}\nNEW FEATURES\n\n{ANSWER}")
    assert "Differences in default behavior" in _text(plain)


def test_the_records_of_a_fortune_file_are_paragraphs_of_their_own() -> None:
    """fortunes-ru: sayings between lines of "%" and no blank line were one paragraph of
    97,000 characters; a lone saying is no title underlined with "%". In any other text a "%"
    line is text (a LaTeX comment in a listing)."""
    sayings = [
        "Знание — сила.",
        "Повторение — мать учения.\n        -- Пословица",
        "Век живи — век учись.",
        "Ученье свет, а неученье тьма.\nТак говорят.",
    ]
    doc = _parse("%\n".join(f"{s}\n" for s in sayings))
    blocks = [b.text for _, s in doc.root.walk() for b in s.blocks]
    assert len(blocks) == 4 and blocks[0] == "Знание — сила.", blocks
    assert not doc.toc()
    latex = "\\documentclass{article}\n%\n\\usepackage{foo}\n%\n\\begin{document}\n%\n"
    other = _parse(f"Notes\n\nA preamble for the class.\n\n{latex}\nAnd so on.\n\nThe end.\n")
    assert latex.strip() in _text(other)
