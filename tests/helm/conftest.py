"""Render the chart offline (helm-python-sdk embeds Helm's Go SDK; no helm binary, no cluster)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm" / "mirage"
RELEASE = "mirage"
NAMESPACE = "mirage"

# Every values combination the chart must render; names are test ids.
VALUES_FILES: dict[str, list[Path]] = {
    "default": [],
    **{p.stem.removesuffix("-values"): [p] for p in sorted((CHART / "ci").glob("*.yaml"))},
    **{f"example-{p.stem}": [p] for p in sorted((REPO / "helm" / "examples").glob("*.yaml"))},
}

Manifest = dict[str, Any]
Render = Callable[..., list[Manifest]]


def load_values(paths: list[Path]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in paths:
        merged = deep_merge(merged, yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    return merged


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


@pytest.fixture(scope="session")
def helm():
    return pytest.importorskip("helm_python", reason="helm-python-sdk is not installed")


@pytest.fixture(scope="session")
def chart(helm):
    with helm.Chart.load(CHART) as loaded:
        yield loaded


@pytest.fixture(scope="session")
def render(chart) -> Render:
    """values → the manifests `helm install` would apply (hooks included), as dicts."""
    cache: dict[str, list[Manifest]] = {}

    def _render(values: dict[str, Any] | None = None) -> list[Manifest]:
        key = yaml.safe_dump(values or {}, sort_keys=True)
        if key not in cache:
            files = chart.render(values or {}, name=RELEASE, namespace=NAMESPACE, is_install=True)
            cache[key] = [
                doc
                for name, text in sorted(files.items())
                if not name.endswith("NOTES.txt")
                for doc in yaml.safe_load_all(text)
                if doc
            ]
        return cache[key]

    return _render


def find(manifests: list[Manifest], kind: str, name: str) -> Manifest:
    matches = [m for m in manifests if m["kind"] == kind and m["metadata"]["name"] == name]
    assert len(matches) == 1, f"{kind}/{name}: {len(matches)} found"
    return matches[0]


def pod_specs(manifests: list[Manifest]) -> list[tuple[str, dict[str, Any]]]:
    """(kind/name, pod spec) of every workload."""
    out = []
    for m in manifests:
        if m["kind"] in ("Deployment", "StatefulSet", "Job", "DaemonSet"):
            out.append((f"{m['kind']}/{m['metadata']['name']}", m["spec"]["template"]["spec"]))
    return out
