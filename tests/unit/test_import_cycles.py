"""No two modules of ours import each other, not even for type checking or inside a function:
a cycle means two modules that are really one, or a shared piece that wants its own module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("mirage_pipeline", "mirage_query")
KNOWN: set[frozenset[str]] = set()


def module_files() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Every import statement anywhere in each module (TYPE_CHECKING blocks and functions too)."""
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in files}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    if target in files:
                        graph[name].add(target)
                    elif node.module in files:
                        graph[name].add(node.module)
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = {stack.pop()}
            while v not in group:
                group.add(stack.pop())
            if len(group) > 1:
                found.add(frozenset(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_modules_of_ours_import_no_cycle() -> None:
    files = module_files()
    assert "mirage_pipeline.parsing.epub_archive" in files
    found = cycles(import_graph(files))
    assert found <= KNOWN, [sorted(c) for c in found - KNOWN]


def test_a_cycle_through_a_type_checking_import_is_found(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("from b import B\n")
    b.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a import A\n")
    graph = import_graph({"a": a, "b": b, "c": b})
    assert cycles(graph) == {frozenset({"a", "b"})}
