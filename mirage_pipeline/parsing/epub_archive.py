"""What an EPUB package holds (`EpubBook`), and a lenient reader of it over the ZIP archive
itself, for packages ebooklib refuses.

It follows META-INF/container.xml to the package document, reads title/creator/language,
the manifest and spine (skipping entries missing from the archive, dropping `#fragments` from
manifest hrefs), and the table of contents from the EPUB 3 nav or the EPUB 2 NCX.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import dataclass, field
from urllib.parse import unquote

from lxml import etree

from mirage_pipeline.parsing.model import ParseError
from mirage_pipeline.parsing.xml_elements import (
    children,
    element_text,
    local_name,
    parse_recovering,
)

_DOCUMENT_TYPES = {"application/xhtml+xml", "text/html", "application/x-dtbook+xml"}


@dataclass
class EpubBook:
    """The package as either reader (ebooklib or `read_archive`) found it."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    language: str = ""
    spine: list[tuple[str, bytes, bool]] = field(default_factory=list)  # (path, XHTML, linear)
    toc: list[tuple[int, str, str]] = field(default_factory=list)  # (level, title, href)
    navs: list[tuple[str, bytes]] = field(default_factory=list)  # nav documents off the spine


def read_archive(data: bytes) -> EpubBook:
    """The package read from the ZIP archive directly, tolerating what ebooklib refuses."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(f"corrupt EPUB: {exc}") from None
    names = set(archive.namelist())
    root = ""  # the book's folder in the archive
    if "META-INF/container.xml" not in names:
        nested = sorted((n for n in names if n.endswith("/META-INF/container.xml")), key=len)
        if nested:  # zipped from the folder above the book's: "epub/META-INF/container.xml"
            root = nested[0].removesuffix("META-INF/container.xml")

    def read(path: str) -> bytes | None:
        path = root + unquote(path)
        return archive.read(path) if path in names else None

    container = read("META-INF/container.xml")
    if container is None:
        raise ParseError("corrupt EPUB: META-INF/container.xml is missing")
    container_root = parse_recovering(container)
    rootfile = next(
        (
            el.get("full-path")
            for el in (container_root.iter() if container_root is not None else ())
            if local_name(el) == "rootfile" and el.get("full-path")
        ),
        None,
    )
    opf_bytes = read(rootfile) if rootfile else None
    if opf_bytes is None:
        raise ParseError("corrupt EPUB: the package document named in container.xml is missing")
    opf = parse_recovering(opf_bytes)
    if opf is None:
        raise ParseError("corrupt EPUB: the package document is not XML")
    base = posixpath.dirname(rootfile or "")

    def resolve(href: str, relative_to: str = base) -> str:
        return posixpath.normpath(posixpath.join(relative_to, href.split("#", 1)[0]))

    book = EpubBook()
    for el in opf.iter():
        name = local_name(el)
        if name == "title" and not book.title:
            book.title = element_text(el)
        elif name == "creator" and element_text(el):
            book.authors.append(element_text(el))
        elif name == "language" and not book.language:
            book.language = element_text(el)
    manifest: dict[str, tuple[str, str, str]] = {}  # id → (path, media type, properties)
    for el in opf.iter():
        if local_name(el) == "item" and el.get("id") and el.get("href"):
            manifest[el.get("id")] = (
                resolve(el.get("href")),
                el.get("media-type", ""),
                el.get("properties", ""),
            )
    spine = next((el for el in opf.iter() if local_name(el) == "spine"), None)
    seen: set[str] = set()
    for ref in children(spine, "itemref") if spine is not None else ():
        path, media, _ = manifest.get(ref.get("idref", ""), ("", "", ""))
        if not path or path in seen:
            continue  # several manifest entries for one file (hrefs with #fragments)
        seen.add(path)
        content = read(path)
        if content is not None and _is_document(path, media):
            book.spine.append((_relative(path, base), content, ref.get("linear") != "no"))
    for path, media, _ in manifest.values():
        if path not in seen and _is_document(path, media):
            seen.add(path)
            content = read(path)
            if content is not None and b"<nav" in content:
                book.navs.append((_relative(path, base), content))
    nav = next((p for p, _, props in manifest.values() if "nav" in props.split()), None)
    ncx_id = spine.get("toc") if spine is not None else None
    ncx = manifest.get(ncx_id or "", (None,))[0] or next(
        (p for p, media, _ in manifest.values() if media == "application/x-dtbncx+xml"), None
    )
    nav_root = parse_recovering(read(nav) or b"") if nav else None
    if nav_root is not None:
        book.toc = _nav_toc(nav_root, posixpath.dirname(nav), base)
    ncx_root = parse_recovering(read(ncx) or b"") if ncx and not book.toc else None
    if ncx_root is not None:
        book.toc = _ncx_toc(ncx_root, posixpath.dirname(ncx), base)
    return book


def _is_document(path: str, media: str) -> bool:
    return media in _DOCUMENT_TYPES or path.endswith((".html", ".xhtml", ".htm"))


def _relative(path: str, base: str) -> str:
    return posixpath.relpath(path, base) if base else path


def _href(href: str, doc_dir: str, base: str) -> str:
    if not href:
        return ""
    target, _, fragment = unquote(href).partition("#")
    path = _relative(posixpath.normpath(posixpath.join(doc_dir, target)), base)
    return f"{path}#{fragment}" if fragment else path


def _nav_toc(root: etree._Element, doc_dir: str, base: str) -> list[tuple[int, str, str]]:
    navs = [el for el in root.iter() if local_name(el) == "nav"]
    toc_nav = next(
        (n for n in navs if "toc" in (n.get("{http://www.idpf.org/2007/ops}type") or "")),
        navs[0] if navs else None,
    )
    found: list[tuple[int, str, str]] = []

    def walk(ol: etree._Element, level: int) -> None:
        for li in children(ol, "li"):
            label = next((c for c in li if local_name(c) in ("a", "span")), None)
            href = label.get("href", "") if label is not None and local_name(label) == "a" else ""
            found.append((level, element_text(label), _href(href, doc_dir, base)))
            for sub in children(li, "ol"):
                walk(sub, level + 1)

    if toc_nav is not None:
        for ol in children(toc_nav, "ol"):
            walk(ol, 1)
    return found


def _ncx_toc(root: etree._Element, doc_dir: str, base: str) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []

    def walk(parent: etree._Element, level: int) -> None:
        for point in children(parent, "navpoint"):
            label = next((c for c in point if local_name(c) == "navlabel"), None)
            content = next((c for c in point if local_name(c) == "content"), None)
            href = content.get("src", "") if content is not None else ""
            found.append((level, element_text(label), _href(href, doc_dir, base)))
            walk(point, level + 1)

    nav_map = next((el for el in root.iter() if local_name(el) == "navmap"), None)
    if nav_map is not None:
        walk(nav_map, 1)
    return found
