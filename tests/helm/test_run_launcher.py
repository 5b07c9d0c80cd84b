"""The cluster's Dagster instance (dagster.yaml in a ConfigMap) is valid for Dagster, and the run
pods dagster-k8s builds from it match the code location: same image, volumes, env and security.

The run Job is built by dagster-k8s' own code (`construct_dagster_k8s_job`), exactly as the
K8sRunLauncher does at launch, and validated against the Kubernetes schema. No cluster is contacted:
the launcher gets a kubeconfig pointing at an address nothing dials.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helm.conftest import CHART, RELEASE, Render, find, load_values

pytest.importorskip("dagster_k8s", reason="dagster-k8s (mirage-rag[k8s]) is not installed")

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters: [{name: offline, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: offline, user: {token: not-used}}]
contexts: [{name: offline, context: {cluster: offline, user: offline}}]
current-context: offline
"""


def instance_yaml(manifests) -> dict[str, Any]:
    cm = find(manifests, "ConfigMap", f"{RELEASE}-dagster-instance")
    return yaml.safe_load(cm["data"]["dagster.yaml"])


def code_location(manifests) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = find(manifests, "Deployment", f"{RELEASE}-code-location")["spec"]["template"]["spec"]
    return spec, spec["containers"][0]


def validate_instance(config: dict[str, Any], tmp_path: Path, monkeypatch) -> None:
    """Dagster's own schema check of dagster.yaml, then each configurable class's config."""
    from dagster._config import process_config, resolve_to_config_type
    from dagster._core.instance.config import dagster_instance_config
    from dagster._serdes import ConfigurableClassData

    monkeypatch.setenv("DAGSTER_PG_PASSWORD", "not-a-real-password")
    (tmp_path / "dagster.yaml").write_text(yaml.safe_dump(config))
    validated, _ = dagster_instance_config(str(tmp_path))
    blocks = dict(validated)
    if "custom" in (validated.get("storage") or {}):
        blocks["storage"] = validated["storage"]["custom"]
    for key, block in blocks.items():
        if isinstance(block, dict) and {"module", "class"} <= set(block):
            # ConfigurableClassData maps `dagster.core…` to today's module, as the instance does.
            where = ConfigurableClassData(block["module"], block["class"], "{}")
            klass = getattr(importlib.import_module(where.module_name), where.class_name)
            result = process_config(
                resolve_to_config_type(klass.config_type()), block.get("config") or {}
            )
            assert result.success, f"{key}: {result.errors}"


@pytest.fixture
def k8s_run_job(render: Render, tmp_path: Path):
    """(rendered manifests, the run Job dagster-k8s would create for a run, as a dict)."""
    import kubernetes
    from dagster._core.storage.dagster_run import DagsterRun
    from dagster._serdes import ConfigurableClassData
    from dagster_k8s.container_context import K8sContainerContext
    from dagster_k8s.job import construct_dagster_k8s_job
    from dagster_k8s.launcher import K8sRunLauncher

    def build(values: dict[str, Any] | None = None):
        manifests = render(values)
        launcher_block = instance_yaml(manifests)["run_launcher"]
        assert (launcher_block["module"], launcher_block["class"]) == (
            "dagster_k8s",
            "K8sRunLauncher",
        )
        assert launcher_block["config"]["load_incluster_config"] is True
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(KUBECONFIG)
        config = {
            **launcher_block["config"],
            "load_incluster_config": False,
            "kubeconfig_file": str(kubeconfig),
        }
        launcher = ConfigurableClassData(
            "dagster_k8s", "K8sRunLauncher", yaml.safe_dump(config)
        ).rehydrate(K8sRunLauncher)
        _, container = code_location(manifests)
        reported_image = next(
            e["value"] for e in container["env"] if e["name"] == "DAGSTER_CURRENT_IMAGE"
        )
        run = DagsterRun(
            job_name="index_document",
            run_id="0a1b2c3d-0000-4000-8000-000000000000",
            tags={"mirage/project": "demo"},
        )
        context = K8sContainerContext.create_for_run(run, launcher, include_run_tags=True)
        job = construct_dagster_k8s_job(
            job_config=context.get_k8s_job_config(job_image=reported_image, run_launcher=launcher),
            args=["dagster", "api", "execute_run", "{}"],
            job_name="dagster-run-0a1b2c3d",
            pod_name="dagster-run-0a1b2c3d",
            component="run_worker",
            user_defined_k8s_config=context.run_k8s_config,
            labels={"dagster/job": "index_document"},
            env_vars=[{"name": "DAGSTER_RUN_JOB_NAME", "value": "index_document"}],
        )
        body = kubernetes.client.ApiClient().sanitize_for_serialization(job)
        return manifests, body

    return build


