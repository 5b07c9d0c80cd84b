"""XHTML (an EPUB chapter) as a flat stream of anchors, headings and blocks, in reading order,
each with the language its nearest element declares; navigation chrome left out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from mirage_pipeline.language import normalise_language
from mirage_pipeline.parsing.html_chrome import (
    drop_renamed_classes,
    element_kinds,
    is_chrome,
    is_link_list,
    is_toc_nav,
    links_away,
)
from mirage_pipeline.parsing.html_notes import (
    is_note,
    note_reference,
    note_targets,
    place_notes,
)
from mirage_pipeline.parsing.html_parse import parse_markup
from mirage_pipeline.parsing.model import RAISED, SUPERSCRIPT, Block
from mirage_pipeline.parsing.xml_elements import element_text, local_name

_SKIP = {"script", "style", "head", "title", "noscript", "svg", "math", "template", "img"}
_BLOCKS = {
    "p": "paragraph",
    "pre": "code",
    "blockquote": "quote",
    "table": "table",
    "ul": "list",
    "ol": "list",
    "dl": "list",
    "figcaption": "paragraph",
    "summary": "paragraph",  # a <details> box's title: "ОтветСорок два." read one
}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CONTAINERS = {
    "div",
    "section",
    "article",
    "body",
    "main",
    "header",
    "footer",
    "aside",
    "figure",
    "span",
    "center",
    "hgroup",
    "html",
}
# Elements that are lines of their own inside a block: a definition list's terms and
# definitions, items, paragraphs in an item. DocBook's index writes `<dt>…</dt><dt>…</dt>` with
# nothing between them, and the terms ran together ("About this DocumentAccents").
_LINES = {"p", "div", "li", "dt", "dd", "tr", "pre", "blockquote", "table", "ul", "ol", "dl"}
_LINES.update(_HEADINGS)
_BLOCK_LEVEL = (_CONTAINERS - {"span"}) | set(_BLOCKS) | set(_HEADINGS) | {"li", "dd", "dt", "hr"}
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# A heading inside a box is the box's label, not a section the text after the box belongs to
# (DocBook's `<div class="tip"><h3 class="title">Tip</h3>…</div>`); nor is a title page's
# author's or translator's name.
_BOXES = {"note", "tip", "warning", "caution", "important", "sidebar", "admonition"}
_CREDITS = {"author", "editor", "othercredit", "corpauthor", "authorgroup"}
_LETTER = re.compile(r"[^\W\d_]")
_NUMBER_CLASS = re.compile(
    r"(?:^|[\s_-])(?:l?num|line-?num\w*|lineno|ocn|page-?num\w*|noteref)(?:$|[\s_-])", re.I
)
_WORDLESS = re.compile(r"^[\W_]*$")  # "|", "* * *", "»": separators, not text


@dataclass
class Event:
    kind: str  # "anchor", "heading", "block", "chrome" (navigation left out here) or "note"
    anchor: str = ""
    level: int = 0
    text: str = ""
    block: Block | None = None
    lang: str | None = None  # declared by the nearest element that says (xml:lang, lang)
    linked: bool = False  # a heading whose text is links into the book and nothing else
    refs: tuple[str, ...] = ()  # a block's links to places ("#fn1", "ch01.xhtml#fn1")


@dataclass
class XhtmlDocument:
    events: list[Event] = field(default_factory=list)
    title: str = ""  # <title>
    lang: str | None = None  # declared on <html> or <body>
    is_nav: bool = False  # an EPUB navigation document (its table of contents)

    @property
    def has_text(self) -> bool:
        """Whether it holds a heading or a block (not only an image, or navigation)."""
        return any(e.kind in ("block", "heading") for e in self.events)


def read_xhtml(content: bytes, path: str = "") -> XhtmlDocument:
    """Anchors (element ids), headings h1–h6 and text blocks of one XHTML document."""
    root = parse_markup(content)
    if root is None:
        return XhtmlDocument()
    doc = XhtmlDocument(is_nav=b"<nav" in content and is_toc_nav(root))
    title = _first(root, "title")
    if title is not None:
        doc.title = element_text(title)
    body = _first(root, "body")
    doc.lang = _lang(body) if body is not None else None
    doc.lang = doc.lang or _lang(root)
    if body is not None:
        drop_renamed_classes(body)
    _walk(body if body is not None else root, doc.events, _lang(root))
    _drop_linked_headings(doc.events)
    place_notes(doc.events, path)
    return doc


# Headings in a row with no text between them, this many or more of them nothing but links
# into the book: a table of contents set as headings (calibre renamed its "toc" classes "toc1",
# "toc2": 144 empty sections, a second tree of the whole book). One such heading alone is a
# section's title linking back to the contents (docutils).
_LINKED_RUN = 3


def _drop_linked_headings(events: list[Event]) -> None:
    """The link-only headings of each run of headings holding `_LINKED_RUN` of them made
    navigation, in place."""
    run: list[int] = []
    for i, event in enumerate([*events, Event("block")]):
        if event.kind == "block":
            linked = [j for j in run if events[j].linked]
            if len(linked) >= _LINKED_RUN:
                for j in linked:
                    events[j] = Event("chrome")
            run = []
        elif event.kind == "heading":
            run.append(i)


def _lang(el: etree._Element) -> str | None:
    code = el.get(_XML_LANG) or el.get("lang") or el.get("xml:lang")
    return normalise_language(code) if code else None


def _first(root: etree._Element, name: str) -> etree._Element | None:
    for el in root.iter():
        if local_name(el) == name:
            return el
    return None


def _walk(el: etree._Element, events: list[Event], lang: str | None, boxed: bool = False) -> None:
    name = local_name(el)
    if not name or name in _SKIP:
        return
    if is_chrome(el):
        events.append(Event("chrome"))
        return
    lang = _lang(el) or lang
    if is_note(el):
        if el.get("id"):
            events.append(Event("anchor", anchor=el.get("id")))
        _note(events, el, lang)
        return
    # a heading's or a block's anchors inside it too, before it: DocBook's
    # `<h2 class="title"><a id="opt-latex"/>2.1 Options</h2>`
    inside = name in _HEADINGS or name in _BLOCKS
    for node in el.iter() if inside else (el,):
        ident = _anchor_of(node) if isinstance(node.tag, str) else None
        if ident:
            events.append(Event("anchor", anchor=ident))
    classes = set((el.get("class") or "").split())
    boxed = boxed or name == "aside" or bool(_BOXES & classes)
    if name in _HEADINGS:
        text = _text(el)
        if text and (boxed or _CREDITS & classes):
            _block(events, "paragraph", text.replace("\n", " "), lang)
        elif text:
            level, linked = _HEADINGS[name], links_away(el)
            events.append(Event("heading", level=level, text=text, lang=lang, linked=linked))
        return
    if name in _BLOCKS:
        if name in ("ol", "ul") and _notes_list(el, events, lang):
            return
        if name != "pre" and is_link_list(el):
            events.append(Event("chrome"))
            return
        text = _table_text(el) if name == "table" else _text(el, keep_lines=name == "pre")
        if name in ("ul", "ol"):
            text = "\n".join(f"- {_text(li)}" for li in el if local_name(li) == "li" and _text(li))
        if text:
            _block(events, _BLOCKS[name], text, lang, note_targets(el))
        return
    # A container's own text, with the inline elements and text between its blocks (a <div>
    # without <p>: Sphinx's "<div><code>new-preinst</code> install <em>old</em></div>"), makes
    # paragraphs; its blocks are walked.
    run: list[str] = [el.text or ""]
    later: list[str] = []  # anchors met inside a sentence: after its paragraph
    refs: list[str] = []  # the targets of the run's links

    def done() -> None:
        _paragraph(events, run, lang, tuple(refs))
        events.extend(Event("anchor", anchor=anchor) for anchor in later)
        later.clear()
        refs.clear()

    for child in el:
        if not isinstance(child.tag, str) or local_name(child) in _SKIP:
            pass
        elif _holds_blocks(child):
            done()
            _walk(child, events, lang, boxed)
        elif is_chrome(child):
            events.append(Event("chrome"))
        elif local_name(child) == "br":  # a poem's lines in a <div>: "чудесный!Еще" read one
            run.append(" ")
        elif (mark := _reference_mark(child)) is not None:
            # calibre's FB2 paragraphs are <div>s: "Грачевку[1]" read its reference as a word
            while run and run[-1].endswith(" "):
                run[-1] = run[-1].rstrip(" ")
            run.append(mark)
            refs.extend(note_targets(child))
            later += _anchors_in(child)
        elif not _numbering(child):
            anchors = _anchors_in(child)
            # the run's last character: joining the whole run for each child was quadratic
            before = next((part.rstrip()[-1] for part in reversed(run) if part.strip()), "")
            if anchors and (not before or before in _SENTENCE_ENDS):
                # a target a contents entry may point to: the text before it is done
                done()
                events.extend(Event("anchor", anchor=anchor) for anchor in anchors)
            else:  # inside a sentence (calibre's "filepos1234", a page's "page_5")
                later += anchors
            run.append(_text(child).replace("\n", " "))
            refs.extend(note_targets(child))
        run.append(child.tail or "")
    done()


_SENTENCE_ENDS = (".", "!", "?", "…", ":", ";", "»", '"', "”", ")")


def _paragraph(
    events: list[Event], run: list[str], lang: str | None, refs: tuple[str, ...] = ()
) -> None:
    """The text gathered in `run` as a paragraph (when it holds any); `run` starts over."""
    _block(events, "paragraph", " ".join("".join(run).split()), lang, refs)
    run.clear()


def _numbering(el: etree._Element) -> bool:
    """A line's, a paragraph's or a note's number set beside the text, without a letter: The
    Waste Land's `<span class="lnum">10</span>`, sisu's `<label class="ocn">13</label>`, a
    note reference's "*"."""
    if _LETTER.search("".join(el.itertext())):
        return False
    kinds = element_kinds(el)
    return (
        "noteref" in kinds
        or "doc-noteref" in kinds
        or bool(_NUMBER_CLASS.search(el.get("class") or ""))
    )


