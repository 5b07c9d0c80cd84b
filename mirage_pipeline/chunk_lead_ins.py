"""Lead-ins: a block that introduces the one after it stays with it across a chunk boundary.

A chunk that ended with "Example:", "The output should be similar to this:" or a table's
caption left the example or the table of the next chunk without the words that say what it
is: 9 % of the dev eval's chunks ended with a colon or a caption ("Example:" alone 138 times in
TeX for the Impatient; aptitude.ru.md's "Рисунок 2.10. Значения флага «действие»" over the
table that answers "what does w in the action column mean"). Such a block is carried into the
next chunk (chunking.py) when what follows is set apart — a table, a listing, a list —, or when
it is a caption. A colon before prose stays where it is: a novel's "– сказал он:" before a line
of dialogue, "There are two ways to correct the situation:" before a paragraph; carried, they
moved boundaries of prose for nothing (dev eval, the novel's recall@1 0.47 → 0.36).

Captions are lead-ins only where the document sets them above what they name. That is the
document's own habit, read off its captions' neighbours: the Debian Reference's PDF sets a
table's caption under the table (96 captions after a table, 7 before one), lshortru.pdf and
DocBook's HTML above it, and MetaPost's manual its figures' captions under its listings but
its tables' above them. A document that does not tell keeps the usual convention: a table's
caption above the table, a figure's under the figure.

Dev eval (eval/run_eval.py, 536 questions), hybrid recall@5 / @10 / MRR@10: all 0.877 / 0.935 /
0.755 → 0.879 / 0.940 / 0.761, Russian 0.864 / 0.920 / 0.725 → 0.867 / 0.930 / 0.734, Markdown
0.852 / 0.910 / 0.726 → 0.869 / 0.934 / 0.742; chunks ending with a colon or a caption 478 →
295 of ~5,240 (those left: a colon before prose, a caption under its figure or table, a lead-in
too long to travel). A term in bold on a line of its own (Markdown's definition lists) carried
too did worse (Markdown recall@10 0.934 → 0.918).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from mirage_pipeline.block_split import JOIN_SLACK
from mirage_pipeline.parsing.model import Block, Section

LEAD_IN_SHARE = 3  # a lead-in is at most a third of the chunk's target
CAPTION_WORDS = 30  # longer, it is prose that opens by naming a table or a figure
_COLON_END = re.compile(r":\s*$")
# a caption's number: 6.11, 2-1, IV, A, А.1 (an appendix's, Latin or Cyrillic), then maybe a mark
_NUMBER = r"(?:\d+(?:[.-]\d+)*|[IVXLC]+|[A-ZА-Я](?:[.-]\d+)*)"
_MARK = r"(?P<mark>\s*[.:—–-])?(?:\s|$)"
_CAPTIONS = {
    "table": re.compile(rf"^(?:Table|Tab\.|Listing|Таблица|Табл\.|Листинг)\s*{_NUMBER}{_MARK}"),
    "figure": re.compile(rf"^(?:Figure|Fig\.|Рисунок|Рис\.)\s*{_NUMBER}{_MARK}"),
}
_USUAL = {"table": True, "figure": False}  # above what they name, where a document does not tell
_SET_APART = frozenset({"table", "code", "list"})  # what a caption stands beside


def caption(text: str) -> tuple[str, bool] | None:
    """A caption's kind ("table" or "figure": "Table 6.11: …", "Рис. 5: …") and whether a mark
    follows its number (prose that opens by naming one — "Figure 2 shows …" — has none)."""
    text = text.strip()
    for kind, pattern in _CAPTIONS.items():
        if found := pattern.match(text):  # anchored: cheap on every block of a document
            if len(text.split()) > CAPTION_WORDS:
                return None
            return kind, found["mark"] is not None
    return None


def captions_above(blocks: Sequence[Block]) -> dict[str, bool]:
    """Per caption kind, whether the document sets its captions above what they name: a
    caption between prose and a table, listing or list votes above, one between such a block
    and prose votes below; a tie keeps the usual convention."""
    votes = {kind: 0 for kind in _CAPTIONS}
    for i, block in enumerate(blocks):
        found = caption(block.text) if block.kind not in _SET_APART else None
        if found is None:
            continue
        kind = found[0]
        before = i > 0 and blocks[i - 1].kind in _SET_APART
        after = i + 1 < len(blocks) and blocks[i + 1].kind in _SET_APART
        votes[kind] += (after and not before) - (before and not after)
    return {kind: votes[kind] > 0 or (votes[kind] == 0 and _USUAL[kind]) for kind in votes}


class Piece(Protocol):
    """What the rule reads of the chunker's pieces (chunking._Piece)."""

    text: str
    tokens: int
    section: Section
    block: Block
    heading: bool
    overlap: bool


P = TypeVar("P", bound=Piece)


def carried_lead_in(current: list[P], piece: P, target: int, above: dict[str, bool]) -> list[P]:
    """The end of a chunk about to be emitted (`current`) that introduces `piece`, the next
    chunk's first block: it moves to the next chunk with it. Only a block of prose of the same
    section, short enough to travel (a third of the `target` at most, and with `piece` within
    it), and never the chunk's only text."""
    if len(current) < 2:
        return []
    lead = current[-1]
    if (
        lead.block is piece.block
        or lead.section is not piece.section
        or lead.tokens + piece.tokens > target
        or all(p.heading or p.overlap for p in current[:-1])
    ):
        return []
    return [lead] if _leads_into(lead, piece.block, target, above) else []


def room_for_lead_in(
    before: Piece | None, block: Block, target: int, above: dict[str, bool]
) -> int:
    """The tokens a block too long for one chunk leaves free in its first part for the block
    before it, when that one introduces it (a big table's caption): without them the first
    part fills a chunk and the caption is never carried to it."""
    if before is None or not _leads_into(before, block, target, above):
        return 0
    return before.tokens + JOIN_SLACK  # the first part is counted with its own slack


def _leads_into(lead: Piece, block: Block, target: int, above: dict[str, bool]) -> bool:
    """Whether `lead` is a lead-in of `block` that may travel with it: prose of its own (not a
    heading, an overlap or a table, listing or list), a third of the `target` at most."""
    return not (
        lead.heading
        or lead.overlap
        or lead.block.kind in _SET_APART
        or lead.tokens > target // LEAD_IN_SHARE
    ) and introduces(lead.text, block, above)


def introduces(text: str, following: Block, above: dict[str, bool]) -> bool:
    """Whether a block introduces `following`: it ends with a colon and a table, listing or
    list follows; or it is a caption of a kind the document sets above what it names, marked
    as one ("Table 6.11: …", "Рисунок 2.10. …") or before a table, listing or list."""
    if _COLON_END.search(text):
        return following.kind in _SET_APART
    found = caption(text)
    if found is None:
        return False
    kind, marked = found
    return above[kind] and (marked or following.kind in _SET_APART)
