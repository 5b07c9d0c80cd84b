"""The language a chunk's full-text configuration stems it in: the one its blocks declare, or
the one its text is in when that is the other alphabet's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from mirage_pipeline.language import (
    CYRILLIC_LANGUAGES,
    cyrillic_language,
    cyrillic_share,
    detect_language,
    identify_language,
)
from mirage_pipeline.parsing.model import Block


class Piece(Protocol):
    """What the rule reads of the chunker's pieces (chunking._Piece)."""

    text: str
    block: Block


# A chunk declared in a Cyrillic language is identified from its text when Cyrillic letters
# are under this share of its letters (a passage of a Russian translation left in English).
_OTHER_ALPHABET = 0.05
# A chunk declared in a Latin-script language is in the Cyrillic text's language when Cyrillic
# letters are this share of its letters or more: the Russian configuration stems its Latin words
# with an English stemmer too, the English one leaves Russian words unstemmed and unlemmatized.
# A partly translated EPUB page without `lang` attributes, guessed English as a whole, had
# paragraphs 51–76 % Cyrillic stemmed as English (ubuntu-packaging-guide-ru); debmake-doc-ru,
# declared English, had Russian prose between shell listings at 27–29 % of the letters.
_MIXED_CYRILLIC = 0.15


def chunk_language(pieces: Sequence[Piece], content: str) -> str:
    """The language the parser declared for most of the chunk's text, else detected from it;
    detected too when the text is in the other alphabet than the declared language's: all but
    wholly, for a Cyrillic one (a passage of a Russian translation left in English: stemmed
    as Russian, none of its words would match), by a good share for a Latin one (a Russian
    paragraph in a page declared or guessed English). A Russian paragraph beside a listing
    keeps the declared language. Undeclared, the language is that of the text outside the
    chunk's listings, when it has any, then judged by its alphabet as a declared one."""
    declared: dict[str, int] = {}
    for piece in pieces:
        if piece.block.lang:
            declared[piece.block.lang] = declared.get(piece.block.lang, 0) + len(piece.text)
    if not declared:
        # a listing's keywords and comments ("if", "is", "the") outvoted the Russian prose
        # beside it (a chapter of a Russian Markdown book on Python): the prose tells
        prose = " ".join(piece.text for piece in pieces if piece.block.kind != "code")
        language = detect_language(prose if cyrillic_share(prose) is not None else content)
    else:
        language = max(declared, key=declared.__getitem__)
    share = cyrillic_share(content)
    if share is None:
        return language
    if language in CYRILLIC_LANGUAGES:
        # all but wholly in the Latin alphabet: identified in it, or not at all
        return (identify_language(content) if share < _OTHER_ALPHABET else None) or language
    return cyrillic_language(content) if share >= _MIXED_CYRILLIC else language
