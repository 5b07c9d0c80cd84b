"""Init container of the Helm chart: wait until PostgreSQL answers and Ollama embeds with the model.

Runs in the miRAGe image (psycopg and httpx are there). Reads MIRAGE_DATABASE_URL,
MIRAGE_EMBEDDER, OLLAMA_HOST and MIRAGE_WAIT_TIMEOUT (seconds); with MIRAGE_WAIT_FOR_SCHEMA=1
(the query service) also waits until the code location's migrate step brought the schema to
this image's version. Exits 0 when all answer, 1 with the last reason when the time is up.
"""

import os
import sys
import time

import httpx
import psycopg


def database_answers(url: str) -> str | None:
    """None when `SELECT 1` works, else why not."""
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc!r}"
    return None


def model_answers(host: str, model: str) -> str | None:
    """None when Ollama embeds a word with `model` (pulled by the chart's hook Job)."""
    try:
        response = httpx.post(
            f"{host.rstrip('/')}/api/embed",
            json={"model": model, "input": "ready"},
            timeout=60,
        )
    except httpx.HTTPError as exc:
        return f"Ollama at {host}: {exc!r}"
    if response.status_code != 200:
        return f"Ollama at {host}: model {model!r} not ready ({response.status_code})"
    return None


def schema_behind(url: str) -> str | None:
    """None when the database has every migration of this image, else what it lacks."""
    from mirage_pipeline.store.schema import SchemaBehind, check_schema

    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            check_schema(conn)
    except (SchemaBehind, psycopg.Error) as exc:
        return f"schema: {str(exc).splitlines()[0]}"
    return None


def main() -> int:
    url = os.environ["MIRAGE_DATABASE_URL"]
    embedder = os.environ.get("MIRAGE_EMBEDDER", "")
    host = os.environ.get("OLLAMA_HOST", "http://localhost:11434")
    deadline = time.monotonic() + float(os.environ.get("MIRAGE_WAIT_TIMEOUT", "1800"))
    interval = float(os.environ.get("MIRAGE_WAIT_INTERVAL", "5"))
    while True:
        reason = database_answers(url)
        if reason is None and embedder.startswith("ollama:"):
            reason = model_answers(host, embedder.removeprefix("ollama:"))
        if reason is None and os.environ.get("MIRAGE_WAIT_FOR_SCHEMA") == "1":
            reason = schema_behind(url)
        if reason is None:
            print("PostgreSQL and the embedder answer", flush=True)  # (and the schema is current)
            return 0
        if time.monotonic() >= deadline:
            print(f"gave up waiting: {reason}", file=sys.stderr, flush=True)
            return 1
        print(f"waiting: {reason}", flush=True)
        time.sleep(interval)


if __name__ == "__main__":
    sys.exit(main())