def _holds_blocks(el: etree._Element) -> bool:
    """Whether `el` is, or holds, a block, a heading or a container other than <span>: what
    is walked rather than read as inline text."""
    return any(isinstance(node.tag, str) and local_name(node) in _BLOCK_LEVEL for node in el.iter())


def _anchors_in(el: etree._Element) -> list[str]:
    """The anchors of `el` and of every element inside it, in document order."""
    return [a for node in el.iter() if isinstance(node.tag, str) and (a := _anchor_of(node))]


def _anchor_of(el: etree._Element) -> str | None:
    return el.get("id") or (el.get("name") if local_name(el) == "a" else None)


def _block(
    events: list[Event], kind: str, text: str, lang: str | None, refs: tuple[str, ...] = ()
) -> None:
    if not text:
        return
    if kind == "paragraph" and _WORDLESS.match(text):
        events.append(Event("chrome"))  # "|" or "»" left between navigation links
        return
    events.append(Event("block", block=Block(kind=kind, text=text), lang=lang, refs=refs))


def _notes_list(el: etree._Element, events: list[Event], lang: str | None) -> bool:
    """A list whose items are all footnotes (pandoc's: <ol><li id="fn1"
    epub:type="footnote">), as notes numbered by it; whether it was one."""
    items = [child for child in el if local_name(child) == "li"]
    if not items or not all(is_note(li) for li in items):
        return False
    start = el.get("start") or ""
    number = int(start) if start.isdigit() else 1
    for li in items:
        _note(events, li, _lang(li) or lang, number if local_name(el) == "ol" else None)
        number += 1
    return True


