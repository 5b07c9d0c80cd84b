"""The pipeline's settings from MIRAGE_* environment variables, and the checkers every setting
goes through: a bad value fails with a message naming its variable.

This module and `mirage_query.settings` are the only places that read the environment."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlparse

from mirage_pipeline.names import BUNDLED_EMBEDDER
from mirage_pipeline.parsing.budgets import MB, Budgets

DEFAULT_EMBEDDER = BUNDLED_EMBEDDER
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
_EMBEDDER_RE = re.compile(
    rf"^({re.escape(BUNDLED_EMBEDDER)}|ollama:[A-Za-z0-9][\w.\-/]*(:[\w.\-]+)?)$"
)


class SettingsError(ValueError):
    """An environment variable holds a value miRAGe cannot use."""


@dataclass(frozen=True)
class Settings:
    """What the pipeline (and the service, which shares it) needs to know about where things
    are and what one run may do; the service's own settings extend it in mirage_query."""

    home: Path
    documents_dir: Path
    database_url: str | None = None
    embedder: str = DEFAULT_EMBEDDER
    ollama_host: str = DEFAULT_OLLAMA_HOST
    max_concurrent_runs: int = 2
    embed_concurrency: int = 1  # embedding steps at once, across all runs (a Dagster pool)
    budgets: Budgets = field(default_factory=Budgets)  # what one document may cost
    max_run_seconds: int = 3 * 3600  # one indexing run, whatever it does
    embed_batch: int = 32  # texts embedded per turn of the shared embedder
    batch_documents: int = 100  # documents one indexing run takes at most
    batch_bytes: int = 16 * 1024 * 1024  # and their files' bytes (a bigger file runs alone)
    query_embed_timeout: float = 4.0  # seconds to wait for an embedder's answer (a query's vector)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        """Read from `environ` (default: this process's environment) and checked."""
        return cls(**cls.fields_from(os.environ if environ is None else environ))

    @classmethod
    def fields_from(cls, env: Mapping[str, str]) -> dict[str, Any]:
        """This class's fields read from `env` and checked (a subclass adds its own)."""
        home = Path(env.get("MIRAGE_HOME") or ".mirage").expanduser().resolve()
        docs_raw = env.get("MIRAGE_DOCUMENTS_DIR")
        documents_dir = Path(docs_raw).expanduser().resolve() if docs_raw else home / "documents"
        return dict(
            home=home,
            documents_dir=documents_dir,
            database_url=database_url_setting(env.get("MIRAGE_DATABASE_URL")),
            embedder=embedder_setting(env.get("MIRAGE_EMBEDDER") or DEFAULT_EMBEDDER),
            ollama_host=http_url_setting(
                "OLLAMA_HOST", env.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
            ),
            max_concurrent_runs=positive_int_setting(
                "MIRAGE_MAX_CONCURRENT_RUNS", env.get("MIRAGE_MAX_CONCURRENT_RUNS"), 2
            ),
            embed_concurrency=positive_int_setting(
                "MIRAGE_EMBED_CONCURRENCY", env.get("MIRAGE_EMBED_CONCURRENCY"), 1
            ),
            budgets=_budgets(env),
            max_run_seconds=60
            * positive_int_setting(
                "MIRAGE_MAX_RUN_MINUTES", env.get("MIRAGE_MAX_RUN_MINUTES"), 180
            ),
            embed_batch=positive_int_setting(
                "MIRAGE_EMBED_BATCH", env.get("MIRAGE_EMBED_BATCH"), 32
            ),
            batch_documents=positive_int_setting(
                "MIRAGE_BATCH_DOCUMENTS", env.get("MIRAGE_BATCH_DOCUMENTS"), 100
            ),
            batch_bytes=1024
            * 1024
            * positive_int_setting("MIRAGE_BATCH_MB", env.get("MIRAGE_BATCH_MB"), 16),
            query_embed_timeout=seconds_setting(
                "MIRAGE_QUERY_EMBED_TIMEOUT", env.get("MIRAGE_QUERY_EMBED_TIMEOUT"), 4.0
            ),
        )

    def with_overrides(self, **changes: object) -> Self:
        return replace(self, **changes)

    @property
    def pgdata_dir(self) -> Path:
        return self.home / "pgdata"


