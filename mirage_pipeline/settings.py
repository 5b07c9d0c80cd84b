"""Settings from MIRAGE_* environment variables; a bad value fails with a message naming it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlparse

from mirage_pipeline.names import BUNDLED_EMBEDDER
from mirage_pipeline.parsing.budgets import MB, Budgets

DEFAULT_EMBEDDER = BUNDLED_EMBEDDER
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
DEFAULT_API_URL = "http://localhost:8080/api/v1"
_EMBEDDER_RE = re.compile(
    rf"^({re.escape(BUNDLED_EMBEDDER)}|ollama:[A-Za-z0-9][\w.\-/]*(:[\w.\-]+)?)$"
)


class SettingsError(ValueError):
    """An environment variable holds a value miRAGe cannot use."""


@dataclass(frozen=True)
class Settings:
    """Everything a miRAGe process needs to know about where things are."""

    home: Path
    documents_dir: Path
    database_url: str | None = None
    embedder: str = DEFAULT_EMBEDDER
    ollama_host: str = DEFAULT_OLLAMA_HOST
    api_keys: tuple[str, ...] = field(default=(), repr=False)
    api_host: str = "127.0.0.1"
    api_port: int = 8080
    dagster_port: int = 3000
    api_url: str = DEFAULT_API_URL
    max_concurrent_runs: int = 2
    embed_concurrency: int = 1  # embedding steps at once, across all runs (a Dagster pool)
    max_upload_bytes: int = 200 * 1024 * 1024
    fusion: str = "score"  # how hybrid search fuses its legs: "score" or "rrf"
    rrf_k: int = 60
    text_weight: float = 0.4  # of the full-text leg in the fusion
    budgets: Budgets = field(default_factory=Budgets)  # what one document may cost
    max_run_seconds: int = 3 * 3600  # one indexing run, whatever it does
    embed_batch: int = 32  # texts embedded per turn of the shared embedder
    batch_documents: int = 100  # documents one indexing run takes at most
    batch_bytes: int = 16 * 1024 * 1024  # and their files' bytes (a bigger file runs alone)
    query_embed_timeout: float = 4.0  # seconds a search waits for its query's vector
    request_body_timeout: float = 30.0  # seconds the service waits for more of a request body

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        home = Path(env.get("MIRAGE_HOME") or ".mirage").expanduser().resolve()
        docs_raw = env.get("MIRAGE_DOCUMENTS_DIR")
        documents_dir = Path(docs_raw).expanduser().resolve() if docs_raw else home / "documents"
        return cls(
            home=home,
            documents_dir=documents_dir,
            database_url=database_url_setting(env.get("MIRAGE_DATABASE_URL")),
            embedder=embedder_setting(env.get("MIRAGE_EMBEDDER") or DEFAULT_EMBEDDER),
            ollama_host=http_url_setting(
                "OLLAMA_HOST", env.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
            ),
            api_keys=_api_keys(env.get("MIRAGE_API_KEY")),
            api_host=env.get("MIRAGE_API_HOST") or "127.0.0.1",
            api_port=_port("MIRAGE_API_PORT", env.get("MIRAGE_API_PORT"), 8080),
            dagster_port=_port("MIRAGE_DAGSTER_PORT", env.get("MIRAGE_DAGSTER_PORT"), 3000),
            api_url=http_url_setting(
                "MIRAGE_API_URL", env.get("MIRAGE_API_URL") or DEFAULT_API_URL
            ),
            max_concurrent_runs=_positive_int(
                "MIRAGE_MAX_CONCURRENT_RUNS", env.get("MIRAGE_MAX_CONCURRENT_RUNS"), 2
            ),
            embed_concurrency=_positive_int(
                "MIRAGE_EMBED_CONCURRENCY", env.get("MIRAGE_EMBED_CONCURRENCY"), 1
            ),
            max_upload_bytes=1024
            * 1024
            * _positive_int("MIRAGE_MAX_UPLOAD_MB", env.get("MIRAGE_MAX_UPLOAD_MB"), 200),
            rrf_k=_positive_int("MIRAGE_RRF_K", env.get("MIRAGE_RRF_K"), 60),
            fusion=_choice("MIRAGE_FUSION", env.get("MIRAGE_FUSION"), ("score", "rrf")),
            text_weight=_weight("MIRAGE_TEXT_WEIGHT", env.get("MIRAGE_TEXT_WEIGHT"), 0.4),
            budgets=_budgets(env),
            max_run_seconds=60
            * _positive_int("MIRAGE_MAX_RUN_MINUTES", env.get("MIRAGE_MAX_RUN_MINUTES"), 180),
            embed_batch=_positive_int("MIRAGE_EMBED_BATCH", env.get("MIRAGE_EMBED_BATCH"), 32),
            batch_documents=_positive_int(
                "MIRAGE_BATCH_DOCUMENTS", env.get("MIRAGE_BATCH_DOCUMENTS"), 100
            ),
            batch_bytes=1024
            * 1024
            * _positive_int("MIRAGE_BATCH_MB", env.get("MIRAGE_BATCH_MB"), 16),
            query_embed_timeout=_seconds(
                "MIRAGE_QUERY_EMBED_TIMEOUT", env.get("MIRAGE_QUERY_EMBED_TIMEOUT"), 4.0
            ),
            request_body_timeout=_seconds(
                "MIRAGE_REQUEST_BODY_TIMEOUT", env.get("MIRAGE_REQUEST_BODY_TIMEOUT"), 30.0
            ),
        )

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **changes)

    @property
    def api_key_file(self) -> Path:
        return self.home / "api-key"

    @property
    def pgdata_dir(self) -> Path:
        return self.home / "pgdata"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"


def _budgets(env: Mapping[str, str]) -> Budgets:
    d = Budgets()

    def whole(name: str, default: int) -> int:
        return _positive_int(name, env.get(name), default)

    return Budgets(
        file_bytes=MB * whole("MIRAGE_MAX_FILE_MB", d.file_bytes // MB),
        unzipped_bytes=MB * whole("MIRAGE_MAX_UNZIPPED_MB", d.unzipped_bytes // MB),
        zip_members=whole("MIRAGE_MAX_ZIP_MEMBERS", d.zip_members),
        pages=whole("MIRAGE_MAX_PAGES", d.pages),
        characters=whole("MIRAGE_MAX_CHARACTERS", d.characters),
        chunks=whole("MIRAGE_MAX_CHUNKS", d.chunks),
    )


def _choice(name: str, raw: str | None, choices: tuple[str, ...]) -> str:
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


def _port(name: str, raw: str | None, default: int) -> int:
    if raw is None or raw == "":
        return default
    try:
        port = int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise SettingsError(f"{name}={raw!r} is not a port number (1-65535)")
    return port


def _positive_int(name: str, raw: str | None, default: int) -> int:
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a whole number") from None
    if value < 1:
        raise SettingsError(f"{name}={raw!r} must be at least 1")
    return value


def _weight(name: str, raw: str | None, default: float) -> float:
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number") from None
    if not 0.0 <= value <= 10.0:
        raise SettingsError(f"{name}={raw!r} must be between 0 and 10")
    return value


def _seconds(name: str, raw: str | None, default: float) -> float:
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


def _api_keys(raw: str | None) -> tuple[str, ...]:
    if not raw:
        return ()
    keys = tuple(k.strip() for k in raw.split(",") if k.strip())
    if not keys:
        raise SettingsError("MIRAGE_API_KEY is set but holds no key")
    return keys


def read_api_keys(settings: Settings) -> tuple[str, ...]:
    """Keys from MIRAGE_API_KEY, else the one `mirage up` wrote to $MIRAGE_HOME/api-key."""
    if settings.api_keys:
        return settings.api_keys
    try:
        key = settings.api_key_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ()
    return (key,) if key else ()
