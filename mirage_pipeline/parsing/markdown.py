"""Markdown (markdown-it-py): a heading tree, front matter as metadata, blocks with line ranges."""

from __future__ import annotations

import bisect
import html
import itertools
import re
import tomllib
from collections.abc import Callable
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference

from mirage_pipeline.parsing.html_blocks import read_xhtml
from mirage_pipeline.parsing.markdown_notes import CODE_SPAN, place_notes
from mirage_pipeline.parsing.markdown_sites import admonitions, site_markup
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section
from mirage_pipeline.parsing.text import decode_text
from mirage_pipeline.parsing.text_numbering import KEYWORD

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\r?\n(.*?\r?\n)?\+\+\+[ \t]*(?:\r?\n|\Z)", re.S)
_NEWLINE = re.compile(r"\r\n?")
_BLOCK_KINDS = {
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "fence": "code",
    "code_block": "code",
    "table_open": "table",
    "blockquote_open": "quote",
    "html_block": "html",
}
_md = MarkdownIt("commonmark").enable("table")
# HTML comments are notes to the writer, not text (Node.js's API docs keep YAML history in
# them: `<!-- YAML added: v10.0.0 changes: … -->` before most sections); a code block's are code.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# Inline HTML in a README or a converted page (`<span class="…" style="…">ab</span>`, badges,
# `<a name="x"></a>` anchors): the tags go, their text stays; charis-features.md was a third
# tags. Only HTML's own tag names: "<package>", "<user@host>" and "<EOF" are text.
_TAG_NAMES = (
    "a|abbr|b|big|cite|code|del|details|em|font|i|img|ins|kbd|mark|picture|q|s|samp|small|"
    "source|span|strike|strong|sub|summary|sup|tt|u|video"
)
_BREAKING_NAMES = (
    "blockquote|br|center|dd|div|dl|dt|figcaption|figure|h[1-6]|hr|li|ol|p|pre|section|table|"
    "tbody|td|tfoot|th|thead|tr|ul"
)
_INLINE_TAG = re.compile(rf"</?(?:{_TAG_NAMES})(?:\s[^<>]*)?/?>", re.I)
_BREAKING_TAG = re.compile(rf"</?(?:{_BREAKING_NAMES})(?:\s[^<>]*)?/?>", re.I)
_HTML_TAG = re.compile(
    rf"<!--.*|</?(?:{_TAG_NAMES}|{_BREAKING_NAMES}|wbr)(?:\s[^<>]*)?/?>", re.I | re.S
)
_TARGET = r"\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)"
_ATTRIBUTE_LIST = r"(?:\{[^{}\n]*\})?"  # pandoc's "{#fig:loss width=80%}" after an image
_IMAGE = re.compile(r"!\[([^\]\n]*)\]" + _TARGET + _ATTRIBUTE_LIST)
_LINK = re.compile(r"\[([^\]\n]*(?:\n[^\]\n]*)?)\]" + _TARGET)  # its text wrapped once at most
# images, each maybe inside a link, inline or by reference: a paragraph of nothing else
_IMAGES = re.compile(
    rf"(?:\[\s*)?!\[[^\]\n]*\](?:{_TARGET}|\[[^\]\n]*\]){_ATTRIBUTE_LIST}"
    rf"(?:\s*\](?:{_TARGET}|\[[^\]\n]*\]))?"
)
# a reference link, full ("[text][label]"), collapsed ("[text][]") or shortcut ("[text]")
_REFERENCE = re.compile(r"!?\[([^\[\]\n]+(?:\n[^\[\]\n]+)?)\](?:\[([^\[\]\n]*)\])?")
# a list of nothing but links to the page's own headings: "- [Installation](#installation)"
_LOCAL_LINKS = re.compile(
    r"(?:\s*(?:[-*+]|\d+[.)])\s+\[[^\]\n]*(?:\n[^\]\n]*)?\]\(#[^()\s]*\)[ \t]*(?:\n|$))+"
)
_CONTENTS_TITLE = re.compile(
    r"\W*(?:table of contents|contents|содержание|оглавление|зміст)\W*", re.IGNORECASE
)
_HTML_BLOCK_TAGS = re.compile(r"<(?:table|div|p|ul|ol|dl|details|blockquote|pre|h[1-6])\b", re.I)
# Python-Markdown's and pandoc's attribute lists; pandoc's "{-}" (unnumbered)
_ATTRIBUTES = re.compile(r"\s*\{(?::?\s*[#.][^{}]*|-)\}\s*$")
# bookdown's markers of a part and of the appendices: "# (PART) Основы {-}"
_BOOKDOWN_PART = re.compile(r"^\((?:PART|APPENDIX)\*?\)\s*")
# whichever opens first: a closed comment (its code spans are comment) or a code span (its
# "<!--" code); an unclosed "<!--" still takes the rest of the text between code spans
_COMMENT_OR_CODE = re.compile(f"<!--.*?-->|{CODE_SPAN.pattern}", re.S)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int, list[str]]:
    """(metadata, body, lines taken by the front matter, warnings). YAML between "---" lines,
    or TOML between "+++" lines (Hugo's). A block that is no mapping is no front matter but
    text between two rules ("---", a heading and paragraphs, "---": its text was lost); one
    that does not parse stays text, with a warning."""
    match = _FRONT_MATTER.match(text) or _TOML_FRONT_MATTER.match(text)
    if not match:
        return {}, text, 0, []
    consumed = match.group(0).count("\n")
    toml = match.re is _TOML_FRONT_MATTER
    try:
        loaded = (
            tomllib.loads(match.group(1) or "") if toml else yaml.safe_load(match.group(1) or "")
        )
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        reason = str(exc).splitlines()[0]
        return {}, text, 0, [f"front matter is not valid {'TOML' if toml else 'YAML'}: {reason}"]
    if not isinstance(loaded, dict):
        # the closing "---" under a paragraph would make that paragraph a heading: a rule
        end = len(match.group(0).rstrip("\r\n"))
        closing = text.rfind("\n", 0, end) + 1
        if text[closing:end].strip() == "---":
            text = f"{text[:closing]}***{text[end:]}"
        return {}, text, 0, []
    return loaded, text[match.end() :], consumed, []


