"""The chunker, with the bundled embedder's real tokenizer."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from click.testing import CliRunner

from mirage_pipeline.chunk_lead_ins import caption, captions_above, introduces
from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
from mirage_pipeline.parsing import parse_document
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section
from mirage_pipeline.parsing.policy import policy_from_mapping
from mirage_pipeline.token_estimate import TokenEstimator, stable_bucket

SENTENCES = [
    f"Sentence number {n} talks about the {topic} of retrieval systems in some detail."
    for n, topic in enumerate(["design", "cost", "speed", "quality", "failure modes"] * 40)
]


@pytest.fixture(scope="module")
def count(local_embedder):
    return local_embedder.count_tokens


def _book() -> ParsedDocument:
    long_section = Section("Long section", 2, blocks=[Block("paragraph", " ".join(SENTENCES))])
    tiny_a = Section("Tiny A", 2, blocks=[Block("paragraph", "Only a few words here.")])
    tiny_b = Section("Tiny B", 2, blocks=[Block("paragraph", "And a few more words.")])
    one = Section("Chapter One", 1, children=[long_section, tiny_a, tiny_b])
    two = Section("Chapter Two", 1, blocks=[Block("paragraph", "The second chapter is short.")])
    return ParsedDocument("markdown", "Book", Section("", 0, children=[one, two]))


def test_chunks_fit_the_window_and_never_cross_a_chapter(count) -> None:
    policy = ChunkingPolicy.for_window(512)
    assert 350 <= policy.target_tokens <= 450 and 50 <= policy.overlap_tokens <= 80
    chunks = chunk_document(_book(), count, policy)
    for chunk in chunks:
        assert count(chunk.embed_text) <= 512
        assert chunk.embed_text.startswith("Book › ")
        assert not chunk.content.startswith("Book ›")  # stored content stays clean
    chapters = [c.structure["chapter"] for c in chunks]
    assert chapters[-1] == "Chapter Two" and "The second chapter" in chunks[-1].content
    assert all(
        "second chapter" not in c.content for c in chunks if c.structure["chapter"] != "Chapter Two"
    )
    positions = [
        c.structure["position_in_chapter"]
        for c in chunks
        if c.structure["chapter"] == "Chapter One"
    ]
    assert positions == list(range(len(positions)))


def test_long_sections_split_at_sentences_with_overlap(count) -> None:
    chunks = [
        c
        for c in chunk_document(_book(), count, ChunkingPolicy.for_window(512))
        if c.structure["section"] == "Long section"
    ]
    assert len(chunks) >= 3
    for chunk in chunks:  # never inside a word: every chunk starts and ends on a sentence
        own = chunk.content.split("\n\n")[0]  # (the last one also holds the tiny sections)
        assert own.startswith("Sentence number")
        assert own.endswith("detail.")
    for before, after in itertools.pairwise(chunks):
        tail = re.split(r"(?<=\.)\s+", before.content.split("\n\n")[0])
        head = re.split(r"(?<=\.)\s+", after.content)
        # the next chunk repeats the previous one's last sentences (50-80 tokens), no more
        assert head[0] in tail[-6:] and tail[-1] in head[:6]


def test_small_sections_merge_with_their_neighbour(count) -> None:
    chunks = chunk_document(_book(), count, ChunkingPolicy.for_window(512))
    tiny = [c for c in chunks if "Only a few words" in c.content]
    assert len(tiny) == 1 and "And a few more words" in tiny[0].content
    assert tiny[0].structure.get("sections")


def test_a_chunk_is_cited_under_the_section_most_of_its_text_is_in(count) -> None:
    """Small sections share a chunk with a larger one: it is cited under the larger one."""
    purpose = Section("3.5.1. Purpose", 3, blocks=[Block("paragraph", " ".join(SENTENCES[:12]))])
    options = Section("3.5.2. Options", 3, blocks=[Block("paragraph", "The kernel may be here.")])
    boot = Section(
        "3.5. /boot",
        2,
        blocks=[Block("paragraph", "Static files of the boot loader.")],
        children=[purpose, options],
    )
    chapter = Section("Chapter 3. Root", 1, children=[boot])
    doc = ParsedDocument("pdf", "FHS", Section("", 0, children=[chapter]))
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert len(chunks) == 1
    structure = chunks[0].structure
    assert structure["section"] == "3.5.1. Purpose"  # not the first ("3.5. /boot") nor the last
    assert structure["heading_path"] == ["Chapter 3. Root", "3.5. /boot", "3.5.1. Purpose"]
    assert structure["sections"] == ["3.5. /boot", "3.5.1. Purpose", "3.5.2. Options"]
    assert chunks[0].embed_text.startswith("FHS › Chapter 3. Root › 3.5. /boot › 3.5.1. Purpose\n")


def test_a_joining_section_brings_every_heading_its_text_sits_under(count) -> None:
    """A small section joining the chunk of another one keeps its headings as lines of their
    own — its parent's too, when the parent has no text of its own: "must be placed in this
    directory" still says which directory."""

    def directory(number: str, name: str, text: str) -> Section:
        purpose = Section(f"{number}.1. Purpose", 3, blocks=[Block("paragraph", text)])
        return Section(f"{number}. {name}", 2, children=[purpose])

    tmp = directory("5.15", "/var/tmp : Temporary files", "Files and folders kept between boots.")
    yp = directory("5.16", "/var/yp : NIS database files", "NIS data must be placed here.")
    chapter = Section("Chapter 5. /var", 1, children=[tmp, yp])
    doc = ParsedDocument("pdf", "FHS", Section("", 0, children=[chapter]))
    (chunk,) = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert chunk.content == (
        "Files and folders kept between boots.\n\n"
        "5.16. /var/yp : NIS database files\n5.16.1. Purpose\nNIS data must be placed here."
    )
    assert chunk.structure["heading_path"] == [
        "Chapter 5. /var",
        "5.15. /var/tmp : Temporary files",
        "5.15.1. Purpose",
    ]


