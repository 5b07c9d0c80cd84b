"""Heading numbers of plain text ("2.3.1.", "A.2", "IV.", "Глава 5.") and the order they come
in: a numbered line is trusted as a heading when it continues the numbering of the ones before.
"""

from __future__ import annotations

import re

# One part of a number, read every way it can be: "C" is a letter and a Roman hundred.
Component = frozenset[tuple[str, int]]
Number = tuple[Component, ...]

_LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CYRILLIC = "АБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЭЮЯ"  # appendix letters (Ё, Й, Ъ, Ы, Ь are skipped)
_ROMAN = re.compile(r"^(?=[IVXLC])(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}

# "1.", "1.2", "1.2.3.", "A.1", "A.", "IV." followed by the title on the same line
NUMBERED = re.compile(
    r"^\s*(?P<num>(?:\d{1,3}|[A-ZА-Я])(?:\.\d{1,3})+\.?|\d{1,3}\.|[A-ZА-Я]\.|[IVXL]{2,7}\.)"
    r"[ \t\u00a0]+(?P<title>\S.*)$"
)
# "1 Introduction": a number without a dot, trusted only when the printed contents lists it
BARE_NUMBERED = re.compile(r"^\s*(?P<num>\d{1,2})[ \t\u00a0]+(?P<title>[^\W\d_].*)$")
# "Chapter 3", "CHAPTER IV.", "Глава 5. Title", "Part II", "Appendix A: Title", "Приложение Б"
KEYWORD = re.compile(
    r"^\s*(?P<kw>(?i:chapter|part|book|appendix|глава|часть|приложение|розділ|частина|додаток))"
    r"[ \t\u00a0]+"
    r"(?P<num>\d{1,3}|[IVXLC]{1,7}|[A-ZА-Я])(?![\w.]\w)\.?"
    r"(?:(?:[ \t\u00a0]*[.:—–-])?[ \t\u00a0]+(?P<title>\S.*))?$"
)
PART_WORDS = frozenset({"part", "book", "часть", "частина"})


def component(text: str) -> Component:
    """Every reading of one part of a number: arabic, letter (A = 1), Roman."""
    if text.isdigit():
        return frozenset({("d", int(text))})
    found = set()
    upper = text.upper()
    if len(upper) == 1 and upper in _LATIN:
        found.add(("L", _LATIN.index(upper) + 1))
    if len(upper) == 1 and upper in _CYRILLIC:
        found.add(("C", _CYRILLIC.index(upper) + 1))
    if _ROMAN.match(upper) or upper == "C":
        found.add(("R", roman_value(upper)))
    return frozenset(found)


def roman_number(text: str) -> int | None:
    """The value of a Roman numeral up to CCCXCIX in either case ("xiv" → 14), else None."""
    upper = text.upper()
    return roman_value(upper) if _ROMAN.match(upper) or upper == "C" else None


def roman_value(text: str) -> int:
    total = 0
    for char, after in zip(text, [*text[1:], ""], strict=True):
        value = _ROMAN_VALUES[char]
        total += -value if after and _ROMAN_VALUES[after] > value else value
    return total


def parse_number(text: str) -> Number:
    return tuple(component(part) for part in text.rstrip(".").split("."))


def number_key(number: Number) -> str:
    """A stable spelling of a number, to compare a contents entry with a heading."""
    return ".".join(str(min(v for _, v in c)) for c in number)


def _first(c: Component) -> bool:
    return any(value == 1 for _, value in c)


def _next(a: Component, b: Component) -> bool:
    return any(k == k2 and v2 == v + 1 for k, v in a for k2, v2 in b)


def follows(before: Number, after: Number) -> bool:
    """Whether `after` can be the next heading number after `before`: its first child, the
    next sibling of it or of one of its parents, or the start of a new series (appendices)."""
    depth = len(after)
    if depth == len(before) + 1:
        return all(a & b for a, b in zip(before, after[:-1], strict=False)) and _first(after[-1])
    if (
        depth <= len(before)
        and all(a & b for a, b in zip(before[: depth - 1], after[:-1], strict=True))
        and _next(before[depth - 1], after[-1])
    ):
        return True
    kinds_before = {k for k, _ in before[0]}
    return all(_first(c) for c in after) and not {k for k, _ in after[0]} & kinds_before


def longest_chain(numbers: list[Number], positions: list[int], weights: list[int]) -> list[int]:
    """Indices of the best run of numbers in which each follows the one before.

    A run scores the weights of its members less one for every candidate it passes over, so
    numbered list items scattered through a text do not string together into headings.
    `positions` are the candidates' places among the text's runs: two siblings with nothing
    between them (items of one numbered list) do not follow each other.
    """
    score = list(weights)
    back: list[int | None] = [None] * len(numbers)
    best = 0
    for j, number in enumerate(numbers):
        i = j - 1
        while i >= 0 and j - i - 1 < best:  # further back no run can score more
            gain = score[i] - (j - i - 1)
            deeper = len(number) > len(numbers[i])
            if (
                gain > 0
                and gain + weights[j] > score[j]
                and (deeper or positions[j] - positions[i] >= 2)
                and follows(numbers[i], number)
            ):
                score[j] = gain + weights[j]
                back[j] = i
            i -= 1
        best = max(best, score[j])
    if not numbers:
        return []
    end: int | None = max(range(len(numbers)), key=lambda k: (score[k], -k))
    chain = []
    while end is not None:
        chain.append(end)
        end = back[end]
    return chain[::-1]