# a heading that opens with its section number: "1. Introduction", "2 Usage", "IV. Appendix"
_NUMBERED = re.compile(r"(?:\d+|[IVX]+)(?:\.\d+)*\.?\s")


def parse_markdown(data: bytes, name: str) -> ParsedDocument:
    decoding: list[str] = []
    text = decode_text(data, decoding)
    front, body, offset, warnings = split_front_matter(text)
    warnings = decoding + warnings
    # lines as markdown-it counts them: str.splitlines() also breaks at form feeds, U+0085
    # and U+2028, and every block after one was cut from the wrong lines (or lost)
    body = site_markup(admonitions(_NEWLINE.sub("\n", body)))
    body, block = _title_block(body, front)
    front = {**block, **front}
    lines = body.split("\n")
    root = Section(title="", level=0, line_start=1)
    stack = [root]
    env: dict[str, Any] = {}
    tokens = _md.parse(body, env)
    # (a note's label, "^1", is no link's: "[^1]" read "^1" before its note was placed)
    labels = frozenset(label for label in env.get("references", ()) if not label.startswith("^"))
    first_h1: str | None = None
    h1s = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.level != 0 or tok.map is None:
            i += 1
            continue
        start, end = tok.map
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            title = _inline_text(tokens[i + 1])
            if level == 1:
                h1s += 1
                if first_h1 is None:
                    first_h1 = title
            while stack[-1].level >= level:
                stack.pop()
            section = Section(title=title, level=level, line_start=offset + start + 1)
            stack[-1].children.append(section)
            stack.append(section)
        elif tok.type in _BLOCK_KINDS:
            raw = "\n".join(lines[start:end]).strip("\n")
            if tok.type in ("bullet_list_open", "ordered_list_open") and _LOCAL_LINKS.fullmatch(
                raw
            ):
                found = []  # a contents list: every item a link to a heading of the page
                blocks = stack[-1].blocks
                if blocks and _CONTENTS_TITLE.fullmatch(blocks[-1].text):
                    blocks.pop()
            elif tok.type == "html_block":
                found = _html_blocks(raw)
            elif tok.type == "paragraph_open" and not _IMAGES.sub("", raw).strip():
                # a README's badges ("[![CI](…svg)](…)"): their words are no text; a figure's
                # alt text is its caption ("![Рис. 3.1. Общая схема](arch.png)": pandoc's,
                # bookdown's, GitBook's)
                found = [("paragraph", _captions(raw))]
            elif _BLOCK_KINDS[tok.type] != "code":
                found = [(_BLOCK_KINDS[tok.type], _without_markup(raw, labels).strip("\n"))]
            else:
                found = [("code", raw)]
            stack[-1].blocks.extend(
                Block(kind=kind, text=text, line_start=offset + start + 1, line_end=offset + end)
                for kind, text in found
                if text.strip()
            )
        i += 1
    if first_h1 is not None and h1s > 1 and (_NUMBERED.match(first_h1) or KEYWORD.match(first_h1)):
        first_h1 = None  # "# 1. Введение" or "# Глава 1. Начало", then more: chapters, not a title
    title = str(front.get("title") or first_h1 or name.rsplit(".", 1)[0])
    metadata = {k: _jsonable(v) for k, v in front.items()}
    place_notes(root, env.get("references", {}))
    return ParsedDocument(
        format="markdown", title=title, root=root, metadata=metadata, warnings=warnings
    )