def test_the_cluster_instance_is_valid_dagster_config(render: Render, tmp_path, monkeypatch):
    config = instance_yaml(render())
    validate_instance(config, tmp_path, monkeypatch)
    storage = config["storage"]["custom"]  # dagster-postgres's, pooled
    assert (storage["module"], storage["class"]) == (
        "mirage_pipeline.dagster_storage",
        "PooledPostgresStorage",
    )
    db = storage["config"]["postgres_db"]
    assert db["password"] == {"env": "DAGSTER_PG_PASSWORD"}
    assert db["scheme"] == "postgresql+psycopg2"
    assert config["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert config["concurrency"]["runs"]["max_concurrent_runs"] == 4


def test_limits_and_pools_reach_the_instance(render: Render, tmp_path, monkeypatch):
    limits = [{"key": "mirage/project", "value": {"applyLimitPerUniqueValue": True}, "limit": 1}]
    config = instance_yaml(
        render(
            {
                "dagster": {
                    "runCoordinator": {"maxConcurrentRuns": 6, "tagConcurrencyLimits": limits},
                    "poolsDefaultLimit": 2,
                }
            }
        )
    )
    validate_instance(config, tmp_path, monkeypatch)
    assert config["concurrency"] == {
        "runs": {"max_concurrent_runs": 6, "tag_concurrency_limits": limits},
        "pools": {"default_limit": 2},
    }


def test_default_run_launcher_leaves_runs_in_the_code_location(
    render: Render, tmp_path, monkeypatch
):
    values = load_values([CHART / "ci" / "default-run-launcher-values.yaml"])
    manifests = render(values)
    config = instance_yaml(manifests)
    validate_instance(config, tmp_path, monkeypatch)
    assert "run_launcher" not in config
    assert not [m for m in manifests if m["kind"] in ("Role", "RoleBinding")]
    # Runs then execute in the code-location pod, which has the documents and the index.
    _, container = code_location(manifests)
    assert "/data/documents" in {m["mountPath"] for m in container["volumeMounts"]}


def test_run_pods_match_the_code_location(k8s_run_job, tmp_path, monkeypatch):
    manifests, job = k8s_run_job()
    validate_instance(instance_yaml(manifests), tmp_path, monkeypatch)
    code_spec, code = code_location(manifests)
    pod = job["spec"]["template"]["spec"]
    (run,) = pod["containers"]

    assert run["image"] == code["image"] == "registry.local:5000/mirage:0.1.0"
    assert run["imagePullPolicy"] == code["imagePullPolicy"]
    # Same volumes under the same paths: the documents PVC above all.
    code_volumes = {v["name"]: v for v in code_spec["volumes"] if v["name"] != "scripts"}
    assert {v["name"]: v for v in pod["volumes"]} == code_volumes
    documents = code_volumes["documents"]["persistentVolumeClaim"]
    assert documents == {"claimName": f"{RELEASE}-documents"}
    assert run["volumeMounts"] == code["volumeMounts"]
    # Same settings: the env ConfigMap, then the same variables in the same order.
    assert run["envFrom"] == code["envFrom"]
    dagster_own = {"DAGSTER_RUN_JOB_NAME", "DAGSTER_HOME"}
    assert [e for e in run["env"] if e["name"] not in dagster_own] == [
        e for e in code["env"] if e["name"] != "DAGSTER_CURRENT_IMAGE"
    ]
    dagster_home = next(e["value"] for e in run["env"] if e["name"] == "DAGSTER_HOME")
    assert dagster_home in {m["mountPath"] for m in code["volumeMounts"]}
    # Same security, no API token, and the labels the NetworkPolicies admit.
    assert run["securityContext"] == code["securityContext"]
    assert pod["securityContext"] == code_spec["securityContext"]
    assert pod["serviceAccountName"] == code_spec["serviceAccountName"] == f"{RELEASE}-run"
    assert pod["automountServiceAccountToken"] is False
    labels = job["spec"]["template"]["metadata"]["labels"]
    assert labels["app.kubernetes.io/instance"] == RELEASE
    assert labels["app.kubernetes.io/component"] == "run"
    assert run["resources"]["limits"] and run["resources"]["requests"]


def test_the_run_job_is_valid_kubernetes(k8s_run_job):
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    _, job = k8s_run_job()
    kubernetes_validate.validate(job, "1.33", strict=True)


def test_run_pods_follow_the_documents_node_and_pull_secrets(k8s_run_job):
    values = {
        "documents": {"nodeName": "node-1"},
        "imagePullSecrets": [{"name": "registry-credentials"}],
        "image": {"repository": "registry.example/mirage", "tag": "1.2.3"},
    }
    manifests, job = k8s_run_job(values)
    code_spec, code = code_location(manifests)
    pod = job["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == code_spec["nodeSelector"] == {"kubernetes.io/hostname": "node-1"}
    assert pod["imagePullSecrets"] == code_spec["imagePullSecrets"]
    assert pod["containers"][0]["image"] == code["image"] == "registry.example/mirage:1.2.3"
