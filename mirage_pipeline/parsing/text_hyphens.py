"""Words hyphenated at the end of a hard-wrapped line of a text or Markdown file ("вы-" /
"полнение" of a book scanned and recognised to text, "inter-" / "operability" of a plain-text
manual) are one word again, as a PDF's are (pdf_text.join_text: a compound keeps its hyphen,
"Build-" / "Depends" is "Build-Depends"). Broken, neither half matched a search for the word.
"""

from __future__ import annotations

import re

from mirage_pipeline.parsing.model import ParsedDocument

# a line ending in a word's letter and a hyphen, the next line (after its indentation or a
# quote's ">") starting with a letter or a digit; the word is read back from the hyphen (a
# pattern starting at the word would try every start in a long line without spaces)
# (not a numbered list's next item: "pre-" / "2. Configure")
_BROKEN = re.compile(r"\w-\n[ \t>]*(?=\w)(?!\d+[.)](?:\s|$))")
_SPACE = re.compile(r"\s")
_PROSE = ("paragraph", "list", "quote")


def rejoin_hyphenated(doc: ParsedDocument) -> ParsedDocument:
    """`doc` (text or Markdown) with its prose's line-end hyphenation undone, in place."""
    blocks = [b for _, s in doc.root.walk() for b in s.blocks if b.kind in _PROSE]
    if not any(_BROKEN.search(block.text) for block in blocks):
        return doc
    # PDF's rules, and its module, only when a document needs them (it imports PyMuPDF)
    from mirage_pipeline.parsing.pdf_text import Vocabulary, join_text

    vocabulary = Vocabulary([line for b in blocks for line in b.text.split("\n")])
    for block in blocks:
        text, out, at = block.text, [], 0
        for found in _BROKEN.finditer(block.text):
            hyphen = found.start() + 1
            start = max(text.rfind(" ", at, hyphen), text.rfind("\n", at, hyphen)) + 1
            start = max(start, at)
            space = _SPACE.search(text, found.end())
            right = text[found.end() : space.start() if space else len(text)]
            whole = join_text(text[start : hyphen + 1], right, vocabulary)
            out += [text[at:start], whole[: len(whole) - len(right)]]
            at = found.end()
        block.text = "".join([*out, text[at:]])
    return doc
