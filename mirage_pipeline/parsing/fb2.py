"""FictionBook 2 (the usual format of Russian e-books), read with a hardened XML parser.

`defusedxml` refuses entity tricks and external resources and honours the declared encoding
(windows-1251 is common — the bytes are never decoded by hand). Sections and their titles form
the tree, `<subtitle>` starts a sub-section, title-info gives the metadata, `<binary>` images
are skipped, and a `notes` body becomes a last chapter of its own.

Real files break the schema: an entity defined only in an external `.ent` file makes a strict
parser fail; such a file is re-read with lxml in recovery mode (entities not resolved, no
network, no DTD) and the document carries a warning.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from mirage_pipeline.language import cyrillic_share
from mirage_pipeline.parsing.model import SUPERSCRIPT, Block, ParsedDocument, ParseError, Section
from mirage_pipeline.parsing.xml_elements import (
    child,
    children,
    element_text,
    local_name,
    numeric_entities,
    parse_recovering,
)

_NOTE_BODIES = {"notes", "comments", "footnotes"}
# an untitled notes body's title, in the book's language (Cyrillic text without one: Russian)
_NOTES = {"ru": "Примечания", "uk": "Примітки", "be": "Заўвагі", "bg": "Бележки", "en": "Notes"}


# "&FBReaderVersion;": an entity the file never declares, left as text in recovery mode
_UNRESOLVED_ENTITY = re.compile(r"&[A-Za-z][\w.]*;")


# control characters XML forbids: Word's manual line break (a vertical tab) and a page break
# are line breaks, the rest go — the strict parser refused the book for one, and recovery
# dropped it ("Текст\x0bглавы" read "Текстглавы")
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _utf16(data: bytes) -> bool:
    """Whether `data` is UTF-16 (by its byte order mark or its zero bytes): its bytes are not
    characters, no byte-level mending applies."""
    return data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:64]


def _without_controls(data: bytes) -> bytes:
    if _utf16(data):
        return data
    return _CONTROL_BYTES.sub(lambda found: b"\n" if found[0] in b"\x0b\x0c" else b"", data)


_BARE_AMPERSAND = re.compile(rb"&(?!#\d{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z_][\w.-]{0,31};)")
# a tag, and what is no tag but may hold "<" (a comment, CDATA, a declaration)
# (one left open runs to the end: each such "<!--" scanned the rest of the book again)
_MARKUP = re.compile(
    rb"<(/?)([A-Za-z_][\w.:-]*)(?:\s[^<>]*?)?(/?)>|<!--.*?(?:-->|\Z)|<!\[CDATA\[.*?(?:\]\]>|\Z)"
    rb"|<[?!][^>]*>",
    re.S,
)
_EMPTY = (b"empty-line", b"image")  # FB2's elements without content, written open as in HTML


def _balanced(data: bytes) -> bytes:
    """`data` with its end tags matching: a stray one ("</section>" closing nothing, "</p>"
    after a closed paragraph) goes, and elements left open close with their parent. libxml2's
    recovery closed the body at a stray end tag: the rest of the book, its notes with it,
    was lost; an unclosed <p> nested every later chapter in it."""
    out: list[bytes] = []
    stack: list[bytes] = []
    open_count: Counter[bytes] = Counter()
    at = 0
    for found in _MARKUP.finditer(data):
        closing, name, empty = found.group(1, 2, 3)
        if name is None or empty:
            continue
        if not closing and name in _EMPTY:  # "<empty-line>" kept the rest of its section
            out += [data[at : found.end() - 1], b"/>"]
            at = found.end()
        elif not closing:
            stack.append(name)
            open_count[name] += 1
        elif not open_count[name]:
            out.append(data[at : found.start()])
            at = found.end()
        else:
            left_open = []
            while stack[-1] != name:
                left_open.append(stack.pop())
                open_count[left_open[-1]] -= 1
            stack.pop()
            open_count[name] -= 1
            if left_open:
                out += [data[at : found.start()], *(b"</%s>" % n for n in left_open)]
                at = found.start()
    return b"".join([*out, data[at:]])


def _load(data: bytes) -> tuple[Any, list[str]]:
    data = _without_controls(data)
    try:
        return SafeET.fromstring(data, forbid_dtd=False), []
    except DefusedXmlException as exc:
        raise ParseError(f"unsafe FB2: {exc} (entity expansion or external references)") from None
    except ET.ParseError as exc:
        strict_error = str(exc)
    if not _utf16(data):
        # HTML's entities undeclared ("&nbsp;" stayed as text), a bare "&" ("AT&T" read
        # "AT"), end tags that do not match
        data = _balanced(_BARE_AMPERSAND.sub(b"&amp;", numeric_entities(data)))
        try:
            root = SafeET.fromstring(data, forbid_dtd=False)
            return root, [f"FB2 is not well-formed XML ({strict_error}); its markup was mended"]
        except (DefusedXmlException, ET.ParseError):
            pass
    root = parse_recovering(data)
    if root is None:
        raise ParseError(f"corrupt FB2: not well-formed XML ({strict_error})")
    return root, [f"FB2 is not well-formed XML ({strict_error}); read in recovery mode"]


def parse_fb2(data: bytes, name: str) -> ParsedDocument:
    root, warnings = _load(data)
    if local_name(root) != "fictionbook":
        raise ParseError(
            f"not an FB2 book: the root element is <{root.tag.rsplit('}', 1)[-1]}>,"
            " not <FictionBook>"
        )
    description = child(root, "description")
    info = child(description, "title-info") if description is not None else None
    title = element_text(child(info, "book-title")) if info is not None else ""
    metadata: dict[str, Any] = {}
    if info is not None:
        authors = [_person(a) for a in children(info, "author")]
        if any(authors):
            metadata["authors"] = [a for a in authors if a]
        if element_text(child(info, "lang")):
            metadata["language"] = element_text(child(info, "lang"))
        genres = [element_text(g) for g in children(info, "genre") if element_text(g)]
        if genres:
            metadata["genres"] = genres
        about = child(info, "annotation")
        # its paragraphs apart ("книги.Вторая" read one word), and its text between them
        annotation = (
            " ".join([about.text or "", *(f"{element_text(p)} {p.tail or ''}" for p in about)])
            if about is not None
            else ""
        )
        if annotation.strip():
            metadata["annotation"] = " ".join(annotation.split())[:1000]
    bodies = children(root, "body")
    if not bodies:
        raise ParseError("corrupt FB2: the book has no <body>")
    tree = Section(title="", level=0)
    # several main bodies: the volumes of a compilation, each a section of its own (its
    # title and epigraph went before the first volume, both volumes' "Глава 1" side by side)
    volumes = [b for b in bodies if (b.get("name") or "").lower() not in _NOTE_BODIES]
    for body in bodies:
        body_name = (body.get("name") or "").lower()
        if body_name in _NOTE_BODIES:
            notes = Section(title=_title(body), level=1)
            _fill(notes, body)
            notes.title = notes.title or _notes_title(notes, metadata.get("language", ""))
            if notes.blocks or notes.children:
                tree.children.append(notes)
        elif len(volumes) > 1:
            volume = Section(title=_title(body) or f"{volumes.index(body) + 1}", level=1)
            _fill(volume, body)
            if volume.blocks or volume.children:
                tree.children.append(volume)
        else:
            _fill(tree, body, top=True)
    if not any(s.blocks for _, s in tree.walk()):
        raise ParseError("no text to index: the FB2 book has no paragraphs")
    return ParsedDocument(
        format="fb2",
        title=title or _title(bodies[0]) or name.rsplit(".", 1)[0],
        root=tree,
        metadata=metadata,
        warnings=warnings,
    )


def _notes_title(notes: Section, language: str) -> str:
    label = _NOTES.get(language.lower()[:2])
    if label:
        return label
    text = " ".join(b.text for _, s in notes.walk() for b in s.blocks)[:2000]
    return _NOTES["ru"] if (cyrillic_share(text) or 0) > 0.5 else _NOTES["en"]


def _person(author: Any) -> str:
    parts = [element_text(child(author, p)) for p in ("first-name", "middle-name", "last-name")]
    full = " ".join(p for p in parts if p)
    return full or element_text(child(author, "nickname"))


def _title(el: Any) -> str:
    title = child(el, "title")
    if title is None:
        return ""
    lines = [element_text(p) for p in title if element_text(p)]
    return " ".join(lines) if lines else element_text(title)


_INLINE = {"a", "strong", "emphasis", "style", "strikethrough", "sub", "sup", "code"}
_WORD = re.compile(r"\w")
_POEM_LINES = {"p", "v", "subtitle", "text-author", "date"}


def _fill(section: Section, el: Any, top: bool = False) -> None:
    """Blocks of `el` into `section`; child sections become child Sections."""
    current = section
    lead_title = ""
    run = [el.text or ""]  # text set straight in the section, and inline elements in it
    for node in el:
        kind = local_name(node)
        if kind in _INLINE:
            run += [element_text(node), node.tail or ""]
            continue
        _add_bare(current, run)
        run = [node.tail or ""]
        if kind == "section":
            sub = Section(title=_title(node), level=section.level + 1)
            _fill(sub, node)
            if sub.blocks or sub.children:
                if not sub.title:
                    sub.title = f"{len(section.children) + 1}"
                section.children.append(sub)
                # text after a sub-section (schemas forbid it, converters write it) reads
                # after it: at the end of its last part, as under a heading in any other format
                current = _last_part(sub)
        elif kind == "subtitle" and _WORD.search(element_text(node)):  # not "* * *"
            current = Section(title=element_text(node), level=section.level + 1)
            section.children.append(current)
        elif kind == "title":
            if top:  # the body's title (author / book) is the book's heading, not text
                lead_title = _UNRESOLVED_ENTITY.sub("", _title(el)).strip()
                continue
        else:
            block = _block(node, kind)
            if block is not None:
                target = current
                if target.level == 0 and top:
                    target = _lead_section(section, lead_title)
                target.blocks.append(block)
    _add_bare(current, run)


def _last_part(section: Section) -> Section:
    while section.children:
        section = section.children[-1]
    return section


def _add_bare(section: Section, run: list[str]) -> None:
    """Text set straight in a section, outside any <p> (pandoc writes code so: "> perl
    install-tl"), into `section`: a code block when it runs over several lines, else a
    paragraph; nothing when it holds no word ("|" between links)."""
    text = "".join(run)
    if not _WORD.search(text):
        return
    lines = text.strip("\n").split("\n")
    if len(lines) > 1:
        section.blocks.append(Block("code", "\n".join(line.rstrip() for line in lines)))
    else:
        section.blocks.append(Block("paragraph", " ".join(text.split())))


def _lead_section(root: Section, title: str) -> Section:
    """Text straight under the body, before any section: an epigraph, an introduction —
    under the body's title when it has one (FBReader's help opens "О программе FBReader"
    and goes on without a section), else "Front matter"."""
    title = title or "Front matter"
    if root.children and not root.children[0].children and root.children[0].title == title:
        return root.children[0]
    front = Section(title=title, level=1)
    root.children.insert(0, front)
    return front


def _text(el: Any) -> str:
    """A paragraph's text, a note reference's number raised ("одна<a type="note">2</a>"
    read "одна2", a word no search finds; "одна²" as EPUB and PDF notes read)."""
    if not any(node.get("type") == "note" for node in el.iter()):
        return element_text(el)
    return " ".join(_raw_text(el).split())


def _raw_text(el: Any) -> str:
    """`el`'s text as written, its note references' numbers raised against their word
    (spaces around inline elements kept: "сказал<emphasis> «Привет» </emphasis>и")."""
    parts = [el.text or ""]
    for node in el:
        mark = element_text(node).strip("[]{}") if node.get("type") == "note" else ""
        if mark.isdigit():
            while parts and not parts[-1].strip(" "):
                parts.pop()
            parts[-1:] = [parts[-1].rstrip(" ")] if parts else []
            parts.append(mark.translate(SUPERSCRIPT))
        else:
            parts.append(_raw_text(node))
        parts.append(node.tail or "")
    return "".join(parts)


def _block(el: Any, kind: str) -> Block | None:
    if kind in ("p", "text-author"):
        text = _text(el)
        return Block("paragraph", text) if _WORD.search(text) else None  # not "* * *"
    if kind in ("epigraph", "cite", "annotation"):
        lines = []
        for part in el:
            if local_name(part) == "poem":  # its lines apart: "один,строка два" read one word
                poem = _block(part, "poem")
                lines += [poem.text] if poem is not None else []
            elif element_text(part):
                lines.append(_text(part))
        return Block("quote", "\n".join(lines)) if lines else None
    if kind == "poem":  # its title, epigraph, lines, author and date, a line each
        lines = [_text(v) for v in el.iter() if local_name(v) in _POEM_LINES and element_text(v)]
        return Block("quote", "\n".join(lines)) if lines else None
    if kind == "table":
        rows = [
            " | ".join(element_text(cell) for cell in row if local_name(cell) in ("td", "th"))
            for row in el
            if local_name(row) == "tr"
        ]
        return Block("table", "\n".join(r for r in rows if r.strip())) if rows else None
    return None  # image, empty-line, binary and unknown elements carry no text
