"""A small English–Russian dictionary in Müller's dictd layout (mirage_query/translation.py),
built in code: headwords at the line's start, senses indented and numbered, labels, notes in
brackets, English examples after the translations."""

from __future__ import annotations

import gzip
from pathlib import Path

MUELLER_SAMPLE = """\
00-database-info
   This is a sample of the Mueller English-Russian dictionary layout.
kernel
   [↗kɜ:nl] _n.
   1) зерно, зёрнышко
   2) ядро; суть; the kernel of the matter суть дела
operating
   [↗ɒpɜrɛɪtɪŋ] _a. операционный
system
   [↗sɪstɪm] _n. система
file
   _n.
   1) напильник
   2) файл (в вычислительной технике)
   3) _воен. шеренга
boot
   _n. ботинок; сапог
command line
   _n. командная строка
"""


def write_dictionary(path: Path, text: str = MUELLER_SAMPLE) -> Path:
    """`text` as a dictd data file, gzip-compressed as dictzip files are."""
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    return path
