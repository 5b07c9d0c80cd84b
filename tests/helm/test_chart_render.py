"""The chart renders with every values combination, each manifest is valid Kubernetes, and the
policies hold: resources, probes, non-root, pinned images, labels."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.helm.conftest import (
    CHART,
    NAMESPACE,
    RELEASE,
    VALUES_FILES,
    Manifest,
    Render,
    find,
    load_values,
    pod_specs,
)

# The oldest Kubernetes the chart claims (Chart.yaml kubeVersion; gRPC probes are GA there) and
# a current one. kubernetes-validate ships these schemas: nothing is downloaded.
KUBE_VERSIONS = ("1.27", "1.33")


@pytest.fixture(scope="module")
def kubernetes_validate():
    return pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is missing")


@pytest.fixture(params=sorted(VALUES_FILES), scope="module")
def manifests(request, render: Render) -> list[Manifest]:
    return render(load_values(VALUES_FILES[request.param]))


def containers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [*spec.get("initContainers", []), *spec["containers"]]


def test_every_manifest_is_valid_kubernetes(manifests, kubernetes_validate):
    for manifest in manifests:
        for version in KUBE_VERSIONS:
            try:
                kubernetes_validate.validate(manifest, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                where = ".".join(str(p) for p in exc.path)
                pytest.fail(
                    f"{manifest['kind']}/{manifest['metadata']['name']} ({version}): "
                    f"{where}: {exc.message}"
                )


def test_a_broken_manifest_is_caught_by_the_validator(render, kubernetes_validate):
    deployment = find(render(), "Deployment", f"{RELEASE}-query")
    broken = {**deployment, "spec": {**deployment["spec"], "replicas": "two"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBE_VERSIONS[-1], strict=True)


def test_every_container_has_requests_and_limits(manifests):
    for where, spec in pod_specs(manifests):
        for c in containers(spec):
            for kind in ("requests", "limits"):
                got = c.get("resources", {}).get(kind, {})
                assert {"cpu", "memory"} <= set(got), f"{where}/{c['name']}: {kind} = {got}"


def test_every_container_runs_as_non_root_without_privilege_escalation(manifests):
    for where, spec in pod_specs(manifests):
        pod = spec.get("securityContext", {})
        for c in containers(spec):
            ctx = c.get("securityContext", {})
            assert ctx.get("runAsNonRoot", pod.get("runAsNonRoot")) is True, f"{where}/{c['name']}"
            assert ctx.get("runAsUser", pod.get("runAsUser", 0)) != 0, f"{where}/{c['name']}"
            assert ctx.get("allowPrivilegeEscalation") is False, f"{where}/{c['name']}"
            assert ctx.get("capabilities", {}).get("drop") == ["ALL"], f"{where}/{c['name']}"
            assert ctx.get("readOnlyRootFilesystem") is True, f"{where}/{c['name']}"


def test_every_image_tag_is_pinned(manifests):
    for where, spec in pod_specs(manifests):
        for c in containers(spec):
            image = c["image"]
            name, _, tag = image.rpartition(":")
            assert name and "/" not in tag, f"{where}/{c['name']}: {image} has no tag"
            assert tag not in ("latest", "stable", "main"), f"{where}/{c['name']}: {image}"
            assert c.get("imagePullPolicy") in ("IfNotPresent", "Always", "Never")


def test_serving_containers_have_probes(manifests):
    for where, spec in pod_specs(manifests):
        for c in spec["containers"]:
            if c.get("ports"):
                assert "readinessProbe" in c, f"{where}/{c['name']} serves without readiness"
                assert "livenessProbe" in c, f"{where}/{c['name']} serves without liveness"


def test_query_service_probes_health_and_ready(render):
    query = find(render(), "Deployment", f"{RELEASE}-query")["spec"]["template"]["spec"]
    container = query["containers"][0]
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["command"][:2] == ["mirage", "serve"]


def test_labels_are_standard_and_selectors_minimal(manifests):
    for m in manifests:
        labels = m["metadata"].get("labels", {})
        for key in (
            "app.kubernetes.io/name",
            "app.kubernetes.io/instance",
            "app.kubernetes.io/managed-by",
            "helm.sh/chart",
        ):
            assert key in labels, f"{m['kind']}/{m['metadata']['name']} lacks {key}"
        selector = m.get("spec", {}).get("selector", {})
        match = selector.get("matchLabels", selector if m["kind"] == "Service" else None)
        if match:
            assert set(match) <= {
                "app.kubernetes.io/name",
                "app.kubernetes.io/instance",
                "app.kubernetes.io/component",
            }, m["metadata"]["name"]


def test_workloads_roll_when_their_config_changes(render):
    base = render()
    changed = render({"dagster": {"runCoordinator": {"maxConcurrentRuns": 7}}})
    name = f"{RELEASE}-dagster-daemon"
    before = find(base, "Deployment", name)["spec"]["template"]["metadata"]["annotations"]
    after = find(changed, "Deployment", name)["spec"]["template"]["metadata"]["annotations"]
    assert before["checksum/instance"] != after["checksum/instance"]


def test_the_daemon_runs_with_a_one_second_sensor_loop(render):
    daemon = find(render(), "Deployment", f"{RELEASE}-dagster-daemon")
    command = daemon["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[:3] == ["python", "-m", "mirage_pipeline.dagster_daemon"]
    assert command[3] == "run"


def test_default_install_has_every_part(render):
    kinds = {(m["kind"], m["metadata"]["name"]) for m in render()}
    for expected in [
        ("Deployment", f"{RELEASE}-dagster-webserver"),
        ("Deployment", f"{RELEASE}-dagster-daemon"),
        ("Deployment", f"{RELEASE}-code-location"),
        ("Deployment", f"{RELEASE}-query"),
        ("Deployment", f"{RELEASE}-ollama"),
        ("StatefulSet", f"{RELEASE}-postgresql"),
        ("Job", f"{RELEASE}-ollama-pull-model"),
        ("Ingress", f"{RELEASE}-query"),
        ("Secret", f"{RELEASE}-auth"),
        ("Role", f"{RELEASE}-dagster"),
        ("RoleBinding", f"{RELEASE}-dagster"),
        ("PersistentVolumeClaim", f"{RELEASE}-documents"),
        ("NetworkPolicy", f"{RELEASE}-postgresql"),
        ("NetworkPolicy", f"{RELEASE}-ollama"),
    ]:
        assert expected in kinds, expected


def test_postgresql_image_is_pgvector(render):
    sts = find(render(), "StatefulSet", f"{RELEASE}-postgresql")
    image = sts["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image.startswith("pgvector/pgvector:") and image != "pgvector/pgvector:latest"


def test_model_is_pulled_by_a_post_install_and_post_upgrade_hook(render):
    job = find(render(), "Job", f"{RELEASE}-ollama-pull-model")
    hooks = job["metadata"]["annotations"]["helm.sh/hook"].split(",")
    assert set(hooks) == {"post-install", "post-upgrade"}
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    assert "/api/pull" in script
    env = {e["name"]: e["value"] for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env == {"OLLAMA_URL": f"http://{RELEASE}-ollama:11434", "MODEL": "mxbai-embed-large"}


def test_pipeline_and_query_wait_for_the_model_and_only_the_code_location_migrates(render):
    manifests = render({"ollama": {"model": "nomic-embed-text"}})
    env_cm = find(manifests, "ConfigMap", f"{RELEASE}-env")["data"]
    assert env_cm["MIRAGE_EMBEDDER"] == "ollama:nomic-embed-text"
    inits = {}
    for name in ("query", "code-location"):
        spec = find(manifests, "Deployment", f"{RELEASE}-{name}")["spec"]["template"]["spec"]
        inits[name] = {c["name"]: c for c in spec["initContainers"]}
    assert list(inits["code-location"]) == ["wait-for-dependencies", "migrate"]
    assert inits["code-location"]["migrate"]["command"] == [
        "python",
        "-m",
        "mirage_pipeline.store.migrate",
    ]
    assert list(inits["query"]) == ["wait-for-dependencies"]  # the query service never migrates

    def waits_for_schema(container: dict) -> bool:
        return {"name": "MIRAGE_WAIT_FOR_SCHEMA", "value": "1"} in container["env"]

    assert waits_for_schema(inits["query"]["wait-for-dependencies"])
    assert not waits_for_schema(inits["code-location"]["wait-for-dependencies"])
    assert "MIRAGE_DAGSTER_URL" not in env_cm  # re-index requests go through the database


def test_ingress_off_renders_no_ingress(render):
    assert not [m for m in render({"ingress": {"enabled": False}}) if m["kind"] == "Ingress"]


def test_ingress_host_and_tls(render):
    values = {"ingress": {"host": "mirage.your-domain.ru", "tlsSecretName": "mirage-tls"}}
    ingress = find(render(values), "Ingress", f"{RELEASE}-query")
    assert ingress["spec"]["rules"][0]["host"] == "mirage.your-domain.ru"
    assert ingress["spec"]["tls"] == [
        {"secretName": "mirage-tls", "hosts": ["mirage.your-domain.ru"]}
    ]
    assert ingress["spec"]["ingressClassName"] == "traefik"


def test_hpa_replaces_fixed_replicas(render):
    manifests = render({"query": {"autoscaling": {"enabled": True, "maxReplicas": 5}}})
    hpa = find(manifests, "HorizontalPodAutoscaler", f"{RELEASE}-query")
    assert hpa["spec"]["maxReplicas"] == 5
    assert "replicas" not in find(manifests, "Deployment", f"{RELEASE}-query")["spec"]


def test_gpu_for_ollama(render):
    values = {"ollama": {"gpu": {"enabled": True, "runtimeClassName": "nvidia"}}}
    spec = find(render(values), "Deployment", f"{RELEASE}-ollama")["spec"]["template"]["spec"]
    assert spec["runtimeClassName"] == "nvidia"
    assert spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 1


def test_only_the_query_service_and_dagster_reach_postgresql_and_ollama(render):
    manifests = render()
    allowed = {}
    for name in ("postgresql", "ollama"):
        policy = find(manifests, "NetworkPolicy", f"{RELEASE}-{name}")
        peer = policy["spec"]["ingress"][0]["from"][0]["podSelector"]
        assert peer["matchLabels"] == {"app.kubernetes.io/instance": RELEASE}
        allowed[name] = set(peer["matchExpressions"][0]["values"])
    assert allowed["postgresql"] == {
        "query",
        "dagster-webserver",
        "dagster-daemon",
        "code-location",
        "run",
    }
    assert allowed["ollama"] == {"query", "code-location", "run", "ollama-pull-model"}


def test_release_namespace_is_used(render):
    rb = find(render(), "RoleBinding", f"{RELEASE}-dagster")
    assert rb["subjects"][0]["namespace"] == NAMESPACE


def test_helm_lint_strict_finds_no_warning_or_error(helm):
    report = helm.lint(CHART, strict=True, namespace=NAMESPACE, kube_version="v1.31.0")
    problems = [m for m in report["messages"] if m["severity"] >= 2]
    assert report["total_charts_linted"] == 1
    assert not problems and not report["errors"], problems or report["errors"]


def test_budgets_and_run_monitoring_reach_the_pods_and_dagster(render):
    budgets = {"maxPages": 100, "maxChunks": 5000, "batchDocuments": 20}
    manifests = render({"mirage": {"budgets": budgets}})
    env = [m for m in manifests if m["kind"] == "ConfigMap" and "MIRAGE_HOME" in m["data"]]
    data = env[0]["data"]
    assert data["MIRAGE_MAX_PAGES"] == "100" and data["MIRAGE_MAX_CHUNKS"] == "5000"
    assert data["MIRAGE_BATCH_DOCUMENTS"] == "20" and "MIRAGE_BATCH_MB" not in data
    assert data["MIRAGE_EMBED_CONCURRENCY"] == "2"
    assert "MIRAGE_MAX_FILE_MB" not in data  # unset: miRAGe's default
    instance = next(
        m for m in manifests if m["kind"] == "ConfigMap" and "dagster.yaml" in m.get("data", {})
    )
    config = yaml.safe_load(instance["data"]["dagster.yaml"])
    monitoring = config["run_monitoring"]
    assert monitoring["enabled"] and monitoring["free_slots_after_run_end_seconds"] > 0
    assert config["run_coordinator"]["config"]["dequeue_interval_seconds"] == 1
    assert config["retention"]["sensor"]["purge_after_days"]["skipped"] == 1
