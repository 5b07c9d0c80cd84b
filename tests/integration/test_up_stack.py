"""`mirage up` end to end: a real stack in a temp MIRAGE_HOME, files in, search out, clean stop."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest

import mirage_pipeline
from mirage_query import stack as stack_module
from mirage_query.settings import ServiceSettings, read_api_keys
from mirage_query.stack import StackError, ensure_api_key, instance_file, stop_children

REPO = Path(__file__).resolve().parents[2]

BEES = """# Beekeeping handbook

## Hive inspection

Open the hive on a warm, windless afternoon and lift each frame slowly. Look for eggs standing
upright in the cells: they prove the queen was laying within the last three days.

## Winter feeding

Before the first frost every colony needs about twenty kilograms of stored honey. A weak colony
can be given thick sugar syrup in autumn, or a block of fondant placed over the cluster in winter.
"""

BAIKAL = """# Путеводитель по Байкалу

## Озеро

Байкал — самое глубокое озеро планеты: его наибольшая глубина превышает тысячу шестьсот метров.
В нём хранится около пятой части всей пресной озёрной воды Земли.

## Нерпа

Байкальская нерпа — единственный тюлень, живущий только в пресной воде. Зимой она проделывает
во льду лунки-продухи, чтобы дышать, и выводит детёнышей в снежных логовах.
"""


# --- helpers of stack.py, no subprocess of mirage up ------------------------------------------


def test_api_key_is_created_once_with_0600(tmp_path: Path) -> None:
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path / "home")})
    key = ensure_api_key(settings)
    assert len(key) >= 40
    assert stat.S_IMODE(settings.api_key_file.stat().st_mode) == 0o600
    assert read_api_keys(settings) == (key,)

    settings.api_key_file.chmod(0o644)
    assert ensure_api_key(settings) == key  # reused, and tightened again
    assert stat.S_IMODE(settings.api_key_file.stat().st_mode) == 0o600


def test_api_key_from_the_environment_writes_no_file(tmp_path: Path) -> None:
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path), "MIRAGE_API_KEY": "a, b"})
    assert ensure_api_key(settings) == "a,b"
    assert not settings.api_key_file.exists()


def test_instance_files_come_from_the_checkout() -> None:
    for name in ("dagster.yaml", "workspace.yaml"):
        assert instance_file(name) == REPO / name


def test_instance_files_fall_back_to_the_wheel(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "site-packages" / "mirage_pipeline"
    (package / "instance").mkdir(parents=True)
    (package / "instance" / "dagster.yaml").write_text("storage: {}\n")
    monkeypatch.setattr(mirage_pipeline, "__file__", str(package / "__init__.py"))
    monkeypatch.setattr(stack_module.resources, "files", lambda _: package)
    assert instance_file("dagster.yaml") == package / "instance" / "dagster.yaml"
    with pytest.raises(StackError, match=r"workspace\.yaml"):
        instance_file("workspace.yaml")


def test_stop_children_kills_whole_trees_even_setsid_grandchildren(tmp_path: Path) -> None:
    # SIGTERM is ignored (and inherited as ignored), so only the SIGKILL escalation ends them
    script = "trap '' TERM; setsid sleep 300 & sleep 301 & wait"
    env = {"MIRAGE_HOME": str(tmp_path)}
    child = stack_module.start_child("stubborn", ["sh", "-c", script], env, tmp_path)
    deadline = time.monotonic() + 10
    while len(psutil.Process(child.process.pid).children(recursive=True)) < 2:
        assert time.monotonic() < deadline, "the test's grandchildren did not start"
        time.sleep(0.05)
    tree = [psutil.Process(child.process.pid), *psutil.Process(child.process.pid).children(True)]
    stop_children([child], timeout=1)
    assert child.process.returncode is not None
    assert [p.pid for p in tree if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []


# --- the real thing -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def processes_mentioning(marker: str) -> list[str]:
    """Processes whose command line or environment holds `marker` (this process aside)."""
    found = []
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:  # vanished, or not ours to read
            continue
        if needle in cmdline or needle in environ:
            command = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry.name}: {command}")
    return found


def log_tails(home: Path, lines: int = 40) -> str:
    parts = []
    for log in [*sorted((home / "logs").glob("*.log")), home.parent / "up.out"]:
        if log.exists():
            text = log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
            parts.append(f"----- {log} -----\n" + "\n".join(text))
    return "\n".join(parts)


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    home: Path
    api: str
    dagster: str


@pytest.fixture
def up(tmp_path: Path) -> Iterator[Running]:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MIRAGE_", "DAGSTER_"))}
    api_port, dagster_port = free_port(), free_port()
    env |= {
        "MIRAGE_HOME": str(home),
        "MIRAGE_API_KEY": "k",
        "MIRAGE_API_PORT": str(api_port),
        "MIRAGE_DAGSTER_PORT": str(dagster_port),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # where up records the running stack
    }
    with (tmp_path / "up.out").open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "mirage_query", "up"],
            env=env,
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    running = Running(
        process, home, f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{dagster_port}"
    )
    try:
        yield running
    finally:
        if process.poll() is None:  # the test failed before stopping it
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
        for line in processes_mentioning(str(home)):  # never leave a stack behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(line.split(":")[0]), signal.SIGKILL)


def wait_for(what: str, check, timeout: float, process: subprocess.Popen[bytes]):
    deadline = time.monotonic() + timeout
    while True:
        assert process.poll() is None, f"mirage up exited ({process.returncode}) while {what}"
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s: {what}"
        time.sleep(1)


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=5)
    except httpx.HTTPError:
        return None


def search(up: Running, query: str, key: str = "k", limit: int = 5) -> httpx.Response:
    return httpx.post(
        f"{up.api}/api/v1/projects/demo/search",
        json={"query": query, "limit": limit},
        headers={"X-API-Key": key},
        timeout=60,
    )


@pytest.mark.integration
@pytest.mark.slow
def test_mirage_up_indexes_dropped_files_and_stops_cleanly(up: Running, tmp_path: Path) -> None:
    try:
        health = wait_for(
            "waiting for /health",
            lambda: (r := _get(f"{up.api}/health")) is not None and r.status_code == 200,
            180,
            up.process,
        )
        assert health
        sources = tmp_path / "sources"
        sources.mkdir()
        (sources / "bees.md").write_text(BEES, encoding="utf-8")
        (sources / "baikal.md").write_text(BAIKAL, encoding="utf-8")
        demo = up.home / "documents" / "demo"
        demo.mkdir(parents=True, exist_ok=True)
        copied_at = time.monotonic()
        for source in sources.iterdir():
            shutil.copy(source, demo / source.name)

        def both_files_indexed() -> list[dict] | None:
            response = search(up, "honey for the winter and the freshwater seal")
            if response.status_code == 404:  # the project appears with its first document
                return None
            assert response.status_code == 200, response.text
            hits = response.json()
            files = {h["document"]["filename"] for h in hits}
            return hits if files == {"bees.md", "baikal.md"} else None

        wait_for("waiting for both files in the index", both_files_indexed, 150, up.process)
        print(f"searchable {time.monotonic() - copied_at:.1f} s after the copy")

        top = search(up, "how much stored honey does a colony need before frost").json()[0]
        assert top["document"]["filename"] == "bees.md"
        # small sections share a chunk: the citation lists every section it holds
        assert top["structure"]["heading_path"][0] == "Beekeeping handbook"
        assert "Winter feeding" in top["structure"].get(
            "sections", top["structure"]["heading_path"]
        )
        assert "twenty kilograms" in top["content"]

        top = search(up, "как дышит тюлень зимой подо льдом").json()[0]
        assert top["document"]["filename"] == "baikal.md"
        assert top["structure"]["heading_path"][0] == "Путеводитель по Байкалу"
        assert "Нерпа" in top["structure"].get("sections", top["structure"]["heading_path"])

        assert search(up, "honey", key="wrong").status_code == 401
        assert httpx.get(f"{up.dagster}/server_info", timeout=10).status_code == 200
        graph = httpx.post(
            f"{up.dagster}/graphql",
            json={"query": "{ assetNodes { assetKey { path } partitionKeys } }"},
            timeout=30,
        ).json()["data"]["assetNodes"]
        assert len(graph) >= 4  # the asset graph the UI draws
        for node in graph:  # one partition per file, on every asset
            assert set(node["partitionKeys"]) == {"demo/bees.md", "demo/baikal.md"}, node

        # one record per stack (by port); the CLI, run from any folder, finds the stack by it
        record = tmp_path / "config" / "mirage" / "stacks" / f"{up.api.rsplit(':', 1)[1]}.json"
        assert json.loads(record.read_text())["home"] == str(up.home)
        cli = subprocess.run(
            [str(Path(sys.executable).parent / "mirage"), "projects", "list", "--json"],
            env={k: v for k, v in os.environ.items() if not k.startswith("MIRAGE_")}
            | {"XDG_CONFIG_HOME": str(tmp_path / "config"), "MIRAGE_API_KEY": "k"},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert cli.returncode == 0, cli.stderr
        assert [p["name"] for p in json.loads(cli.stdout)] == ["demo"]
        up.process.send_signal(signal.SIGTERM)
        assert up.process.wait(40) == 0
        assert not record.exists()  # a clean stop forgets the stack
        deadline = time.monotonic() + 5  # postgres' last workers may take a moment to exit
        while (left := processes_mentioning(str(up.home))) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert left == [], "processes left behind:\n" + "\n".join(left)
    except BaseException:
        print(log_tails(up.home))
        raise