def test_the_small_end_of_a_split_section_goes_back_into_its_chunk(count) -> None:
    """The installation guide's time zone section: its first chunk ended early, at a
    paragraph chosen by its text (content-defined boundaries), its last paragraph made a
    small chunk, and the next section joined that chunk: "the time zone can be given at boot
    with time/zone=" was cited under "Partitioning disks". The end goes back into its own
    section's chunk when both fit; a small section still joins its neighbour."""

    def paragraphs(topic: str, n: int) -> list[Block]:
        return [
            Block("paragraph", " ".join(SENTENCES[i * 5 : i * 5 + 5]).replace("retrieval", topic))
            for i in range(n)
        ]

    second_way = "The second way: the time zone can be given at boot with time/zone=value."
    assert stable_bucket(second_way) % 2 == 0  # a paragraph a chunk may end before
    time_zone = Section("Setting the time zone", 2, blocks=paragraphs("clock", 3))
    time_zone.blocks.append(Block("paragraph", second_way))
    disks = Section("Partitioning disks", 2, blocks=paragraphs("disk", 3))
    users = Section("Users", 2, blocks=[Block("paragraph", "A few words on users.")])
    chapter = Section("Installing", 1, children=[time_zone, disks, users])
    doc = ParsedDocument("pdf", "Guide", Section("", 0, children=[chapter]))
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    (clock,) = [c for c in chunks if "clock" in c.content or "time zone" in c.content]
    assert clock.content.endswith(second_way) and "disk" not in clock.content
    assert clock.structure["section"] == "Setting the time zone"
    # a small section joins the chunk of the one before it
    assert "A few words on users." in chunks[-1].content and "disk" in chunks[-1].content


def test_estimated_counts_stay_close_to_the_tokenizer(count) -> None:
    texts = [" ".join(SENTENCES[i : i + 5]) for i in range(0, 150, 5)]
    estimate = TokenEstimator(count, texts, sample=1)
    errors = [abs(estimate(t) - (count(t) - estimate.overhead)) / count(t) for t in texts]
    assert max(errors) < 0.1
    # The ratio is the document's, rounded: editing one text does not move the others' counts.
    edited = [*texts[:-1], texts[-1].replace("design", "the overall architecture")]
    assert TokenEstimator(count, edited, sample=1).ratio == estimate.ratio


