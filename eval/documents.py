"""The dev eval's documents: real books and manuals, fetched, never committed.

    PYTHONPATH=. .venv/bin/python eval/documents.py     # fetch into eval/.cache/docs, list them

Documents come from `../shared/corpus` (read in place) and from Debian packages
(`apt-get download`, then `dpkg-deb -x`), kept in eval/.cache. A documentation set shipped as
HTML pages becomes one Markdown book (`html_to_markdown`): headings, paragraphs, lists, code,
tables, with the navigation chrome left out.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from lxml import etree, html

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).resolve().parent / ".cache"
DOCS = CACHE / "docs"
DEBS = CACHE / "deb"
CORPUS = ROOT.parent / "shared" / "corpus"


@dataclass(frozen=True)
class Source:
    """One eval document: its name in the index, and where it comes from."""

    name: str  # file name in the eval project
    lang: str  # the language most of it is in
    corpus: str | None = None  # path inside ../shared/corpus
    package: str | None = None  # Debian package
    member: str | None = None  # a file of the package (gunzipped if it ends in .gz)
    html_pages: tuple[str, ...] = ()  # HTML pages of the package joined into one Markdown book
    html_first: str | None = None  # or: the first page, then each page's `<link rel="next">`


SOURCES: tuple[Source, ...] = (
    # Russian
    Source(
        "lshortru.pdf",
        "ru",
        package="texlive-lang-cyrillic",
        member="usr/share/doc/texlive-doc/latex/lshort-russian/lshortru.pdf",
    ),
    Source("texlive-ru.pdf", "ru", corpus="pdf/with-toc/texlive-guide-2021.ru.pdf"),
    Source(
        "maint-guide.ru.md",
        "ru",
        package="maint-guide-ru",
        html_pages=tuple(
            f"usr/share/doc/maint-guide-ru/html/{page}.ru.html"
            for page in (
                "index",
                "start",
                "first",
                "modify",
                "dreq",
                "dother",
                "build",
                "checkit",
                "upload",
                "update",
                "advanced",
            )
        ),
    ),
    Source(
        "debian-faq.ru.txt",
        "ru",
        package="debian-faq-ru",
        member="usr/share/doc/debian/FAQ/debian-faq.ru.txt.gz",
    ),
    Source(
        "ubuntu-packaging-guide.epub",
        "multi",
        package="ubuntu-packaging-guide-epub",
        member="usr/share/doc/ubuntu-packaging-guide-epub/ubuntu-packaging-guide.epub",
    ),
    Source("zapiski-yunogo-vracha.fb2", "ru", corpus="fb2/bulgakov-zapiski-yunogo-vracha.ru.fb2"),
    # English
    Source("fhs-3.0.pdf", "en", corpus="pdf/no-toc/fhs-3.0.en.pdf"),
    Source("gnu-coding-standards.pdf", "en", corpus="pdf/with-toc/gnu-coding-standards.en.pdf"),
    Source("alice-in-wonderland.epub", "en", corpus="epub/alice-in-wonderland.pg11.epub2.epub"),
    Source("docker-container-run.md", "en", corpus="markdown/long/docker-container-run.en.md"),
    *(
        Source(Path(p).name, "en", corpus=p)
        for p in (
            "markdown/adr/adr-tools-0002-implement-as-shell-scripts.md",
            "markdown/adr/adr-tools-0003-single-command-with-subcommands.md",
            "markdown/adr/adr-tools-0008-use-iso-8601-format-for-dates.md",
            "markdown/adr/backstage-adr003-avoid-default-exports.md",
            "markdown/adr/backstage-adr006-avoid-react-fc.md",
        )
    ),
    *(
        Source(Path(p).name, "ru", corpus=p)
        for p in (
            "markdown/extended-mind/adr-0003-rag-first.md",
            "markdown/extended-mind/definition-chunk.md",
            "markdown/extended-mind/pattern-heading-chunking.md",
            "markdown/extended-mind/principle-local-first.md",
        )
    ),
    # "held-out-2" (eval/questions.json): documents and questions added after the fusion and
    # retrieval studies, never tuned on — a check of how the figures above generalise
    Source(
        "aptitude.ru.md",
        "ru",
        package="aptitude-doc-ru",
        html_first="usr/share/doc/aptitude/html/ru/index.html",
    ),
    Source(
        "mpman-ru.pdf",
        "ru",
        package="texlive-lang-cyrillic",
        member="usr/share/doc/texlive-doc/metapost/mpman-ru/mpman-ru.pdf",
    ),
    Source(
        "live-manual.epub",
        "en",
        package="live-manual-epub",
        member="usr/share/doc/live-manual/epub/live-manual.en.epub",
    ),
    Source(
        "fancyhdr.pdf",
        "en",
        package="texlive-latex-base-doc",
        member="usr/share/doc/texlive-doc/latex/fancyhdr/fancyhdr.pdf",
    ),
    Source(
        "clsguide.pdf",
        "en",
        package="texlive-latex-base-doc",
        member="usr/share/doc/texlive-doc/latex/base/clsguide.pdf",
    ),
    # "held-out-3": documents a parsing trial first met (2026-11-29), questions written by a
    # session that did not run the search — measured once before anything was tuned on them
    Source(
        "install.ru.pdf",
        "ru",
        package="installation-guide-amd64",
        member="usr/share/doc/installation-guide-amd64/ru/install.ru.pdf.gz",
    ),
    Source(
        "MiniHelp.ru.fb2",
        "ru",
        package="fbreader",
        member="usr/share/FBReader/help/MiniHelp.ru.fb2",
    ),
    Source(
        "disser-README-ru.md",
        "ru",
        package="texlive-lang-cyrillic",
        member="usr/share/doc/texlive-doc/latex/disser/README-ru.md",
    ),
    Source(
        "debian-reference.en.pdf",
        "en",
        package="debian-reference-en",
        member="usr/share/debian-reference/debian-reference.en.pdf",
    ),
    Source(
        "tex-refs.epub",
        "en",
        package="texlive-lang-english",
        member="usr/share/doc/texlive-doc/generic/tex-refs/tex-refs.epub",
    ),
    Source(
        "OFL-FAQ.txt",
        "en",
        package="fonts-sil-charis",
        member="usr/share/doc/fonts-sil-charis/OFL-FAQ.txt.gz",
    ),
    Source(
        "impatient.pdf",
        "en",
        package="texlive-lang-english",
        member="usr/share/doc/texlive-doc/plain/impatient/book.pdf",
    ),
    # "held-out-4": documents no session had indexed (2026-12-03), questions written by helper
    # sessions that read the parsed text and never ran the search — measured before any tuning:
    # a game engine's manual (XeTeX, a domain no other document shares) and a chapter of the
    # Debian Developer's Reference
    Source(
        "stead3-ru.pdf",
        "ru",
        package="instead-doc-ru",
        member="usr/share/doc/instead/manual/pdf/ru/stead3-ru.pdf",
    ),
    Source(
        "developers-reference-pkgs.ru.md",
        "ru",
        package="developers-reference-ru",
        html_pages=("usr/share/developers-reference/ru/pkgs.html",),
    ),
    # held-out-5 (questions.json): two more documents no session had indexed, in domains no
    # other document shares — GIMP's user manual in Russian (its concepts, quick tutorials and
    # how-tos: image editing) and Double Commander's help on searching, renaming and copying
    # files (a file manager)
    Source(
        "gimp-help.ru.md",
        "ru",
        package="gimp-help-ru",
        html_pages=(
            "usr/share/gimp/2.0/help/ru/gimp-concepts-main-windows.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-docks.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-undo.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-brushes.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-gradients.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-palettes.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-patterns.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-image-grid-and-guides.html",
            "usr/share/gimp/2.0/help/ru/gimp-concepts-image-guides.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickies.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-scale.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-scale-print.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-crop.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-info.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-change-mode.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-flip.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-rotate.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-jpeg.html",
            "usr/share/gimp/2.0/help/ru/gimp-tutorial-quickie-separate.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-selections.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-quickmask.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-text.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-fonts.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-web-reducing-file-size.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-web-transparency.html",
            "usr/share/gimp/2.0/help/ru/gimp-using-setup-tile-cache.html",
        ),
    ),
    Source(
        "doublecmd-help.ru.md",
        "ru",
        package="doublecmd-help-ru",
        html_pages=(
            "usr/share/doublecmd/doc/ru/findfiles.html",
            "usr/share/doublecmd/doc/ru/multirename.html",
            "usr/share/doublecmd/doc/ru/copymove.html",
            "usr/share/doublecmd/doc/ru/faq.html",
        ),
    ),
)


def fetch_package(package: str, cache: Path = DEBS) -> Path:
    """The package's files, extracted once into `cache`/<package> (eval/.cache/deb)."""
    target = cache / package
    if target.is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    download = cache / "download"
    shutil.rmtree(download, ignore_errors=True)
    download.mkdir()
    subprocess.run(
        ["apt-get", "download", package],
        cwd=download,
        check=True,
        capture_output=True,
    )
    (deb,) = download.glob("*.deb")
    partial = cache / f"{package}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(partial)], check=True)
    partial.rename(target)
    shutil.rmtree(download)
    return target


