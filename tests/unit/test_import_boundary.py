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


def test_a_pdf_is_parsed_without_pymupdfs_layout_model() -> None:
    """PyMuPDF 2 loads its ONNX layout model when imported (~1 s, ~50 MB a process): not through
    the parsers, nor in the fork server Dagster's runs start from (dagster_code_server)."""
    code = (
        "import importlib, sys\n"
        "from mirage_pipeline.dagster_code_server import PRELOAD\n"
        "for name in PRELOAD:\n"
        "    importlib.import_module(name)\n"
        "import pymupdf\n"
        "from mirage_pipeline.parsing import parse_document\n"
        "pdf = pymupdf.open()\n"
        "pdf.new_page().insert_text((72, 72), 'A page of text that a reader can read. ' * 2)\n"
        "doc = parse_document(pdf.tobytes(), 'page.pdf')\n"
        "print(sys.modules.get('pymupdf.layout'), pymupdf._get_layout, doc.pages)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "None", "1"]


def test_pymupdf_alone_does_load_its_layout_model() -> None:  # the check above can fail
    code = "import pymupdf; print(pymupdf._get_layout is not None)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