def _without_markup(text: str, labels: frozenset[str] = frozenset()) -> str:
    """`text` without its HTML comments and the tags of inline HTML, links and images as their
    text (reference links to `labels`, the document's link definitions, too), but those quoted
    in `code spans`; a comment is left out whole, the code spans it holds with it (Node.js's
    `<!-- YAML … description: The `mode` argument … -->`). HTML's entities are their
    characters outside code spans ("&laquo;", "&nbsp;": Markdown converted from HTML)."""
    text = _links_as_text(text, labels)
    out, at = [], 0
    for found in _COMMENT_OR_CODE.finditer(text):
        out.append(_unescaped(_strip_html(text[at : found.start()])))
        if not found.group(0).startswith("<!--"):
            out.append(found.group(0))
        at = found.end()
    text = "".join(out) + _unescaped(_strip_html(text[at:]))
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _title_block(body: str, front: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Pandoc's title block — "% Title", "% Author; Author", "% Date" opening the file
    (rclone's manual) — as metadata, its lines left blank (the rest keep their numbers); it
    was a paragraph, and the title the first heading's."""
    if not body.startswith("% ") or front:  # "%YAML 1.2" is no title; after front matter
        return body, {}  # pandoc reads none
    lines = body.split("\n")
    taken = list(itertools.takewhile(lambda line: line.startswith("%"), lines[:3]))
    values = [line[1:].strip() for line in taken]
    found: dict[str, Any] = {}
    for key, value in zip(("title", "authors", "date"), values, strict=False):
        if value:
            found[key] = (
                [a.strip() for a in value.split(";") if a.strip()] if key == "authors" else value
            )
    return "\n".join([""] * len(taken) + lines[len(taken) :]), found


def _html_blocks(raw: str) -> list[tuple[str, str]]:
    """(kind, text) of the blocks of an HTML block, read as an EPUB's XHTML is: a table's rows
    as "a | b" lines (a README's or a converted page's `<table>`, which read as tags and cells
    cut at the source's line breaks), paragraphs, lists, headings as paragraphs; comments,
    scripts and navigation left out. Markup that does not parse is stripped of its tags."""
    if not _HTML_BLOCK_TAGS.search(raw):
        return [("html", _without_markup(raw).strip("\n"))]
    events = read_xhtml(f"<div>{_COMMENT.sub('', raw)}</div>".encode()).events
    found = [
        (event.block.kind, event.block.text) if event.block else ("paragraph", event.text)
        for event in events
        if event.block is not None or event.kind == "heading"
    ]
    return found or [("html", _without_markup(raw).strip("\n"))]


# an entity with its semicolon: "&not" in "?a=1&notify=1" is a URL's, not "¬"
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _unescaped(text: str) -> str:
    return _ENTITY.sub(lambda found: html.unescape(found[0]), text) if "&" in text else text


def _captions(raw: str) -> str:
    """The alt texts of a paragraph's images that are not links (badges are) and hold a few
    words (not "logo", "CI"), a line each."""
    alts = [found[1].strip() for found in _IMAGE.finditer(raw) if not _linked(raw, found.start())]
    return "\n".join(alt for alt in alts if len(alt.split()) >= 2)


def _linked(raw: str, start: int) -> bool:
    """Whether the image at `start` is a link's text ("[![CI](…)](…)"), by the character before
    it, spaces aside (slicing the paragraph before each image was quadratic)."""
    at = start - 1
    while at >= 0 and raw[at].isspace():
        at -= 1
    return at >= 0 and raw[at] == "["


def _strip_html(text: str) -> str:
    text = _COMMENT.sub("", text)
    text = _BREAKING_TAG.sub(" ", text)
    return _INLINE_TAG.sub("", text)


def _links_as_text(text: str, labels: frozenset[str] = frozenset()) -> str:
    """Links and images as what a reader sees: `[2.1](#x1-90002.1)` → "2.1", `![CI](…svg)` →
    "CI", `[bigints][]` → "bigints" when the document defines that label — the target's words
    (an anchor's "x1-90002.1", a URL's path) are no text of the document's. Brackets inside
    a code span are code ("`[a](b)`"); one defining no label are text ("[options]")."""
    if "[" not in text:
        return text

    for pattern in (_IMAGE, _LINK, _REFERENCE):
        if pattern is _REFERENCE and not labels:
            break
        text = pattern.sub(_as_text(text, labels), text)
    return text


def _as_text(text: str, labels: frozenset[str]) -> Callable[[re.Match[str]], str]:
    """What a link or image match in `text` reads as; its code spans found once."""
    spans = [(s.start(), s.end()) for s in CODE_SPAN.finditer(text)] if "`" in text else []
    starts = [start for start, _ in spans]

    def as_text(found: re.Match[str]) -> str:
        k = bisect.bisect_left(starts, found.start()) - 1
        if k >= 0 and spans[k][0] < found.start() < spans[k][1]:
            return found.group(0)  # inside a code span
        label = found.group(2) if found.lastindex == 2 and found.group(2) else found.group(1)
        if found.re is _REFERENCE and normalizeReference(label) not in labels:
            return found.group(0)
        return found.group(1)

    return as_text


def _inline_text(inline: Any) -> str:
    """A heading's text as a reader sees it: emphasis and code marks, inline HTML (`<a
    name="x"></a> Title`), link targets and an attribute list (`Phases of processing {: #stages
    }`) left out; "Declaring _program_ variable" is "Declaring program variable"."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
        elif child.type == "html_inline" and not _HTML_TAG.fullmatch(child.content):
            parts.append(child.content)  # "List<String>", "<Enter>": no HTML tag of a reader's
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return _BOOKDOWN_PART.sub("", _ATTRIBUTES.sub("", "".join(parts)).strip())


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)  # dates and other YAML scalars
