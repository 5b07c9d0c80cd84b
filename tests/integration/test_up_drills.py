"""Fault drills on a real `mirage up` (slow): a run worker killed with SIGKILL mid-embedding
holds nothing — a new file is `ready` within 60 s — and its own document ends `ready` by
itself; a second `mirage up` over the orphans of a killed one refuses to start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest

from mirage_pipeline.store.embedder_turns import LOCK_CLASS
from tests.integration.test_up_stack import (
    Running,
    _get,
    log_tails,
    processes_mentioning,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]
KEY = {"X-API-Key": "k"}


def big_book(parts: int = 40) -> str:
    return "# Almanac\n\n" + "\n\n".join(
        f"## Entry {n}\n\n"
        + " ".join(
            f"Entry {n} sentence {s} records how the weather of day {n} changed the harvest "
            f"of field {s}, in plain words."
            for s in range(1, 25)
        )
        for n in range(1, parts + 1)
    )


def postgres_url(home: Path) -> str:
    """The embedded server's URL, from its postmaster.pid (port and socket folder)."""
    lines = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
    return f"postgresql://postgres@/postgres?host={lines[4]}&port={lines[3]}"


def documents(up: Running) -> dict[str, tuple[str, str | None]]:
    response = _get_json(f"{up.api}/api/v1/projects/demo/documents")
    return {d["filename"]: (d["status"], d.get("error")) for d in response or []}


def _get_json(url: str):
    try:
        response = httpx.get(url, headers=KEY, timeout=10)
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None


def run_workers(home: Path) -> list[psutil.Process]:
    """Processes of running runs: forks of the fork server of a code server the daemon started
    (mirage_pipeline/dagster_code_server.py), not the fork server or its resource tracker."""
    daemons = [
        psutil.Process(int(line.split(":")[0]))
        for line in processes_mentioning(str(home))
        if "dagster-daemon" in line or "dagster_daemon" in line
    ]
    workers = []
    for daemon in daemons:
        for server in daemon.children():
            for helper in server.children():
                if "forkserver" in " ".join(helper.cmdline()):
                    workers += helper.children(recursive=True)
    return workers


def test_a_run_worker_killed_mid_embedding_holds_nothing(up: Running) -> None:
    try:
        wait_for(
            "waiting for /health",
            lambda: (r := _get(f"{up.api}/health")) is not None and r.status_code == 200,
            180,
            up.process,
        )
        demo = up.home / "documents" / "demo"
        demo.mkdir(parents=True, exist_ok=True)
        (demo / "almanac.md").write_text(big_book(), encoding="utf-8")

        def embedding() -> bool:
            try:
                with psycopg.connect(postgres_url(up.home), connect_timeout=5) as conn:
                    return bool(
                        conn.execute(
                            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = %s",
                            (LOCK_CLASS,),
                        ).fetchone()
                    )
            except (OSError, psycopg.Error):
                return False

        wait_for("waiting for the book's embedding", embedding, 240, up.process)
        killed = run_workers(up.home)
        assert killed, "no run worker forked from the code server's fork server"
        for proc in killed:
            proc.send_signal(signal.SIGKILL)
        print(f"killed {len(killed)} run worker process(es)")

        (demo / "note.md").write_text("# Note\n\nA short note about bees.\n", encoding="utf-8")
        dropped = time.monotonic()
        wait_for(
            "waiting for the new note to be ready",
            lambda: documents(up).get("note.md", ("",))[0] == "ready",
            60 + 10,  # + the sensor's settling of a new file
            up.process,
        )
        print(f"note ready {time.monotonic() - dropped:.0f} s after it was dropped")
        wait_for(
            "waiting for the book to heal",
            lambda: documents(up).get("almanac.md", ("",))[0] == "ready",
            300,
            up.process,
        )
    except BaseException:
        print(documents(up))
        print(log_tails(up.home))
        raise


def test_a_second_up_over_an_orphaned_stack_refuses_and_says_how_to_stop_it(up: Running):
    wait_for(
        "waiting for /health",
        lambda: (r := _get(f"{up.api}/health")) is not None and r.status_code == 200,
        180,
        up.process,
    )
    up.process.send_signal(signal.SIGKILL)  # its children live on, orphaned
    up.process.wait()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MIRAGE_", "DAGSTER_"))}
    env |= {"MIRAGE_HOME": str(up.home), "MIRAGE_API_KEY": "k"}
    env |= {"MIRAGE_API_PORT": up.api.rsplit(":", 1)[1]}
    env |= {"MIRAGE_DAGSTER_PORT": up.dagster.rsplit(":", 1)[1]}
    second = subprocess.run(
        [sys.executable, "-m", "mirage_query", "up"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 1, second.stdout + second.stderr
    assert "was killed and left its processes running" in second.stderr
    assert "kill -TERM -- -" in second.stderr
    assert "is up" not in second.stdout
    # the orphans still serve: the second `mirage up` stopped nothing of theirs
    assert _get(f"{up.api}/health").status_code == 200
