"""Only the two settings modules read the environment: every other module of `mirage_pipeline`
and `mirage_query` gets what it needs from them (checked on the source, so a new read fails)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SETTINGS_MODULES = {"mirage_pipeline/settings.py", "mirage_query/settings.py"}
# `mirage up` hands its own environment on to the processes it starts
ALLOWED_FUNCTIONS = {("mirage_query/stack.py", "child_environment")}
_OS_READS = {"environ", "environb", "getenv", "getenvb"}


def environment_reads(source: str, path: str) -> list[str]:
    """`path:line (function)` of each `os.environ`/`os.getenv` in `source`, bar allowed ones."""
    found = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        is_read = (
            isinstance(node, ast.Attribute)
            and node.attr in _OS_READS
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ) or (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in _OS_READS for alias in node.names)
        )
        if is_read and (path, function) not in ALLOWED_FUNCTIONS:
            found.append(f"{path}:{node.lineno} ({function or 'module'})")
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse(source), "")
    return found


def test_nothing_outside_the_settings_modules_reads_the_environment() -> None:
    files = sorted(
        p for package in ("mirage_pipeline", "mirage_query") for p in (REPO / package).rglob("*.py")
    )
    assert len(files) > 50
    reads = [
        read
        for file in files
        if (path := file.relative_to(REPO).as_posix()) not in SETTINGS_MODULES
        for read in environment_reads(file.read_text(encoding="utf-8"), path)
    ]
    assert reads == [], (
        "read the variable in mirage_pipeline/settings.py or mirage_query/settings.py"
    )


def test_the_check_finds_each_way_of_reading() -> None:
    source = (
        "import os\nfrom os import getenv\n"
        "def f():\n    return os.environ.get('A'), os.getenv('B')\n"
        "def child_environment():\n    return {**os.environ}\n"
        "class C:\n    def proc(self, p):\n        return p.environ()\n"
    )
    assert environment_reads(source, "mirage_query/x.py") == [
        "mirage_query/x.py:2 (module)",
        "mirage_query/x.py:4 (f)",
        "mirage_query/x.py:4 (f)",
        "mirage_query/x.py:6 (child_environment)",
    ]
    # the copy for the children is allowed in stack.py only
    assert environment_reads(source, "mirage_query/stack.py")[-1] == "mirage_query/stack.py:4 (f)"