def _budgets(env: Mapping[str, str]) -> Budgets:
    d = Budgets()

    def whole(name: str, default: int) -> int:
        return positive_int_setting(name, env.get(name), default)

    return Budgets(
        file_bytes=MB * whole("MIRAGE_MAX_FILE_MB", d.file_bytes // MB),
        unzipped_bytes=MB * whole("MIRAGE_MAX_UNZIPPED_MB", d.unzipped_bytes // MB),
        zip_members=whole("MIRAGE_MAX_ZIP_MEMBERS", d.zip_members),
        pages=whole("MIRAGE_MAX_PAGES", d.pages),
        characters=whole("MIRAGE_MAX_CHARACTERS", d.characters),
        chunks=whole("MIRAGE_MAX_CHUNKS", d.chunks),
    )


def choice_setting(name: str, raw: str | None, choices: tuple[str, ...]) -> str:
    """One of `choices` (the first when unset)."""
    if not raw:
        return choices[0]
    if raw not in choices:
        raise SettingsError(f"{name} must be one of {', '.join(choices)} (got {raw!r})")
    return raw


def database_url_setting(raw: str | None) -> str | None:
    """MIRAGE_DATABASE_URL checked: a postgresql:// URL, or None (the embedded server)."""
    if not raw:
        return None
    scheme = urlparse(raw).scheme
    if scheme not in ("postgresql", "postgres"):
        raise SettingsError(
            f"MIRAGE_DATABASE_URL must be a postgresql:// URL (got scheme {scheme!r}); "
            "leave it unset to use the embedded PostgreSQL"
        )
    return raw


def embedder_setting(raw: str) -> str:
    """MIRAGE_EMBEDDER checked: an embedder miRAGe has."""
    if not _EMBEDDER_RE.match(raw):
        raise SettingsError(
            f"MIRAGE_EMBEDDER={raw!r} is not supported: use {BUNDLED_EMBEDDER!r} "
            "or 'ollama:<model>' (for example 'ollama:mxbai-embed-large')"
        )
    return raw


def http_url_setting(name: str, raw: str) -> str:
    """An http(s) URL variable checked and normalised (`host:port` → `http://host:port`)."""
    parsed = urlparse(raw if "://" in raw else f"http://{raw}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise SettingsError(f"{name}={raw!r} is not an http(s) URL")
    return parsed.geturl().rstrip("/")


def port_setting(name: str, raw: str | None, default: int) -> int:
    """A TCP port number, 1-65535."""
    if raw is None or raw == "":
        return default
    try:
        port = int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise SettingsError(f"{name}={raw!r} is not a port number (1-65535)")
    return port


def positive_int_setting(name: str, raw: str | None, default: int) -> int:
    """A whole number of at least 1."""
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a whole number") from None
    if value < 1:
        raise SettingsError(f"{name}={raw!r} must be at least 1")
    return value


def weight_setting(name: str, raw: str | None, default: float) -> float:
    """A fusion weight between 0 and 10."""
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number") from None
    if not 0.0 <= value <= 10.0:
        raise SettingsError(f"{name}={raw!r} must be between 0 and 10")
    return value


def seconds_setting(name: str, raw: str | None, default: float) -> float:
    """A number of seconds between 0.1 and 3600."""
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number of seconds") from None
    if not 0.1 <= value <= 3600:
        raise SettingsError(f"{name}={raw!r} must be between 0.1 and 3600 seconds")
    return value


def variable_is_set(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment gives `name` a value (an empty one counts as unset)."""
    return bool((os.environ if environ is None else environ).get(name))


def model_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the bundled embedder keeps its built graph: $MIRAGE_MODEL_CACHE, else
    $XDG_CACHE_HOME/mirage, else ~/.cache/mirage."""
    env = os.environ if environ is None else environ
    given = env.get("MIRAGE_MODEL_CACHE")
    return (
        Path(given)
        if given
        else Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mirage"
    )
