"""A PDF line's spans as PyMuPDF gives them: the text of a line whose spans differ in font,
read with its raised numbers (superscripts, a footnote's opening mark)."""

from __future__ import annotations

import itertools
import re

from mirage_pipeline.parsing.model import RAISED, SUPERSCRIPT

_BEFORE_SUPERSCRIPT = re.compile(f"(?<=\\S)\\s+(?=[{RAISED}]+(?:\\s|$|[.,;:)]))")


def mixed_text(spans: list[dict], words: list[dict]) -> tuple[str, bool]:
    """The text of a line whose spans differ in font (`words`: those but spaces), and whether
    it opens with a footnote's raised number: raised numbers inside it read as superscripts
    ("scripts.¹", "c² = a² + b²" read "scripts. 1" and "c2 = a2 + b2"), a note's opening one
    stands apart ("¹Obviously" would read "1Obviously")."""
    raised = False
    for before, after in itertools.pairwise(words):
        if _raised_number(after, before):
            after["text"] = after["text"].strip().translate(SUPERSCRIPT)
            raised = True
    text = "".join(s["text"] for s in spans).strip()
    if raised:
        text = _BEFORE_SUPERSCRIPT.sub("", text)
    note_mark = _superscript_number(words)
    if note_mark:
        mark = words[0]["text"].strip()
        text = f"{mark} {text[len(mark) :].lstrip()}"
    return text, note_mark


def _superscript_number(spans: list[dict]) -> bool:
    """The line opens with a raised, smaller number: a footnote's mark ("¹ Obviously…"). A
    mark only a point smaller than its text (plain TeX's: 7 points by 8) is raised by a
    quarter of the text's size, measured at the bottom of the text beside it: MuPDF gives a
    span opening with the space after the mark the mark's baseline ("7" and " Families" at
    625.8, the next word at 628.6)."""
    if len(spans) < 2:
        return False
    mark, beside = spans[0], spans[1]
    if _raised_number(mark, beside):
        return True
    number = mark["text"].strip()
    return (
        number.isdigit()
        and len(number) <= 3
        and mark["size"] < beside["size"]
        and beside["bbox"][3] - mark["bbox"][3] > 0.25 * beside["size"]
    )


def _raised_number(mark: dict, beside: dict) -> bool:
    """`mark` is a number set smaller than and raised above the text `beside` it."""
    number = mark["text"].strip()
    return (
        number.isdigit()
        and len(number) <= 3
        and mark["size"] <= 0.85 * beside["size"]
        and (
            bool(mark["flags"] & 1)
            or mark["origin"][1] < beside["origin"][1] - 0.1 * beside["size"]
        )
    )