def document_path(source: Source) -> Path:
    """Where the eval reads the document; fetched and converted on first use."""
    if source.corpus:
        path = CORPUS / source.corpus
        if not path.is_file():
            raise SystemExit(f"{path} is missing: the eval reads ../shared/corpus")
        return path
    path = DOCS / source.name
    if path.is_file():
        return path
    assert source.package is not None
    files = fetch_package(source.package)
    DOCS.mkdir(parents=True, exist_ok=True)
    if source.html_pages or source.html_first:
        pages = source.html_pages or _linked_pages(files, source.html_first)
        book = "\n\n".join(html_to_markdown((files / p).read_bytes()) for p in pages)
        path.write_text(book + "\n", encoding="utf-8")
    else:
        assert source.member is not None
        data = (files / source.member).read_bytes()
        if source.member.endswith(".gz"):
            data = gzip.decompress(data)
        path.write_bytes(data)
    return path


def _linked_pages(root: Path, first: str) -> list[str]:
    """`first` and the pages after it, each found by its predecessor's `<link rel="next">`."""
    pages, page = [], first
    while page and page not in pages:
        pages.append(page)
        link = html.fromstring((root / page).read_bytes()).find(".//link[@rel='next']")
        href = link.get("href") if link is not None else None
        page = str(Path(page).parent / href) if href else None
    return pages


