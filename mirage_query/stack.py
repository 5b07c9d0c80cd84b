"""`mirage up`'s supervisor: embedded PostgreSQL, Dagster webserver + daemon, the query service.

Plain Python on purpose: Dagster runs in child processes, never in this one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import mirage_pipeline
from mirage_pipeline.names import DAEMON_WATCH_FLAG
from mirage_query.children import (
    Child,
    StackError,
    console_script,
    log_tail,
    process_tree,
    start_child,
    stop_children,
    stop_signals,
    wait_until_ready,
)
from mirage_query.locator import forget_stack, record_stack
from mirage_query.settings import ServiceSettings
from mirage_query.stack_checks import (
    OrphanedStack,
    listener_pids,
    port_owner,
    refuse_orphans,
    running_postgres,
)

if TYPE_CHECKING:
    from mirage_pipeline.embedded_postgres import EmbeddedPostgres

READY_TIMEOUT = 120.0
MAX_RESTARTS = 5  # of one child within RESTART_WINDOW seconds, before the stack gives up
RESTART_WINDOW = 600.0

Echo = Callable[..., None]  # click.echo-compatible: echo(message, err=False)


def write_instance_config(settings: ServiceSettings) -> Path:
    """The repository's dagster.yaml with this machine's run and embedding concurrency."""
    import yaml

    config = yaml.safe_load(instance_file("dagster.yaml").read_text(encoding="utf-8"))
    config["concurrency"]["runs"]["max_concurrent_runs"] = settings.max_concurrent_runs
    config["concurrency"]["pools"]["default_limit"] = settings.embed_concurrency
    target = settings.dagster_home / "dagster.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return target


def instance_file(name: str) -> Path:
    """dagster.yaml / workspace.yaml: from the source checkout, else from the installed wheel."""
    checkout = Path(mirage_pipeline.__file__).resolve().parent.parent / name
    if checkout.is_file():
        return checkout
    packaged = resources.files("mirage_pipeline") / "instance" / name
    if packaged.is_file():
        return Path(str(packaged))
    raise StackError(f"cannot find {name} next to mirage_pipeline nor in mirage_pipeline/instance")


def ensure_api_key(settings: ServiceSettings) -> str:
    """MIRAGE_API_KEY if set, else the key in $MIRAGE_HOME/api-key (created once, mode 0600)."""
    if settings.api_keys:
        return ",".join(settings.api_keys)
    path = settings.api_key_file
    with contextlib.suppress(FileNotFoundError):
        key = path.read_text(encoding="utf-8").strip()
        if key:
            path.chmod(0o600)
            return key
    key = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(key + "\n")
    path.chmod(0o600)
    return key


def child_environment(
    settings: ServiceSettings, *, database_url: str, dagster_database_url: str, api_key: str
) -> dict[str, str]:
    """The environment every child gets: where everything is, so they all agree."""
    dagster_home = settings.dagster_home
    return {
        **os.environ,
        "MIRAGE_HOME": str(settings.home),
        "MIRAGE_DOCUMENTS_DIR": str(settings.documents_dir),
        "MIRAGE_DATABASE_URL": database_url,
        "MIRAGE_DAGSTER_DATABASE_URL": dagster_database_url,
        "MIRAGE_EMBEDDER": settings.embedder,
        "MIRAGE_API_KEY": api_key,
        "MIRAGE_API_PORT": str(settings.api_port),
        "MIRAGE_DAGSTER_PORT": str(settings.dagster_port),
        "MIRAGE_MAX_CONCURRENT_RUNS": str(settings.max_concurrent_runs),
        "MIRAGE_DAGSTER_STORAGE_DIR": str(dagster_home / "storage"),
        "MIRAGE_DAGSTER_COMPUTE_LOGS_DIR": str(dagster_home / "logs"),
        "DAGSTER_HOME": str(dagster_home),
        "PYTHONUNBUFFERED": "1",
    }


@contextlib.contextmanager
def home_lock(settings: ServiceSettings) -> Iterator[None]:
    """One `mirage up` per MIRAGE_HOME: a second one would share, and then stop, its PostgreSQL."""
    with (settings.home / "up.lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StackError(f"`mirage up` is already running for {settings.home}") from None
        yield


def _prepare_index(settings: ServiceSettings, database_url: str) -> str | None:
    """Migrate and bind the embedder's index. An embedder that does not answer (Ollama down)
    does not stop the stack: text search works, and the index is bound once it answers.
    Returns the warning to show, if any."""
    from mirage_pipeline.embedders import create_embedder
    from mirage_pipeline.store.migrate import migrate_and_bind

    try:
        embedder = create_embedder(settings.embedder, ollama_host=settings.ollama_host)
        _, failure = migrate_and_bind(database_url, embedder, timeout=settings.query_embed_timeout)
    except Exception as exc:
        reason = (str(exc) or type(exc).__name__).strip().splitlines()[0]
        raise StackError(f"cannot prepare the index for {settings.embedder}: {reason}") from exc
    if failure:
        return (
            f"the embedder {settings.embedder} does not answer ({failure}); starting anyway:"
            " text search works now, indexing and vector search once it answers"
        )
    return None


def _local_host(host: str) -> str:
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host


def _dagster_database(settings: ServiceSettings, database_url: str) -> str:
    """MIRAGE_DAGSTER_DATABASE_URL as given, else the `dagster` database of the same server."""
    if settings.dagster_database_url:
        return settings.dagster_database_url
    from mirage_pipeline.embedded_postgres import DAGSTER_DATABASE, ensure_database, with_database

    try:
        ensure_database(database_url, DAGSTER_DATABASE)
    except Exception as exc:
        raise StackError(f"cannot create the {DAGSTER_DATABASE!r} database: {exc}") from exc
    return with_database(database_url, DAGSTER_DATABASE, driver="psycopg2")


DAEMON_MODULE = "mirage_pipeline.dagster_daemon"


def _commands(settings: ServiceSettings) -> dict[str, list[str]]:
    workspace = str(instance_file("workspace.yaml"))
    webserver = console_script("dagster-webserver")
    port = str(settings.dagster_port)
    return {
        "dagster-webserver": [webserver, "-h", "127.0.0.1", "-p", port, "-w", workspace],
        # the daemon with a sensor loop of 1 s instead of 5 s, idle while the documents folder
        # does not change (mirage_pipeline/dagster_daemon.py)
        "dagster-daemon": [
            sys.executable,
            "-m",
            DAEMON_MODULE,
            "run",
            "-w",
            workspace,
            DAEMON_WATCH_FLAG,
        ],
        "query-service": [sys.executable, "-m", "mirage_query", "serve"],
    }


def _missing_folders(path: Path) -> list[Path]:
    """`path` and those of its parents that do not exist yet, outermost first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing[::-1]


