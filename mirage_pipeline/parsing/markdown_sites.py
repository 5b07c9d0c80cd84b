"""Markdown written for a site generator or a converter, brought to CommonMark before it is
parsed: MkDocs' and Python-Markdown's admonitions and content tabs, Docusaurus', VitePress'
and pandoc's ":::" boxes, Hugo's and Jekyll's shortcode lines, GitHub's alerts. Each becomes
a titled paragraph's text; every line keeps its number (blocks cite their source lines)."""

from __future__ import annotations

import re

# Python-Markdown's admonitions ("!!! note", "!!! tip \"Title\""), collapsible ones ("??? note",
# "???+ note") and MkDocs Material's content tabs ('=== "Tab"'), each over its indented body
_ADMONITION = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+[\w-]+)*"
    r"|===\+?(?=[ \t]+\"))(?:[ \t]+\"(?P<title>[^\"\n]*)\")?[ \t]*$"
)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# a site generator's lines: GitBook's and Jekyll's "{% hint style="info" %}", Hugo's
# "{{< notice >}}" — markup, the text between them stays; Docusaurus' and VitePress' boxes,
# ":::note Title" … ":::", their title
_MARKUP_LINE = re.compile(r"^[ \t]*(?:\{%-?.*?-?%\}|\{\{[<%].*?[>%]\}\})[ \t]*$")
_CAPTION_ATTRIBUTE = re.compile(r"\b(caption|title|alt)=(?:\"([^\"]*)\"|'([^']*)')")
_COLON_FENCE = re.compile(
    r"^[ \t]*:::+[ \t]*(?:\{[^{}]*\}|(?P<kind>[\w-]+)(?:[ \t]+(?P<title>.*?))?)?[ \t]*$"
)  # pandoc's fenced divs too: "::: {.warning}"
# GitHub's and Obsidian's alerts: "> [!NOTE]" opening a quote
_ALERT = re.compile(r"^(>[ \t]*)\[!(\w+)\][+-]?[ \t]*", re.MULTILINE)


def _fenced(line: str, fence: str) -> tuple[str, bool]:
    """The code fence open after `line` ("" for none, `fence` the one open before it), and
    whether `line` is fenced code or a fence."""
    opened = _FENCE.match(line)
    if fence:
        closes = (
            opened is not None
            and opened.group(1)[0] == fence[0]
            and len(opened.group(1)) >= len(fence)
        )
        return ("" if closes else fence), True
    if opened:
        return opened.group(1), True
    return "", False


def site_markup(body: str) -> str:
    """`body` without a site generator's markup lines (blank: the rest keep their numbers),
    and an alert's "[!NOTE]" its title ("> Note: …"); fenced code is left alone."""
    if ":::" not in body and "{%" not in body and "{{" not in body and "[!" not in body:
        return body
    lines = body.split("\n")
    fence = ""
    for i, line in enumerate(lines):
        fence, code = _fenced(line, fence)
        if code:
            continue
        if _MARKUP_LINE.match(line):
            lines[i] = _shortcode_text(line)
        elif box := _COLON_FENCE.match(line):  # ":::tip Заголовок" opens, ":::" closes
            title = box["title"] or (box["kind"] or "").replace("-", " ").capitalize()
            lines[i] = f"{title}:" if title and title[-1].isalnum() else title
        elif line.startswith(">") and "[!" in line:
            lines[i] = _ALERT.sub(lambda found: f"{found[1]}{found[2].capitalize()}: ", line)
    return "\n".join(lines)


def _shortcode_text(line: str) -> str:
    """A markup line's own words: a figure's caption ("{{< figure src=… caption="Рис. 1.
    Схема" >}}"), a box's title as a label ("{{< notice title="Важно" >}}" → "Важно:")."""
    found = {m[1]: m[2] if m[2] is not None else m[3] for m in _CAPTION_ATTRIBUTE.finditer(line)}
    if found.get("caption") or found.get("alt"):
        return found.get("caption") or found["alt"]
    title = found.get("title", "").strip()
    return f"{title}:" if title and title[-1].isalnum() else title


def admonitions(body: str) -> str:
    """`body` with each admonition's marker line made its title ("!!! tip" → "Tip:", '!!! note
    "Heads up"' → "Heads up:") and its body, indented under it, dedented: markdown-it's
    CommonMark read a body's second paragraph on as an indented code block and kept the marker
    as text (FastAPI's, MkDocs sites'). The lines stay where they were (blocks keep their line
    numbers); fenced code is left alone (a guide showing the syntax)."""
    if "!!!" not in body and "???" not in body and "===" not in body:
        return body
    lines = body.split("\n")
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        fence, code = _fenced(line, fence)
        if not code and (marker := _ADMONITION.match(line)):
            indent = marker["indent"].expandtabs(4)
            title = marker["title"]
            if title is None:
                title = (marker["kind"] or "").replace("-", " ").capitalize()
            lines[i] = f"{indent}{title}:" if title and title[-1].isalnum() else indent + title
            inner = len(indent) + 4
            j = i + 1
            while j < len(lines):
                expanded = lines[j].expandtabs(4)
                if expanded.strip() and len(expanded) - len(expanded.lstrip()) < inner:
                    break
                lines[j] = expanded[: len(indent)] + expanded[inner:] if expanded.strip() else ""
                j += 1
            continue  # the body, dedented, is read again: an admonition or a fence inside it
        i += 1
    return "\n".join(lines)
