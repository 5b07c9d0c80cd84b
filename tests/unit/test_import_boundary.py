"""The query service and the CLI never import Dagster (they run where Dagster is not wanted).

Every module of `mirage_query` is checked (found with `pkgutil.walk_packages`, so a new module is
checked without being listed), with the plain-Python pipeline modules the query side uses."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import mirage_query

PIPELINE_PLAIN = [
    "mirage_pipeline.names",
    "mirage_pipeline.settings",
    "mirage_pipeline.store",
    "mirage_pipeline.store.documents",
    "mirage_pipeline.embedders",
    "mirage_pipeline.parsing",
    "mirage_pipeline.chunking",
    "mirage_pipeline.language",
    "mirage_pipeline.morphology",
    "mirage_pipeline.documents_folder",
]


def query_side_modules() -> list[str]:
    found = [
        m.name
        for m in pkgutil.walk_packages(mirage_query.__path__, "mirage_query.")
        if not m.name.endswith("__main__")  # runs the CLI when imported
    ]
    return sorted(found) + PIPELINE_PLAIN


def test_every_query_side_module_is_found() -> None:
    modules = query_side_modules()
    for expected in ("mirage_query.app", "mirage_query.cli.search", "mirage_query.stack"):
        assert expected in modules
    assert len([m for m in modules if m.startswith("mirage_query.")]) >= 30


def test_query_side_modules_do_not_import_dagster() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {query_side_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "    if 'dagster' in sys.modules:\n"
        "        print(name)\n"
        "        break\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{out.stdout.strip()} imports Dagster"


def test_the_pipeline_does_import_dagster() -> None:  # the check above can fail
    code = "import sys, mirage_pipeline.definitions; print('dagster' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