def _make_folders(settings: ServiceSettings) -> None:
    dagster = settings.dagster_home
    for folder in (settings.documents_dir, dagster / "storage", dagster / "logs"):
        folder.mkdir(parents=True, exist_ok=True)
    (settings.home / "logs").mkdir(exist_ok=True)


class Stack:
    """One run of the local stack; `run()` returns the exit code."""

    def __init__(
        self, settings: ServiceSettings, echo: Echo, on_ready: Callable[[Stack], None]
    ) -> None:
        self.settings = settings
        self.echo = echo
        self.on_ready = on_ready
        self.dagster_url = f"http://127.0.0.1:{settings.dagster_port}"
        self.api_url = f"http://{_local_host(settings.api_host)}:{settings.api_port}"
        self.log_dir = settings.home / "logs"
        self.children: list[Child] = []
        self.postgres: EmbeddedPostgres | None = None
        self.postgres_started = False  # only a server this stack started is stopped by it
        self.folders_made = False

    def run(self) -> int:
        home = self.settings.home
        made = _missing_folders(home)  # the home and the parents it needs, outermost first
        home.mkdir(parents=True, exist_ok=True)  # for its lock; the rest once nothing refuses
        locked = False
        try:
            with stop_signals() as stop, home_lock(self.settings):
                locked = True
                try:
                    self._run(stop)
                except StackError as exc:
                    self.echo(f"mirage up: {exc}", err=True)  # before the stopping messages
                    return 1
                finally:
                    self._shut_down()
                    forget_stack(self.settings.stacks_dir, home)
        except StackError as exc:  # the lock: nothing was started
            self.echo(f"mirage up: {exc}", err=True)
            return 1
        finally:
            if locked and made and not self.folders_made:  # refused: leave no empty home
                (home / "up.lock").unlink(missing_ok=True)
                for folder in reversed(made):
                    with contextlib.suppress(OSError):
                        folder.rmdir()
        return 0

    def _run(self, stop: threading.Event) -> None:
        s = self.settings
        try:
            refuse_orphans(s)
        except OrphanedStack as exc:
            raise StackError(str(exc)) from None
        for name, port in (("query service", s.api_port), ("Dagster UI", s.dagster_port)):
            if owner := port_owner(port):
                raise StackError(f"port {port} for the {name} is already in use by {owner}")
        _make_folders(s)
        self.folders_made = True
        api_key = ensure_api_key(s)
        database_url = s.database_url or self._start_postgres()
        dagster_url = _dagster_database(s, database_url)
        self.echo(f"preparing the index ({s.embedder})")
        warning = _prepare_index(s, database_url)
        if warning:
            self.echo(f"warning: {warning}")
        write_instance_config(s)
        env = child_environment(
            s, database_url=database_url, dagster_database_url=dagster_url, api_key=api_key
        )
        commands = _commands(s)
        if stop.is_set():
            return
        self.echo(f"starting {', '.join(commands)} (logs in {self.log_dir})")
        for name, argv in commands.items():
            self.children.append(start_child(name, argv, env, self.log_dir))
        ready = {
            "query-service": f"{self.api_url}/health",
            "dagster-webserver": f"{self.dagster_url}/server_info",
        }
        wait_until_ready(self.children, ready, stop, READY_TIMEOUT)
        self._check_ownership({"query-service": s.api_port, "dagster-webserver": s.dagster_port})
        record_stack(s.stacks_dir, s.home, f"{self.api_url}/api/v1")
        if not stop.is_set():
            self.on_ready(self)
        while not stop.wait(1.0):
            self._restart_exited()

    def _check_ownership(self, ports: dict[str, int]) -> None:
        """The answers came from our children, not from someone else's processes."""
        for name, port in ports.items():
            child = next(c for c in self.children if c.name == name)
            tree = {p.pid for p in process_tree(child.process.pid)}
            owners = listener_pids(port)
            if owners and not owners & tree:
                raise StackError(
                    f"port {port} answers, but not from this stack's {name} "
                    f"(it is held by pid {', '.join(map(str, sorted(owners)))})"
                )

    def _restart_exited(self) -> None:
        """A child that died is started again (its leftover process group stopped first);
        one that keeps dying stops the stack with the end of its log."""
        for i, child in enumerate(self.children):
            code = child.process.poll()
            if code is None:
                continue
            now = time.monotonic()
            recent = [t for t in child.restarts if now - t < RESTART_WINDOW]
            tail = log_tail(child.log)
            if len(recent) >= MAX_RESTARTS:
                raise StackError(
                    f"{child.name} exited (code {code}) {len(recent) + 1} times within "
                    f"{RESTART_WINDOW / 60:.0f} minutes; end of {child.log}:\n{tail}"
                )
            self.echo(f"mirage up: {child.name} exited (code {code}); restarting it", err=True)
            stop_children([child], timeout=5)  # what it left in its process group
            again = start_child(child.name, child.argv, child.env, self.log_dir)
            again.restarts = [*recent, now]
            self.children[i] = again

    def _start_postgres(self) -> str:
        from mirage_pipeline.embedded_postgres import start_embedded_postgres

        running = running_postgres(self.settings.pgdata_dir)
        self.postgres_started = running is None
        if running:
            self.echo(f"using the PostgreSQL already running on {self.settings.pgdata_dir}")
        else:
            self.echo(f"starting PostgreSQL ({self.settings.pgdata_dir})")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
                self.postgres = start_embedded_postgres(
                    self.settings.pgdata_dir, stop_at_exit=self.postgres_started
                )
        except Exception as exc:
            raise StackError(f"cannot start the embedded PostgreSQL: {exc}") from exc
        return self.postgres.url

    def _shut_down(self) -> None:
        if self.children:
            self.echo("stopping " + ", ".join(c.name for c in self.children))
            stop_children(self.children)
        if self.postgres is not None and self.postgres_started:
            self.echo("stopping PostgreSQL")
            self.postgres.stop()
        elif self.postgres is not None:
            self.echo("leaving PostgreSQL running (this stack did not start it)")