def test_an_edit_changes_only_the_chunks_around_it(count) -> None:
    paragraphs = [" ".join(SENTENCES[i : i + 3]) for i in range(0, 200, 3)]
    doc = "# Book\n\n## Long section\n\n" + "\n\n".join(paragraphs)
    policy = ChunkingPolicy.for_window(512)
    before = chunk_document(parse_document(doc.encode(), "b.md"), count, policy)
    for n in (5, 30, 60):
        edited = doc.replace(paragraphs[n], paragraphs[n] + " One more sentence was added here.")
        after = chunk_document(parse_document(edited.encode(), "b.md"), count, policy)
        old = {c.content for c in before}
        assert sum(1 for c in after if c.content not in old) <= 3


ADR = """---
type: adr
tags: [db, storage]
---
# ADR-1: One database

## Context

{ctx}

## Decision

We keep text and vectors in PostgreSQL.

## Consequences

One backup and one server to run.
"""

PATTERN = """---
type: pattern
tags: [chunking]
---
# Split by headings

## Problem

Fixed windows cut thoughts in half.

## Pattern

Cut at headings first.

## Steps

1. Parse the headings.
2. Pack each section.

## Examples

A book chapter.
"""


def test_adr_and_pattern_rules_under_a_policy(count) -> None:
    policy = policy_from_mapping({"indexing": {"markdown": {"preset": "rag-indexing-v0.1"}}})
    adr = parse_document(ADR.format(ctx="We need a store.").encode(), "adr.md", policy)
    chunks = chunk_document(adr, count, ChunkingPolicy.for_window(512))
    assert [c.structure["section"] for c in chunks] == ["Context", "Decision", "Consequences"]
    assert all(c.metadata == {"tags": ["db", "storage"], "type": "adr"} for c in chunks)
    pattern = parse_document(PATTERN.encode(), "p.md", policy)
    chunks = chunk_document(pattern, count, ChunkingPolicy.for_window(512))
    assert [c.structure["section"] for c in chunks] == ["Problem", "Steps", "Examples"]
    assert "Cut at headings first." in chunks[0].content  # Problem + Pattern together
    assert all(c.structure.get("line_start") for c in chunks)
    # A skipped document has no chunks.
    story = parse_document(b"---\ntype: story-node\ntags: [x]\n---\n# S\n\nText.", "s.md", policy)
    assert chunk_document(story, count, ChunkingPolicy.for_window(512)) == []


def test_language_per_chunk(count) -> None:
    doc = parse_document(
        "# Глава\n\nЭто русский текст.\n\n# Chapter\n\nPlain English text.".encode(), "m.md"
    )
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert [c.lang for c in chunks] == ["ru", "en"]


def test_a_russian_chapter_with_a_listing_is_russian(count) -> None:
    """A Russian Markdown book on Python: a chunk of prose around a listing (35 % of its
    letters Cyrillic) was English, the listing's keywords and comments ("is", "the", "if")
    counting as English words — stemmed as English, the Russian words matched nothing — and
    so was the book. A README in English with Russian examples in its listings is English."""
    book = (
        "# Глава 5\n\nДекоратор — это функция, которая принимает другую функцию и расширяет "
        "её поведение. Рассмотрим пример.\n\n```python\ndef timer(func):\n"
        '    """Print the runtime of the decorated function, if it is not the main one."""\n'
        "    start = time.perf_counter()  # this is the start time\n"
        "    if func is None or not callable(func):\n        return func\n```\n\n"
        "Здесь `wrapper` вызывает исходную функцию.\n"
    )
    doc = parse_document(book.encode(), "book.md")
    assert doc.metadata["language"] == "ru"
    assert [c.lang for c in chunk_document(doc, count, ChunkingPolicy.for_window(512))] == ["ru"]
    readme = (
        "# Natasha\n\nThe library solves basic tasks of the processing of Russian text, "
        "and it is fast.\n\n```python\n>>> text = 'Посол Израиля на Украине Йоэль Лион "
        "признался, что пришел в шок'\n>>> doc = Doc(text)\n```\n\n"
        "It splits the text into tokens and sentences, and it tags them.\n"
    )
    assert parse_document(readme.encode(), "README.md").metadata["language"] == "en"


