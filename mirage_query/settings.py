"""The query service's and the CLI's settings: the pipeline's, plus their own MIRAGE_* variables.

Checked by the pipeline's checkers, so a bad value fails with the same message naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirage_pipeline.settings import (
    Settings,
    SettingsError,
    choice_setting,
    http_url_setting,
    port_setting,
    positive_int_setting,
    seconds_setting,
    weight_setting,
)

DEFAULT_API_URL = "http://localhost:8080/api/v1"


@dataclass(frozen=True)
class ServiceSettings(Settings):
    """What the query service, `mirage up` and the CLI need on top of the pipeline's settings."""

    api_keys: tuple[str, ...] = field(default=(), repr=False)
    api_host: str = "127.0.0.1"
    api_port: int = 8080
    dagster_port: int = 3000
    api_url: str = DEFAULT_API_URL
    max_upload_bytes: int = 200 * 1024 * 1024
    fusion: str = "score"  # how hybrid search fuses its legs: "score" or "rrf"
    rrf_k: int = 60
    text_weight: float = 0.4  # of the full-text leg in the fusion
    request_body_timeout: float = 30.0  # seconds the service waits for more of a request body
    # English-Russian dictionary for search across languages (translation.py); None: the
    # first of translation.DEFAULT_PATHS that exists
    dictionary: Path | None = None
    # unset: database `dagster` of the same server; kept out of repr (it may hold a password)
    dagster_database_url: str | None = field(default=None, repr=False)
    stacks_dir: Path = field(default_factory=lambda: Path.home() / ".config" / "mirage" / "stacks")
    # whether MIRAGE_HOME / MIRAGE_API_URL were given (the CLI then means that stack, that URL)
    home_given: bool = False
    api_url_given: bool = False

    @classmethod
    def fields_from(cls, env: Mapping[str, str]) -> dict[str, Any]:
        config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return super().fields_from(env) | dict(
            api_keys=_api_keys(env.get("MIRAGE_API_KEY")),
            api_host=env.get("MIRAGE_API_HOST") or "127.0.0.1",
            api_port=port_setting("MIRAGE_API_PORT", env.get("MIRAGE_API_PORT"), 8080),
            dagster_port=port_setting("MIRAGE_DAGSTER_PORT", env.get("MIRAGE_DAGSTER_PORT"), 3000),
            api_url=http_url_setting(
                "MIRAGE_API_URL", env.get("MIRAGE_API_URL") or DEFAULT_API_URL
            ),
            max_upload_bytes=1024
            * 1024
            * positive_int_setting("MIRAGE_MAX_UPLOAD_MB", env.get("MIRAGE_MAX_UPLOAD_MB"), 200),
            rrf_k=positive_int_setting("MIRAGE_RRF_K", env.get("MIRAGE_RRF_K"), 60),
            fusion=choice_setting("MIRAGE_FUSION", env.get("MIRAGE_FUSION"), ("score", "rrf")),
            text_weight=weight_setting("MIRAGE_TEXT_WEIGHT", env.get("MIRAGE_TEXT_WEIGHT"), 0.4),
            request_body_timeout=seconds_setting(
                "MIRAGE_REQUEST_BODY_TIMEOUT", env.get("MIRAGE_REQUEST_BODY_TIMEOUT"), 30.0
            ),
            dagster_database_url=env.get("MIRAGE_DAGSTER_DATABASE_URL") or None,
            dictionary=Path(env["MIRAGE_DICTIONARY"]) if env.get("MIRAGE_DICTIONARY") else None,
            stacks_dir=Path(config_home) / "mirage" / "stacks",
            home_given=bool(env.get("MIRAGE_HOME")),
            api_url_given=bool(env.get("MIRAGE_API_URL")),
        )

    @property
    def api_key_file(self) -> Path:
        return self.home / "api-key"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"


def _api_keys(raw: str | None) -> tuple[str, ...]:
    if not raw:
        return ()
    keys = tuple(k.strip() for k in raw.split(",") if k.strip())
    if not keys:
        raise SettingsError("MIRAGE_API_KEY is set but holds no key")
    return keys


def read_api_keys(settings: ServiceSettings) -> tuple[str, ...]:
    """Keys from MIRAGE_API_KEY, else the one `mirage up` wrote to $MIRAGE_HOME/api-key."""
    if settings.api_keys:
        return settings.api_keys
    try:
        key = settings.api_key_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ()
    return (key,) if key else ()
