"""`dagster api grpc`, with runs started from a fork server that has the code location imported.

Dagster's code server starts each run in a *spawned* process: a fresh interpreter that imports
Dagster and the code location again before the run's first step — about a second on two cores
(`import mirage_pipeline.definitions` alone: 1.0–1.1 s), paid by every run (a new note's
freshness, each batch of a large drop, the first vector of a book). Here the code server starts
its runs from a multiprocessing fork server instead, started with the server and with Dagster's
run entry point and `mirage_pipeline.definitions` already imported: a run process is a fork of
it, ready at once.
Nothing else changes — the run still executes in its own process, with its own instance,
resources and embedder, and Dagster still watches it through the same queue and events.

The daemon (mirage_pipeline/dagster_daemon.py) opens its code server through this module; the
webserver's code server, which never starts runs (they are queued for the daemon), is Dagster's
own. A Dagster whose server has no spawn context to replace starts its runs its own way.

    python -m mirage_pipeline.dagster_code_server api grpc ...   (the arguments of `dagster`)
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import sys
import warnings
from collections.abc import Sequence

# imported in the fork server, so a run's process starts with them: Dagster's run entry point
# and the code location, and what a run imported on its critical path before its first vector
# (measured with py-spy on a 320-page PDF's run: the instance's storage — dagster-postgres,
# SQLAlchemy, psycopg2 — 0.6–0.7 s, PyMuPDF 0.7 s, on two cores). PyMuPDF through the PDF
# parser, whose package keeps PyMuPDF's layout model from loading (mirage_pipeline/parsing).
PRELOAD = (
    "dagster._grpc.impl",
    "mirage_pipeline.definitions",
    "mirage_pipeline.dagster_storage",
    "psycopg2",
    "mirage_pipeline.parsing.pdf",
)
MODULE = "mirage_pipeline.dagster_code_server"


def entry_point(executable_path: str) -> Sequence[str]:
    """The command that starts a code server: this module, in the given interpreter."""
    return [executable_path, "-m", MODULE]


def use_fork_server() -> None:
    """Make Dagster's code servers in this process start runs from a preloaded fork server."""
    from dagster._grpc import server

    original = server.DagsterApiServer.__init__

    def __init__(self: server.DagsterApiServer, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        if not hasattr(self, "_mp_ctx"):
            warnings.warn("this Dagster's code server starts runs its own way", stacklevel=1)
            return
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(PRELOAD))
        # started with the server, after it set its environment: a run does not wait for it
        multiprocessing.forkserver.ensure_running()
        self._mp_ctx = context

    server.DagsterApiServer.__init__ = __init__


def main() -> int:
    from dagster._cli import main as dagster_main

    use_fork_server()
    sys.argv[0] = "dagster"
    return dagster_main()


if __name__ == "__main__":
    sys.exit(main())
