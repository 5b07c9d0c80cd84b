"""Settings for CLI commands: a bad variable is a usage error, not a traceback."""

from __future__ import annotations

import click

from mirage_pipeline.settings import SettingsError
from mirage_query.settings import ServiceSettings


def load_settings() -> ServiceSettings:
    """The service settings from the environment; a bad variable exits with a usage error."""
    try:
        return ServiceSettings.from_env()
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
