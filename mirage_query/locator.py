"""Where the local stacks live, for CLI calls made from any folder.

`mirage up` records its home and API URL in `$XDG_CONFIG_HOME/mirage/stacks/<port>.json`
(`~/.config/…`: the settings' `stacks_dir`), one record per query-service port, so two stacks
side by side (each with its own MIRAGE_HOME and ports) never overwrite each other's record; a
clean stop removes its own.
The CLI, run from another folder, takes the stack of its MIRAGE_HOME, else the one on its
MIRAGE_API_URL's port, else the only recorded stack whose service answers — and reads that
stack's API key (only ever for a service on this machine).
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import httpx


@dataclass(frozen=True)
class LocalStack:
    home: Path
    api_url: str  # …/api/v1

    @property
    def port(self) -> int | None:
        return _port(self.api_url)


def record_stack(folder: Path, home: Path, api_url: str) -> None:
    """Record the stack serving `api_url` in `folder` (replacing a stale record of that port)."""
    path = folder / f"{_port(api_url)}.json"
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"home": str(home), "api_url": api_url}), encoding="utf-8")
        tmp.replace(path)


def forget_stack(folder: Path, home: Path) -> None:
    """Remove the records of the stack whose home is `home` (another stack's stay)."""
    for path, stack in _records(folder):
        if stack.home == home:
            with contextlib.suppress(OSError):
                path.unlink()


def recorded_stacks(folder: Path) -> list[LocalStack]:
    return [stack for _, stack in _records(folder)]


def find_stack(
    folder: Path, api_url: str, *, url_given: bool, home: Path | None
) -> LocalStack | None:
    """The recorded stack a CLI call means: its home's, else the one on its URL's port, else
    (no URL given) the only recorded stack whose service answers."""
    stacks = recorded_stacks(folder)
    if home is not None:
        return next((s for s in stacks if s.home == home), None)
    port = _port(api_url)
    on_port = [s for s in stacks if s.port == port]
    if on_port or url_given:
        return on_port[0] if on_port else None
    answering = [s for s in stacks if answers(s.api_url)]
    return answering[0] if len(answering) == 1 else None


def answers(api_url: str) -> bool:
    """Whether the query service behind `api_url` (…/api/v1) answers its health check."""
    root = api_url.rstrip("/").removesuffix("/api/v1")
    try:
        return httpx.get(f"{root}/health", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def _records(folder: Path) -> list[tuple[Path, LocalStack]]:
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append((path, LocalStack(Path(data["home"]), str(data["api_url"]))))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def _port(url: str) -> int | None:
    parsed = urlparse(url)
    try:
        return parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)
    except ValueError:
        return None
