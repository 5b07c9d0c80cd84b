"""The query service on a free port (uvicorn in a thread) and the CLI run against it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from click.testing import CliRunner, Result

from mirage_query.app import create_app
from mirage_query.cli import cli
from mirage_query.settings import ServiceSettings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_service(settings: ServiceSettings, embedder) -> Iterator[str]:
    """Serve `settings` over real HTTP; yields the API URL (…/api/v1)."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings, embedder=embedder), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "query service did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/api/v1"
    finally:
        server.should_exit = True
        thread.join(10)


def run_cli(args: list[str], api_url: str, key: str | None = "secret", home=None) -> Result:
    env = {"MIRAGE_API_URL": api_url, "MIRAGE_API_KEY": key, "MIRAGE_HOME": home}
    return CliRunner().invoke(cli, args, env=env)
