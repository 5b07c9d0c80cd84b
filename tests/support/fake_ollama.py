"""A small local HTTP server speaking Ollama's `/api/embed`: the one stand-in the tests allow.

Vectors are deterministic functions of the input text, so the same text always gets the same
vector and different texts get different ones. Requests are recorded for assertions, and the
server can be told to fail the next N requests (to exercise retries and error paths) or to hang
(`hang_seconds`: each request waits that long, or until the server stops, before it answers).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


@dataclass
class FakeOllama:
    models: dict[str, int] = field(default_factory=lambda: {"mxbai-embed-large": 1024})
    max_chars: int = 4000  # stands in for the model's context length
    requests: list[dict] = field(default_factory=list)
    fail_next: int = 0
    fail_after: int = 0  # requests answered before `fail_next` start failing
    fail_status: int = 503
    hang_seconds: float = 0.0
    url: str = ""
    stopping: threading.Event = field(default_factory=threading.Event)

    def vector(self, text: str, dimension: int) -> list[float]:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(dimension).astype(float).tolist()

    def answer(self, body: dict) -> tuple[int, dict]:
        self.requests.append(body)
        if self.hang_seconds:
            self.stopping.wait(self.hang_seconds)
        if self.fail_next > 0 and len(self.requests) > self.fail_after:
            self.fail_next -= 1
            return self.fail_status, {"error": "server busy, try again"}
        model = str(body.get("model", "")).split(":")[0]
        if model not in self.models:
            return 404, {"error": f'model "{body.get("model")}" not found, try pulling it first'}
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        if body.get("truncate") is False and any(len(t) > self.max_chars for t in inputs):
            return 400, {"error": "the input length exceeds the context length"}
        dim = self.models[model]
        return 200, {"model": body["model"], "embeddings": [self.vector(t, dim) for t in inputs]}


@contextmanager
def running_fake_ollama(fake: FakeOllama | None = None, port: int = 0) -> Iterator[FakeOllama]:
    """Serve `fake` on 127.0.0.1 (`port` 0: any free one)."""
    fake = fake or FakeOllama()
    fake.stopping.clear()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path != "/api/embed":
                status, payload = 404, {"error": f"no route {self.path}"}
            else:
                status, payload = fake.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.stopping.set()  # hung requests answer now
        server.shutdown()
        server.server_close()
