"""Token counts close to the embedder's own, at a fraction of its cost (the chunker's sizes)."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable

TokenCounter = Callable[[str], int]
_UNITS = re.compile(r"\w+|[^\w\s]")  # words and single marks


class TokenEstimator:
    """A count proven close to the embedder's own, at a fraction of its cost.

    Word-and-punctuation units times a tokens-per-unit ratio measured on the document itself:
    the blocks whose text hashes into a 1-in-`sample` bucket are counted by the embedder's
    tokenizer, and the ratio is rounded to 1/32, so it depends on the document's language mix,
    not on any one paragraph — an edit never moves the counts of text it did not touch. Text
    unlike prose (dot leaders, numbers, code, URLs) is always counted exactly, and the chunker
    counts code and table blocks with `exactly` (a row of LaTeX commands reads 2.7 tokens a
    unit where lshortru.pdf's prose reads 1.5: its chunk was estimated at 365 tokens for 535).
    Counts exclude the model's special tokens (`overhead`), which a chunk pays once. The
    chunker counts anything near the window exactly before using it;
    tests/unit/test_chunking.py holds the estimate to within a few percent.
    """

    def __init__(self, exact: TokenCounter, texts: list[str] = (), sample: int = 8) -> None:
        self.exact = exact
        self.overhead = exact("")
        tokens = units = 0
        for text in texts:
            if stable_bucket(text) % sample == 0 and not _unusual(text):
                tokens += max(0, exact(text) - self.overhead)
                units += _units(text)
        ratio = tokens / units if units >= 200 else 1.5  # too little text: stay conservative
        self.ratio = math.ceil(min(3.0, max(1.0, ratio)) * 32) / 32

    def __call__(self, text: str) -> int:
        units = _units(text)
        if _unusual(text, units):
            return self.exactly(text)
        return math.ceil(units * self.ratio * 1.03)

    def exactly(self, text: str) -> int:
        """The embedder's own count, on the estimate's terms (no special tokens)."""
        return max(0, self.exact(text) - self.overhead)


def _units(text: str) -> int:
    return len(_UNITS.findall(text))


def _unusual(text: str, units: int | None = None) -> bool:
    units = _units(text) if units is None else units
    return units > 0 and not 3.5 <= len(text) / units <= 9.0


def stable_bucket(text: str) -> int:
    """A number fixed by the text alone (not by Python's per-process hash seed)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=2).digest(), "little")