def _note(
    events: list[Event], el: etree._Element, lang: str | None, number: int | None = None
) -> None:
    """A footnote as a "note" event: its text behind its number when a list gave it one ("¹
    Допустим, …"), keyed by its id."""
    text = _text(el)
    if not text:
        return
    if number is not None and not text[:1].isdigit() and text[:1] not in RAISED:
        text = f"{str(number).translate(SUPERSCRIPT)} {text}"
    ident = next((a for n in el.iter() if isinstance(n.tag, str) and (a := n.get("id"))), "")
    events.append(Event("note", anchor=ident, block=Block("paragraph", text), lang=lang))


def _text(el: etree._Element, keep_lines: bool = False) -> str:
    """The element's text: its lines as the markup breaks them (`<br>`, a paragraph or an item
    inside it), the source's own line breaks a space, as a browser shows them (a DocBook
    EPUB's list read "- в пакете\ndebmake-doc и"); a `<pre>`'s (`keep_lines`) as they are."""
    parts: list[str] = []
    _collect(el, parts, keep_lines)
    text = "".join(parts)
    if keep_lines:
        return text.strip("\n")
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _collect(node: etree._Element, parts: list[str], keep_lines: bool = False) -> None:
    name = local_name(node)
    if name == "br" or name in _LINES:
        parts.append("\n")
    if node.text:
        parts.append(node.text if keep_lines else node.text.replace("\n", " "))
    for child in node:
        mark = _reference_mark(child) if isinstance(child.tag, str) else None
        if mark:  # "conversant.¹", as a PDF's raised mark reads
            while parts and parts[-1].endswith(" "):
                parts[-1] = parts[-1].rstrip(" ")
            # a note's own mark, opening its text, stands apart from it: "¹ You do"
            opening = not any(part.strip() for part in parts)
            parts.append(mark + (" " if opening else ""))
        elif mark == "":
            pass  # a note's "*" or "†"
        elif isinstance(child.tag, str) and local_name(child) not in _SKIP and not is_chrome(child):
            _collect(child, parts, keep_lines or local_name(child) == "pre")
        if child.tail:
            parts.append(child.tail if keep_lines else child.tail.replace("\n", " "))
    if name in _LINES:
        parts.append("\n")


def _reference_mark(el: etree._Element) -> str | None:
    """What a link to a footnote reads as: its number raised ("¹"), nothing for a marked one
    that is no number ("*", "†"); None when `el` is no such link (`note_reference`)."""
    reference = note_reference(el)
    if not reference:
        return None
    mark = "".join(el.itertext()).strip().strip("[]")
    if mark.isdigit():
        return mark.translate(SUPERSCRIPT)
    return "" if reference == "marked" else None


def _table_text(el: etree._Element) -> str:
    """The table's own rows, a row a line, cells joined by " | "; a table inside a cell is
    that cell's text, not rows of its own again."""
    rows = []
    own = [child for child in el if local_name(child) in ("thead", "tbody", "tfoot")]
    for tr in (row for part in (el, *own) for row in part):
        if local_name(tr) == "tr":
            cells = [_text(td).replace("\n", " ") for td in tr if local_name(td) in ("td", "th")]
            if any(cells):
                rows.append(" | ".join(cells))
    return "\n".join(rows)