# --- HTML → Markdown (DocBook/Sphinx output as Debian ships it) ---------------------------

# navigation, tables of contents and notes (DocBook's, and Sphinx's related, sphinxsidebar
# and footer; the headings' ¶ links are inline: _MARKS)
_CHROME = re.compile(
    r"\b(navheader|navfooter|toc|list-of-\w+|footnotes?|related|sphinxsidebar|footer)\b"
)
_HEADING = {f"h{n}": n for n in range(1, 7)}
_MARKS = {"sup": "footnote", "a": "headerlink"}  # a footnote's mark, Sphinx's ¶ after a heading


def html_to_markdown(data: bytes) -> str:
    """One HTML page as Markdown: headings, paragraphs, lists, code, tables, quotes."""
    tree = html.fromstring(data)
    body = tree.find("body")
    blocks: list[str] = []
    _blocks(body if body is not None else tree, blocks)
    return "\n\n".join(b for b in blocks if b.strip())


def _inline(el: etree._Element) -> str:
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        if tag in ("code", "tt", "kbd", "samp") or "literal" in (node.get("class") or ""):
            text = " ".join(node.text_content().split())
            parts.append(f"`{text}`" if text else "")
        elif tag == "br":
            parts.append(" ")
        elif tag in _MARKS and _MARKS[tag] in (node.get("class") or ""):
            pass
        else:
            if node.text:
                parts.append(node.text)
            for child in node:
                walk(child)
                if child.tail:
                    parts.append(child.tail)
            return
        if node.tail is not None and node is not el:
            pass

    if el.text:
        parts.append(el.text)
    for child in el:
        walk(child)
        if child.tail:
            parts.append(child.tail)
    return " ".join("".join(parts).split())


def _blocks(el: etree._Element, out: list[str]) -> None:
    for child in el:
        tag = child.tag if isinstance(child.tag, str) else ""
        cls = child.get("class") or ""
        if not tag or tag in ("script", "style", "head", "hr", "img"):
            continue
        if _CHROME.search(cls):
            continue
        if tag in _HEADING:
            text = _inline(child)
            if text:
                out.append(f"{'#' * _HEADING[tag]} {text}")
        elif tag == "p":
            text = _inline(child)
            if text:
                out.append(text)
        elif tag == "pre":
            code = child.text_content().rstrip("\n")
            fence = "~~~~" if "```" in code else "```"
            out.append(f"{fence}\n{code}\n{fence}")
        elif tag in ("ul", "ol"):
            out.append(_list(child, ordered=tag == "ol"))
        elif tag == "dl":
            for item in child:
                if item.tag == "dt":
                    out.append(f"**{_inline(item)}**")
                elif item.tag == "dd":
                    _blocks_or_text(item, out)
        elif tag == "table":
            out.append(_table(child))
        elif tag == "blockquote":
            inner: list[str] = []
            _blocks_or_text(child, inner)
            out.append("\n".join(f"> {line}" for b in inner for line in b.splitlines()))
        else:
            _blocks_or_text(child, out)


def _blocks_or_text(el: etree._Element, out: list[str]) -> None:
    """A container: its blocks, or its text when it holds no block elements."""
    block_tags = {"p", "pre", "ul", "ol", "dl", "table", "div", "blockquote", *_HEADING}
    if any(isinstance(c.tag, str) and c.tag in block_tags for c in el):
        if el.text and el.text.strip():
            out.append(" ".join(el.text.split()))
        _blocks(el, out)
    else:
        text = _inline(el)
        if text:
            out.append(text)


def _list(el: etree._Element, ordered: bool) -> str:
    lines = []
    for n, item in enumerate((c for c in el if c.tag == "li"), start=1):
        inner: list[str] = []
        _blocks_or_text(item, inner)
        text = " ".join(" ".join(b.split()) for b in inner if not b.startswith("```"))
        lines.append(f"{n}. {text}" if ordered else f"- {text}")
    return "\n".join(lines)


def _table(el: etree._Element) -> str:
    rows = [
        [_inline(cell).replace("|", "\\|") for cell in row if cell.tag in ("td", "th")]
        for row in el.iter("tr")
    ]
    rows = [r for r in rows if any(r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def main() -> None:
    for source in SOURCES:
        path = document_path(source)
        print(f"{source.lang:5} {path.stat().st_size:>9} {source.name}  ({path})", file=sys.stderr)


if __name__ == "__main__":
    main()