def test_inspect_json_and_failure(tmp_path, monkeypatch) -> None:
    from mirage_query.cli import cli

    monkeypatch.setenv("MIRAGE_HOME", str(tmp_path / "home"))
    project = tmp_path / "docs"
    project.mkdir()
    (project / ".mirage.yaml").write_text("indexing:\n  markdown:\n    preset: rag-indexing-v0.1\n")
    (project / "adr.md").write_text(ADR.format(ctx="We need a store."), encoding="utf-8")
    (project / "bad.pdf").write_bytes(b"")
    runner = CliRunner()
    result = runner.invoke(cli, ["inspect", str(project / "adr.md"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report) == {"format", "metadata", "toc", "chunks"}
    assert report["format"] == "markdown"
    assert [t["title"] for t in report["toc"]][1:] == ["Context", "Decision", "Consequences"]
    assert [c["structure"]["section"] for c in report["chunks"]] == [
        "Context",
        "Decision",
        "Consequences",
    ]
    assert all({"content", "structure", "tokens", "lang"} <= set(c) for c in report["chunks"])
    human = runner.invoke(cli, ["inspect", str(project / "adr.md")])
    assert human.exit_code == 0 and "Consequences" in human.output
    failed = runner.invoke(cli, ["inspect", str(project / "bad.pdf")])
    assert failed.exit_code == 1 and "empty file" in failed.output


def _wrapped(top_title: str, extra: list[Section]) -> ParsedDocument:
    """A book whose level-1 section holds it all (an NCX whose top entry is the book's title,
    a Markdown file under one `#` heading)."""
    ch1 = Section("1. Install", 2, blocks=[Block("paragraph", " ".join(SENTENCES[:40]))])
    ch2 = Section("2. Use", 2, blocks=[Block("paragraph", " ".join(SENTENCES[40:100]))])
    book = Section(top_title, 1, children=[ch1, ch2])
    return ParsedDocument("epub", "Live Manual", Section("", 0, children=[*extra, book]))


@pytest.mark.parametrize(
    "doc",
    [
        _wrapped("Live Manual", [Section("Contents", 1, blocks=[Block("paragraph", "1 2")])]),
        _wrapped("Something else", []),  # the only level-1 section
    ],
)
def test_a_section_holding_the_whole_book_is_not_cited_as_its_chapter(count, doc) -> None:
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    cited = [(c.structure["chapter"], c.structure["position_in_chapter"]) for c in chunks]
    under = [x for x in cited if x[0] != "Contents"]
    install = [x for x in under if x[0] == "1. Install"]
    use = [x for x in under if x[0] == "2. Use"]
    assert install and use and len(install) + len(use) == len(under)
    assert under == install + use  # in reading order, each numbered from 0
    assert [x[1] for x in install] == list(range(len(install)))
    assert [x[1] for x in use] == list(range(len(use)))
    assert all(c.structure["heading_path"][0] == doc.root.children[-1].title for c in chunks[-2:])


def test_a_book_of_several_chapters_cites_its_level_one_sections(count) -> None:
    doc = _wrapped("Not the title", [Section("Preface", 1, blocks=[Block("paragraph", "Hi.")])])
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert {c.structure["chapter"] for c in chunks} == {"Preface", "Not the title"}


def test_a_markdown_file_of_several_chapters_cites_each_one(count) -> None:
    """Its first `#` heading gives the document its title, but holds only its own chapter."""
    text = (
        "# Install\n\n## Debian\n\n"
        + " ".join(SENTENCES[:30])
        + "\n\n# Use\n\n## Daily\n\n"
        + " ".join(SENTENCES[30:60])
    )
    doc = parse_document(text.encode(), "guide.md")
    assert doc.title == "Install"
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert [c.structure["chapter"] for c in chunks] == sorted(
        [c.structure["chapter"] for c in chunks], key=["Install", "Use"].index
    )
    assert {c.structure["chapter"] for c in chunks} == {"Install", "Use"}


def test_each_part_of_a_long_table_starts_with_its_header(count) -> None:
    header = "| Option | Meaning |\n|---|---|"
    rows = [f"| --flag-{i} | turns feature {i} on for every build of it |" for i in range(90)]
    table = Block("table", "\n".join([header, *rows]))
    doc = ParsedDocument("markdown", "Ref", Section("", 0, children=[Section("Flags", 1, [table])]))
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.content.startswith(header + "\n| --flag-")
        assert count(chunk.embed_text) <= 512
    body = [ln for c in chunks for ln in c.content.split("\n")[2:]]
    assert body == rows  # every row once, in order


def test_a_table_without_a_header_rule_is_split_as_before(count) -> None:
    rows = [f"flag-{i} | turns feature {i} on for every build of the package" for i in range(90)]
    table = Block("table", "\n".join(rows))
    doc = ParsedDocument("pdf", "Ref", Section("", 0, children=[Section("Flags", 1, [table])]))
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert [ln for c in chunks for ln in c.content.split("\n")] == rows


def test_a_table_of_commands_is_counted_not_estimated(count) -> None:
    # lshortru.pdf's list of math symbols: a row of LaTeX commands reads ~2.7 tokens a unit
    # where the book's prose reads ~1.3, and its chunk was estimated at 365 tokens for 535
    names = [
        "subsetneq",
        "supsetneq",
        "ntriangleleft",
        "varsubsetneq",
        "ntrianglerighteq",
        "nleftarrow",
        "nrightarrow",
        "nleftrightarrow",
        "curlyeqprec",
        "fallingdotseq",
    ]
    symbols = "⪹⪺⊯⊊⊋⋪⊈⊉⋬⫋⫌⋭⋞⋟"
    rows = [
        " | ".join(
            f"{symbols[(i + k) % len(symbols)]} | \\{names[(i * 3 + k) % len(names)]}"
            for k in range(3)
        )
        for i in range(14)
    ]
    prose = Section("Prose", 1, [Block("paragraph", s) for s in SENTENCES[:60]])
    symbols_section = Section("Symbols", 1, [Block("table", "\n".join(rows))])
    doc = ParsedDocument("pdf", "Ref", Section("", 0, children=[prose, symbols_section]))
    policy = ChunkingPolicy.for_window(512)
    chunks = chunk_document(doc, count, policy)
    assert count("\n".join(rows)) > policy.max_tokens  # the table alone is over the window
    for chunk in chunks:
        assert count(chunk.embed_text) <= policy.max_tokens
    table_rows = [
        ln for c in chunks if c.structure["chapter"] == "Symbols" for ln in c.content.split("\n")
    ]
    assert table_rows == rows


def test_a_passage_left_untranslated_gets_its_own_language(count) -> None:
    """developers-reference-ru: the EPUB's items say `xml:lang="ru"`, but a third of its
    sections were never translated; stemmed as Russian, their English words matched nothing.
    A Russian paragraph beside a listing keeps the declared language."""
    english = (
        "So, you've read all the documentation, you've gone through the New Maintainers' "
        "Guide, understand what everything in the package is for, and you are about to build "
        "your first package. Before you upload it, read the policy on what it should hold."
    )
    russian = (
        "Инструмент dak доступен на сервере архива; он показывает версии пакета в каждом "
        "выпуске:\n\n$ dak ls -a amd64 -s stable -S dpkg dpkg-dev libdpkg-perl dselect"
    )
    sections = [
        Section("Untranslated", 1, blocks=[Block("paragraph", english, lang="ru")]),
        Section("Translated", 1, blocks=[Block("paragraph", russian, lang="ru")]),
    ]
    doc = ParsedDocument("epub", "Reference", Section("", 0, children=sections))
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert [(c.structure["section"], c.lang) for c in chunks] == [
        ("Untranslated", "en"),
        ("Translated", "ru"),
    ]


def test_russian_prose_between_listings_of_a_page_declared_english_is_russian(count) -> None:
    """debmake-doc-ru declares English; its chapter 8 is Russian prose between shell listings,
    27–29 % of a chunk's letters Cyrillic: it was stemmed as English, and a Russian question
    matched none of its words. An English passage quoting a Russian word stays English."""
    listing = "$ debmake -x1 -p debhello -u 0.0.1\n$ cd debhello-0.0.1\n$ debuild -us -uc"
    russian = f"Соберите пакет заново и проверьте его:\n\n{listing}\n\n{listing}\n\n{listing}"
    english = (
        "The Russian word пакет means package; the guide uses it for every binary package "
        "that the build produces from the source tree, whatever its architecture is."
    )
    sections = [
        Section("Сборка", 1, blocks=[Block("code", russian, lang="en")]),
        Section("Words", 1, blocks=[Block("paragraph", english, lang="en")]),
    ]
    doc = ParsedDocument("epub", "Руководство", Section("", 0, children=sections))
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert [(c.structure["section"], c.lang) for c in chunks] == [("Сборка", "ru"), ("Words", "en")]


def test_a_top_heading_that_is_the_title_is_read_once(count) -> None:
    """A Markdown file's `# run`, an EPUB's title page: the embedder read "run › run › Options"
    and "References for TeX and Friends › References for TeX and Friends › 1 TeX". The
    citation's heading path keeps the heading; only the text the embedder reads drops it."""
    doc = parse_document(b"# Run\n\nIntro.\n\n## Options\n\nThe --rm flag removes it.\n", "run.md")
    assert doc.title == "Run"
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    assert [c.embed_text for c in chunks] == [
        "Run › Options\n\nIntro.\n\nOptions\nThe --rm flag removes it."
    ]
    assert chunks[0].structure["heading_path"] == ["Run", "Options"]


def _lead_in_doc(paragraphs: int, lead: str, kind: str, follower: str) -> ParsedDocument:
    blocks = [Block("paragraph", s) for s in SENTENCES[:paragraphs]]
    blocks += [Block("paragraph", lead), Block(kind, follower)]
    return ParsedDocument("pdf", "Ref", Section("", 0, children=[Section("Use", 1, blocks)]))


LISTING = "\n".join(f"mirage search --project demo --limit {n} 'query {n}'" for n in range(12))
FLAGS = "| Flag | Meaning |\n|---|---|\n" + "\n".join(
    f"| `{c}` | the package will be {w} |" for c, w in zip("iuwdph", SENTENCES[:6], strict=True)
)


@pytest.mark.parametrize(
    ("lead", "kind", "follower"),
    [
        ("For example:", "code", LISTING),
        ("Table 2.10: Values of the action flag", "table", FLAGS),
        ("Рисунок 2.10. Значения флага «действие»", "table", FLAGS),
    ],
)
def test_a_lead_in_goes_with_what_it_introduces(count, lead, kind, follower) -> None:
    """aptitude.ru.md's "Рисунок 2.10. Значения флага «действие»" ended one chunk and its
    table opened the next, so "what does w in the action column mean" found neither; TeX for
    the Impatient ended 138 chunks with "Example:". Where the chunk boundary falls right
    after the lead-in, the lead-in opens the next chunk, with what it introduces."""
    policy = ChunkingPolicy.for_window(512)
    boundaries = 0
    for paragraphs in range(10, 40):
        chunks = chunk_document(_lead_in_doc(paragraphs, lead, kind, follower), count, policy)
        holding = [c for c in chunks if follower.split("\n")[-1] in c.content]
        assert len(holding) == 1 and lead in holding[0].content
        assert not any(c.content.rstrip().endswith(lead) for c in chunks)
        boundaries += holding[0].content.startswith(lead)
    assert boundaries  # some of the documents had a boundary just before the lead-in


@pytest.mark.parametrize(
    "lead",
    [
        "Figure 5: The result of draw with automatic control points",
        "– Ну что же, – сказал он мне:",
    ],
)
def test_a_figure_caption_or_a_colon_before_prose_stays_where_it_is(count, lead) -> None:
    """A figure's caption usually stands below its figure, and a novel's "– сказал он:"
    before its line of dialogue is not a lead-in either: prose boundaries do not move for
    them."""
    policy = ChunkingPolicy.for_window(512)
    ends = 0
    for paragraphs in range(10, 40):
        blocks = [Block("paragraph", s) for s in SENTENCES[:paragraphs]]
        blocks += [Block("paragraph", lead)]
        blocks += [
            Block("paragraph", " ".join(SENTENCES[100 + 10 * k : 110 + 10 * k])) for k in range(4)
        ]
        doc = ParsedDocument("fb2", "Ref", Section("", 0, children=[Section("Use", 1, blocks)]))
        ends += any(c.content.rstrip().endswith(lead) for c in chunk_document(doc, count, policy))
    assert ends


def test_a_document_sets_its_captions_above_or_below() -> None:
    """The Debian Reference's PDF sets each table's caption under the table, aptitude's
    DocBook above it: a caption ending a chunk is carried to the next only in the latter."""
    rows = Block("table", "package | popcon | size\ntool | V:1 | 10")
    under = []
    for n in range(3):
        under += [Block("paragraph", SENTENCES[n]), rows, Block("paragraph", f"Table 9.{n}: Tools")]
    over = []
    for n in range(3):
        over += [
            Block("paragraph", SENTENCES[n]),
            Block("paragraph", f"Таблица 2.{n}. Флаги"),
            rows,
        ]
    assert captions_above(under) == {"table": False, "figure": False}
    assert captions_above(over) == {"table": True, "figure": False}
    assert not introduces("Table 9.23: List of tools", rows, captions_above(under))
    assert introduces("Таблица 2.3. Флаги", rows, captions_above(over))
    assert captions_above([]) == {"table": True, "figure": False}  # the usual convention
    prose = Block("paragraph", SENTENCES[5])
    assert introduces("Example:", Block("code", "\\vbox{…}"), {})
    assert not introduces("There are two ways to correct the situation:", prose, {})


def test_a_big_table_keeps_its_caption_and_a_joined_heading_does_not_dangle(count) -> None:
    """A table too long for one chunk is split; its first part leaves room for the caption
    above it (else that part fills a chunk and the caption ends the one before). When the
    caption opened a small section that joined the chunk, the section's heading goes with it
    too, instead of ending the chunk before it."""
    policy = ChunkingPolicy.for_window(512)
    lead = "Table 2.10: Values of the action flag of aptitude"
    rows = [f"| `{n}` | {SENTENCES[n][:20]} |" for n in range(60)]
    table = "| Flag | Meaning |\n|---|---|\n" + "\n".join(rows)
    for paragraphs in range(3, 30, 2):
        prose = [Block("paragraph", s) for s in SENTENCES[:paragraphs]]
        one_section = Section("Use", 1, [*prose, Block("paragraph", lead), Block("table", table)])
        intro = Section("Intro", 2, prose)
        options = Section("Options", 2, [Block("paragraph", lead), Block("table", table)])
        joined = Section("Use", 1, children=[intro, options])
        for chapter in (one_section, joined):
            doc = ParsedDocument("markdown", "Ref", Section("", 0, children=[chapter]))
            chunks = chunk_document(doc, count, policy)
            first = next(c for c in chunks if rows[0] in c.content)
            assert lead in first.content
            for c in chunks:
                assert count(c.embed_text) <= policy.max_tokens
                assert c.content.strip().split("\n")[-1] != "Options"


def test_what_counts_as_a_caption() -> None:
    assert caption("Table 6.11: List of web browsers") == ("table", True)
    assert caption("Рисунок 2.10. Значения флага «действие»") == ("figure", True)
    assert caption("Таблица А.1 — Параметры") == ("table", True)
    assert caption("Fig.3") == ("figure", False)
    assert caption("Figure 2 shows the results of the run.") == ("figure", False)
    for prose in ("Table Mountain is high", "Figure Skating Results", "Listing Files", "Tables"):
        assert caption(prose) is None
    above = {"table": True, "figure": True}
    prose = Block("paragraph", SENTENCES[5])
    assert not introduces("Figure 2 shows the results of the run.", prose, above)
    assert introduces("Table 3 Values of x", Block("table", "a | b"), above)


def test_parts_of_a_long_listing_or_table_cite_their_own_lines(count) -> None:
    """Each chunk of a 300-line listing cited the whole listing's lines (a range of 300 lines
    for 40 of them): a citation led to the listing's top."""
    code = [f"    value_{n} = compute(step={n})  # step {n} of the listing" for n in range(300)]
    rows = [f"| option-{n} | sets the {n}th value of the table |" for n in range(200)]
    head = ["# Guide", "", "Listing:", "", "```python"]
    text = "\n".join(
        [*head, *code, "```", "", "Table:", "", "| Option | Meaning |", "|---|---|", *rows]
    )
    source = text.split("\n")
    doc = parse_document(text.encode(), "guide.md")
    chunks = chunk_document(doc, count, ChunkingPolicy.for_window(512))
    parts = [c for c in chunks if "value_" in c.content or "option-" in c.content]
    assert len(parts) >= 6
    for chunk in parts:
        start, end = chunk.structure["line_start"], chunk.structure["line_end"]
        assert end - start < 80
        body = [ln for ln in chunk.content.split("\n") if "value_" in ln or "option-" in ln]
        assert body[0].strip() in "\n".join(source[start - 1 : start + 4])  # after a lead-in
        assert body[-1].strip() in "\n".join(source[end - 2 : end])  # before a fence
