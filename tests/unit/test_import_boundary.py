"""The query service and the CLI never import Dagster (they run where Dagster is not wanted)."""

from __future__ import annotations

import subprocess
import sys

MODULES = [
    "mirage_query.app",
    "mirage_query.search",
    "mirage_query.schemas",
    "mirage_query.cli",
    "mirage_query.stack",
    "mirage_pipeline.settings",
    "mirage_pipeline.store",
    "mirage_pipeline.store.documents",
    "mirage_pipeline.embedders",
    "mirage_pipeline.parsing",
    "mirage_pipeline.chunking",
]


def test_query_side_modules_do_not_import_dagster() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "leaked = sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster'))\n"
        "print(','.join(leaked))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_pipeline_does_import_dagster() -> None:  # the check above can fail
    code = "import sys, mirage_pipeline.definitions; print('dagster' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
