"""Where the local stack lives, for CLI calls made from any folder.

`mirage up` records its home and API URL in `$XDG_CONFIG_HOME/mirage/local-stack.json`
(`~/.config/…`); the CLI, run from another folder with no MIRAGE_HOME or MIRAGE_API_KEY, reads
the API key from that home (only ever for a service on this machine). A clean stop removes the
record if it is still its own.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path


def locator_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "mirage" / "local-stack.json"


def record_stack(home: Path, api_url: str) -> None:
    path = locator_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"home": str(home), "api_url": api_url}), encoding="utf-8")
        tmp.replace(path)


def forget_stack(home: Path) -> None:
    found = recorded_stack()
    if found and found.get("home") == str(home):
        with contextlib.suppress(OSError):
            locator_path().unlink()


def recorded_stack() -> dict[str, str] | None:
    try:
        data = json.loads(locator_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "home" in data else None
