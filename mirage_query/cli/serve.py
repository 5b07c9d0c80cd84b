"""`mirage serve`: the query service alone (what `mirage up` and the Helm chart run)."""

from __future__ import annotations

import click

from mirage_query.cli.settings import load_settings


@click.command()
@click.option(
    "--host", default=None, help="Interface to bind (default MIRAGE_API_HOST or 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (default MIRAGE_API_PORT or 8080).")
def serve(host: str | None, port: int | None) -> None:
    """Run the HTTP search service in the foreground."""
    import uvicorn

    from mirage_query.app import create_app

    settings = load_settings()
    if not settings.database_url:
        from mirage_pipeline.embedded_postgres import start_embedded_postgres

        server = start_embedded_postgres(settings.pgdata_dir, stop_at_exit=False)
        settings = settings.with_overrides(database_url=server.url)
    try:
        app = create_app(settings)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    uvicorn.run(
        app,
        host=host or settings.api_host,
        port=port or settings.api_port,
        log_level="info",
        timeout_graceful_shutdown=5,
    )
