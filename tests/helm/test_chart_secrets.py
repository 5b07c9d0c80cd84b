"""Secrets stay in the Secret (or an existingSecret); values.schema.json refuses bad values."""

from __future__ import annotations

import base64
import json

import pytest

from tests.helm.conftest import CHART, RELEASE, Render, find, load_values

API_KEY = "apikey-Known-7f3a9c"
DB_PASSWORD = "dbpass-Known-51e2b8"


def _text(manifest: dict) -> str:
    return json.dumps(manifest)


@pytest.mark.parametrize("postgresql_enabled", [True, False])
def test_no_secret_value_outside_the_secret(render: Render, postgresql_enabled):
    values = {"auth": {"apiKey": API_KEY}}
    if postgresql_enabled:
        values["postgresql"] = {"auth": {"password": DB_PASSWORD}}
    else:
        values["postgresql"] = {"enabled": False}
        values["externalDatabase"] = {"host": "db.internal", "password": DB_PASSWORD}
    manifests = render(values)
    secret = find(manifests, "Secret", f"{RELEASE}-auth")
    decoded = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert decoded == {"api-key": API_KEY, "postgresql-password": DB_PASSWORD}
    encoded = {base64.b64encode(s.encode()).decode() for s in (API_KEY, DB_PASSWORD)}
    for m in manifests:
        if m["kind"] == "Secret":
            continue
        text = _text(m)
        for needle in (API_KEY, DB_PASSWORD, *encoded):
            assert needle not in text, f"{m['kind']}/{m['metadata']['name']} leaks a secret"


def test_secrets_reach_containers_only_by_reference(render: Render):
    manifests = render({"auth": {"apiKey": API_KEY}})
    refs = set()
    for m in manifests:
        if m["kind"] not in ("Deployment", "StatefulSet"):
            continue
        for c in m["spec"]["template"]["spec"]["containers"]:
            for env in c.get("env", []):
                if "valueFrom" in env:
                    ref = env["valueFrom"]["secretKeyRef"]
                    refs.add((env["name"], ref["name"], ref["key"]))
    assert ("MIRAGE_API_KEY", f"{RELEASE}-auth", "api-key") in refs
    assert ("DAGSTER_PG_PASSWORD", f"{RELEASE}-auth", "postgresql-password") in refs
    assert ("POSTGRES_PASSWORD", f"{RELEASE}-auth", "postgresql-password") in refs


def test_generated_secrets_are_long_and_random(render: Render):
    secret = find(render(), "Secret", f"{RELEASE}-auth")
    decoded = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert len(decoded["api-key"]) >= 32 and decoded["api-key"].isalnum()
    assert len(decoded["postgresql-password"]) >= 24 and decoded["postgresql-password"].isalnum()
    assert decoded["api-key"] != decoded["postgresql-password"]


def test_existing_secret_is_used_and_none_is_rendered(render: Render):
    values = load_values([CHART / "ci" / "existing-secret-values.yaml"])
    manifests = render(values)
    assert not [m for m in manifests if m["kind"] == "Secret"]
    names = set()
    for m in manifests:
        for key in ("secretKeyRef", "secretRef"):
            names |= _find_refs(m, key)
    assert names == {"my-mirage-credentials"}
    instance = find(manifests, "ConfigMap", f"{RELEASE}-dagster-instance")["data"]["dagster.yaml"]
    assert "name: my-mirage-credentials" in instance


def _find_refs(node, key: str) -> set[str]:
    found = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, dict):
                found.add(v["name"])
            else:
                found |= _find_refs(v, key)
    elif isinstance(node, list):
        for item in node:
            found |= _find_refs(item, key)
    return found


def test_database_url_expands_the_password_from_the_secret(render: Render):
    spec = find(render(), "Deployment", f"{RELEASE}-query")["spec"]["template"]["spec"]
    env = spec["containers"][0]["env"]
    names = [e["name"] for e in env]
    # Kubernetes only expands $(VAR) for variables defined earlier in the list.
    assert names.index("DAGSTER_PG_PASSWORD") < names.index("MIRAGE_DATABASE_URL")
    url = next(e["value"] for e in env if e["name"] == "MIRAGE_DATABASE_URL")
    assert url == f"postgresql://mirage:$(DAGSTER_PG_PASSWORD)@{RELEASE}-postgresql:5432/mirage"


def test_external_database_replaces_the_statefulset(render: Render):
    values = load_values([CHART / "ci" / "external-database-values.yaml"])
    manifests = render(values)
    assert not [m for m in manifests if m["kind"] == "StatefulSet"]
    assert not [m for m in manifests if m["metadata"]["name"] == f"{RELEASE}-postgresql"]
    spec = find(manifests, "Deployment", f"{RELEASE}-query")["spec"]["template"]["spec"]
    url = next(
        e["value"] for e in spec["containers"][0]["env"] if e["name"] == "MIRAGE_DATABASE_URL"
    )
    assert url == (
        "postgresql://mirage_app:$(DAGSTER_PG_PASSWORD)@db.example.internal:5432/"
        "mirage_index?sslmode=require"
    )
    instance = find(manifests, "ConfigMap", f"{RELEASE}-dagster-instance")["data"]["dagster.yaml"]
    assert 'hostname: "db.example.internal"' in instance
    assert 'db_name: "mirage_dagster"' in instance
    assert 'sslmode: "require"' in instance


@pytest.mark.parametrize(
    ("values", "complaint"),
    [
        ({"image": {"tag": "latest"}}, "/image/tag"),
        ({"postgresql": {"image": {"tag": "latest"}}}, "/postgresql/image/tag"),
        ({"dagster": {"runLauncher": {"type": "CeleryK8sRunLauncher"}}}, "runLauncher/type"),
        ({"query": {"replicass": 2}}, "replicass"),
        ({"query": {"resources": {"limits": None}}}, "/query/resources"),
        ({"postgresql": {"enabled": False}}, "/externalDatabase"),
        ({"postgresql": {"auth": {"password": "p@ss/word"}}}, "/postgresql/auth/password"),
        ({"securityContext": {"runAsNonRoot": False}}, "/securityContext/runAsNonRoot"),
        ({"mirage": {"embedder": "openai:text-embedding-3"}}, "/mirage/embedder"),
        ({"ollama": {"enabled": False}}, "ollama"),
    ],
)
def test_values_schema_rejects_bad_values(chart, helm, values, complaint):
    with pytest.raises(helm.HelmValuesError, match=complaint):
        chart.validate_schema(values)
    with pytest.raises(helm.HelmValuesError):
        chart.render(values, name=RELEASE, namespace=RELEASE)


def test_values_schema_rejects_a_bad_values_file(chart, helm, tmp_path):
    bad = tmp_path / "bad-values.yaml"
    bad.write_text("image:\n  tag: latest\ndagster:\n  runLauncher:\n    type: Celery\n")
    with pytest.raises(helm.HelmValuesError, match="runLauncher"):
        chart.validate_schema(helm.values_from_yaml(bad.read_text()))


def test_values_schema_accepts_the_defaults_and_every_values_file(chart):
    from tests.helm.conftest import VALUES_FILES

    chart.validate_schema({})
    for paths in VALUES_FILES.values():
        chart.validate_schema(load_values(paths))
