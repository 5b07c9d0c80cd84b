"""Settings for CLI commands: a bad variable is a usage error, not a traceback."""

from __future__ import annotations

import click

from mirage_pipeline.settings import Settings, SettingsError


def load_settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
