"""kubernetes/ is checked as docker-compose.yml is: every object against the Kubernetes API's own
schemas (kubernetes-validate, strict: an unknown or misspelt field fails), KEDA's ScaledObjects
against the fields KEDA's CRD requires, commands against the code, and the environment against
platform/config/env.py (every variable the code reads is set here or named in docs/kubernetes.md as
left at its default)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
MANIFESTS = REPO / "kubernetes"
DOCS = REPO / "docs" / "kubernetes.md"
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
KUBERNETES_VERSION = "1.33.0"  # the oldest release these manifests are written for
PRODUCTION_REQUIRED = {"DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL"}


def _documents() -> list[tuple[str, dict]]:
    found = []
    for path in sorted(MANIFESTS.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                found.append((path.name, doc))
    return found


DOCUMENTS = _documents()
# KEDA's custom resources are not in the Kubernetes API's schemas; their own test checks them
API_DOCUMENTS = [(file, doc) for file, doc in DOCUMENTS if not doc["apiVersion"].startswith("keda.sh/")]


def objects(kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for _, doc in DOCUMENTS if doc["kind"] == kind}


def pod_templates() -> dict[str, dict]:
    """The pod spec of every Deployment and Job, by object name."""
    found = {name: doc["spec"]["template"] for name, doc in objects("Deployment").items()}
    found.update({name: doc["spec"]["template"] for name, doc in objects("Job").items()})
    return found


def containers(template: dict) -> list[dict]:
    spec = template["spec"]
    return [*spec.get("initContainers", []), *spec["containers"]]


def environment(container: dict) -> dict[str, str]:
    """What a container's process sees: its envFrom ConfigMaps and Secrets, then its env."""
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(objects("ConfigMap")[source["configMapRef"]["name"]]["data"])
        if "secretRef" in source:
            env.update(objects("Secret")[source["secretRef"]["name"]]["stringData"])
    env.update({item["name"]: item["value"] for item in container.get("env", [])})
    return env


@pytest.mark.parametrize(
    ("file", "doc"), API_DOCUMENTS, ids=[f"{f}:{d['kind']}/{d['metadata']['name']}" for f, d in API_DOCUMENTS]
)
def test_every_object_matches_the_kubernetes_api_schema(file, doc):
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_a_misspelt_field_is_caught_by_the_schema_check():
    web = dict(objects("Deployment")["sampan-web"])
    broken = {**web, "spec": {**web["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_manifest():
    listed = set(yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())["resources"])
    present = {p.name for p in MANIFESTS.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == present


def test_the_cluster_has_every_part():
    deployments = objects("Deployment")
    assert set(deployments) == {"sampan-web", "sampan-housekeeping", "sampan-worker-cpu", "sampan-worker-gpu"}
    assert set(objects("Job")) == {"sampan-migrate"}
    assert set(objects("Service")) == {"sampan-web"}
    assert set(objects("HorizontalPodAutoscaler")) == {"sampan-web"}
    assert set(objects("ScaledObject")) == {"sampan-worker-cpu", "sampan-worker-gpu"}
    assert set(objects("PodDisruptionBudget")) == {"sampan-web", "sampan-worker-cpu", "sampan-worker-gpu"}
    assert set(objects("Ingress")) == {"sampan"}


def _labels_match(selector: dict, labels: dict) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def test_selectors_find_the_pods_they_mean():
    templates = {name: t["metadata"]["labels"] for name, t in pod_templates().items()}
    for name, deployment in objects("Deployment").items():
        assert _labels_match(deployment["spec"]["selector"]["matchLabels"], templates[name])
    service = objects("Service")["sampan-web"]
    assert [n for n, labels in templates.items() if _labels_match(service["spec"]["selector"], labels)] == [
        "sampan-web"
    ]
    for name, budget in objects("PodDisruptionBudget").items():
        matched = [
            n
            for n, labels in templates.items()
            if _labels_match(budget["spec"]["selector"]["matchLabels"], labels)
        ]
        assert matched == [name], f"PodDisruptionBudget {name} selects {matched}"
    backend = objects("Ingress")["sampan"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    ports = {p["name"] for p in service["spec"]["ports"]}
    assert backend["name"] == "sampan-web" and backend["port"]["name"] in ports
    hpa = objects("HorizontalPodAutoscaler")["sampan-web"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "sampan-web"}
    assert hpa["metrics"][0]["resource"]["name"] == "cpu"


def test_the_web_runs_the_compose_web_command_and_probes_healthz():
    web = objects("Deployment")["sampan-web"]["spec"]["template"]["spec"]["containers"][0]
    assert web["command"] == [str(word) for word in COMPOSE["services"]["web"]["command"]]
    probe = web["readinessProbe"]["httpGet"]
    assert probe["path"] == "/healthz"
    host = next(h["value"] for h in probe["httpHeaders"] if h["name"] == "Host")
    assert host in environment(web)["DJANGO_ALLOWED_HOSTS"].split(",")
    # liveness never depends on the database: an outage must not restart every web pod
    assert "httpGet" not in web["livenessProbe"]


def test_exactly_one_scheduler_and_it_never_runs_twice():
    schedulers = [
        name
        for name, template in pod_templates().items()
        if any("housekeeping" in c.get("command", []) for c in template["spec"]["containers"])
    ]
    assert schedulers == ["sampan-housekeeping"]
    spec = objects("Deployment")["sampan-housekeeping"]["spec"]
    assert spec["replicas"] == 1 and spec["strategy"]["type"] == "Recreate"
    assert "sampan-housekeeping" not in objects("ScaledObject")


def test_manage_py_commands_exist_and_workers_consume_known_queues():
    from django.core.management import get_commands
    from jobs.management.commands.worker import KNOWN_QUEUES, resolve_queues

    commands = get_commands()
    for name, template in pod_templates().items():
        for container in containers(template):
            argv = container["command"]
            text = " ".join(argv)
            for part in text.split("&&"):
                words = part.split()
                if "manage.py" in " ".join(words):
                    command = words[words.index(next(w for w in words if w.endswith("manage.py"))) + 1]
                    assert command in commands, f"{name}: manage.py {command} does not exist"
            if "worker" in argv:
                queues = resolve_queues(argv[argv.index("--queues") + 1], {})
                assert set(queues) <= KNOWN_QUEUES


def test_keda_scaled_objects_are_well_formed_and_watch_their_workers_queue():
    deployments = objects("Deployment")
    for name, scaled in objects("ScaledObject").items():
        assert scaled["apiVersion"] == "keda.sh/v1alpha1"
        spec = scaled["spec"]
        assert set(spec) <= {
            "scaleTargetRef",
            "minReplicaCount",
            "maxReplicaCount",
            "pollingInterval",
            "cooldownPeriod",
            "idleReplicaCount",
            "fallback",
            "advanced",
            "triggers",
        }
        target = deployments[spec["scaleTargetRef"]["name"]]
        assert spec["scaleTargetRef"].get("kind", "Deployment") == "Deployment"
        assert 0 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]
        argv = target["spec"]["template"]["spec"]["containers"][0]["command"]
        consumed = argv[argv.index("--queues") + 1].split(",")
        assert spec["triggers"], name
        for trigger in spec["triggers"]:
            assert set(trigger) <= {
                "type",
                "metadata",
                "name",
                "authenticationRef",
                "metricType",
                "useCachedMetrics",
            }
            # the scheduler keeps the backlog in the database (docs/scheduling.md): Redis lists show only
            # the free slots, so the workers scale on the jobs table
            assert trigger["type"] == "postgresql"
            metadata = trigger["metadata"]
            assert all(isinstance(v, str) for v in metadata.values()), "KEDA metadata values are strings"
            known = {"connectionFromEnv", "query", "targetQueryValue", "activationTargetQueryValue"}
            assert set(metadata) <= known
            assert int(metadata["targetQueryValue"]) >= 1
            env = environment(target["spec"]["template"]["spec"]["containers"][0])
            assert env[metadata["connectionFromEnv"]].startswith(("postgres://", "postgresql://")), (
                "KEDA connects with the worker's own database URL"
            )
            watched = set(re.findall(r"queue = '(\w+)'", metadata["query"]))
            assert watched, name
            assert watched <= set(consumed), f"{name} scales on {watched}, its pods consume {consumed}"


def _scaler_query(name: str) -> str:
    return objects("ScaledObject")[name]["spec"]["triggers"][0]["metadata"]["query"]


@pytest.mark.django_db
def test_keda_queries_count_the_jobs_each_queue_may_run_within_workspace_limits(tenants):
    """The ScaledObjects' SQL runs on the real schema and counts what a worker pod could take: queued
    and running jobs of its queue, a workspace's only up to its limits, finished ones not at all."""
    from django.db import connection
    from jobs.models import WorkspaceLimits

    from tests.jobs.factories import job

    def scaler_value(name: str) -> int:
        with connection.cursor() as cursor:
            cursor.execute(_scaler_query(name))
            return int(cursor.fetchone()[0])

    a, b = tenants["project_a"], tenants["project_b"]
    from jobs.models import Job

    Job.objects.all().delete()  # rows a live test left committed in a reused test database
    assert scaler_value("sampan-worker-cpu") == scaler_value("sampan-worker-gpu") == 0
    for _ in range(3):
        job(a, queue="cpu")
    job(a, queue="cpu", status="running")
    job(a, queue="cpu", status="succeeded")
    job(b, queue="cpu", status="failed")
    job(b, queue="gpu")
    job(b, queue="gpu", status="running")
    job(b, queue="gpu")
    assert scaler_value("sampan-worker-cpu") == 4
    assert scaler_value("sampan-worker-gpu") == 3
    WorkspaceLimits.objects.create(workspace=a.workspace, max_jobs=2)
    WorkspaceLimits.objects.create(workspace=b.workspace, max_jobs=0, max_gpu_jobs=1)
    assert scaler_value("sampan-worker-cpu") == 2
    assert scaler_value("sampan-worker-gpu") == 1

    # a limit a workspace leaves unset is the installation's default, as in jobs.scheduling.limits_of
    WorkspaceLimits.objects.filter(workspace=b.workspace).update(max_jobs=None, max_gpu_jobs=None)
    WorkspaceLimits.objects.filter(workspace=a.workspace).delete()
    assert scaler_value("sampan-worker-cpu") == 4 and scaler_value("sampan-worker-gpu") == 3  # "0"

    def with_defaults(name: str, jobs: int, gpu_jobs: int) -> int:
        query = _scaler_query(name)
        for variable, value in (
            ("SAMPAN_WORKSPACE_MAX_JOBS", jobs),
            ("SAMPAN_WORKSPACE_MAX_GPU_JOBS", gpu_jobs),
        ):
            query = re.sub(rf"\b\d+ /\* {variable} \*/", str(value), query)
        with connection.cursor() as cursor:
            cursor.execute(query)
            return int(cursor.fetchone()[0])

    assert with_defaults("sampan-worker-cpu", 1, 0) == 1  # A's 4 jobs, as a default of 1 lets it run
    assert with_defaults("sampan-worker-gpu", 0, 2) == 2
    assert with_defaults("sampan-worker-gpu", 1, 0) == 1
    WorkspaceLimits.objects.filter(workspace=b.workspace).update(max_gpu_jobs=0)  # its own: unlimited
    assert with_defaults("sampan-worker-gpu", 0, 2) == 3


def test_keda_queries_repeat_the_configmaps_default_workspace_limits():
    """The scaler cannot read the ConfigMap: its query writes each default beside the variable's name,
    and the two must agree (or KEDA would start pods for jobs the scheduler holds back)."""
    config = objects("ConfigMap")["sampan-config"]["data"]
    expected = {
        "sampan-worker-cpu": ["SAMPAN_WORKSPACE_MAX_JOBS"],
        "sampan-worker-gpu": ["SAMPAN_WORKSPACE_MAX_JOBS", "SAMPAN_WORKSPACE_MAX_GPU_JOBS"],
    }
    for name, variables in expected.items():
        query = _scaler_query(name)
        for variable in variables:
            written = re.findall(rf"\b(\d+) /\* {variable} \*/", query)
            assert written == [config[variable]], (
                f"{name}'s query has {variable} = {written}, the ConfigMap {config[variable]}"
            )


def test_gpu_workers_ask_for_a_gpu_on_gpu_nodes_and_cpu_workers_do_not():
    gpu = objects("Deployment")["sampan-worker-gpu"]["spec"]["template"]["spec"]
    assert gpu["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert gpu["nodeSelector"] and any(t["key"] == "nvidia.com/gpu" for t in gpu["tolerations"])
    cpu = objects("Deployment")["sampan-worker-cpu"]["spec"]["template"]["spec"]
    assert "nvidia.com/gpu" not in cpu["containers"][0]["resources"].get("limits", {})
    assert objects("ScaledObject")["sampan-worker-gpu"]["spec"]["minReplicaCount"] == 0


def test_sandbox_capabilities_match_docker_compose_and_only_workers_have_them():
    compose_caps = set(COMPOSE["x-sandboxed-worker"]["cap_add"])
    for name, template in pod_templates().items():
        for container in containers(template):
            context = container["securityContext"]
            assert context["capabilities"]["drop"] == ["ALL"], name
            added = set(context["capabilities"].get("add", []))
            if name.startswith("sampan-worker-"):
                assert added == compose_caps and context["runAsUser"] == 0
                assert environment(container)["SAMPAN_UMASK"] == "002"
            else:
                assert not added and context["allowPrivilegeEscalation"] is False
                assert template["spec"]["securityContext"]["runAsNonRoot"] is True, name


def test_pods_set_only_variables_the_code_reads_and_share_no_disk():
    from config.env import ENV_VARS

    for name, template in pod_templates().items():
        for container in containers(template):
            env = environment(container)
            unknown = sorted(set(env) - set(ENV_VARS))
            assert not unknown, f"{name} sets variables the code never reads: {unknown}"
            assert set(env) >= PRODUCTION_REQUIRED, name
            assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
            assert env["SAMPAN_STORAGE_URL"].startswith("s3://"), (
                "pods share no disk: blobs in object storage"
            )
        volumes = template["spec"].get("volumes", [])
        assert all("emptyDir" in v for v in volumes), f"{name}: SAMPAN_HOME must be a pod-local cache"


def test_every_variable_the_code_reads_is_set_or_documented_as_default():
    from config.env import ENV_VARS

    set_somewhere = set()
    for template in pod_templates().values():
        for container in containers(template):
            set_somewhere |= set(environment(container))
    docs = DOCS.read_text()
    missing = sorted(name for name in ENV_VARS if name not in set_somewhere and f"`{name}`" not in docs)
    assert not missing, f"neither set in kubernetes/ nor named in docs/kubernetes.md: {missing}"


def test_production_settings_load_from_the_manifests_environment(tmp_path):
    web = objects("Deployment")["sampan-web"]["spec"]["template"]["spec"]["containers"][0]
    env = environment(web)
    env.update(
        {
            "SAMPAN_HOME": str(tmp_path),
            "DJANGO_SECRET_KEY": "k8s-test-" + "abcdefghij" * 5,
            "PATH": "/usr/bin:/bin",
        }
    )
    probe = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECURE_SSL_REDIRECT, s.DATABASES['default']['HOST'], s.STORAGES['default']['BACKEND'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=REPO / "platform",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    redirect, host, storage = result.stdout.split()
    assert (redirect, host) == ("True", "postgres.example.internal")
    assert "s3" in storage.lower(), storage


def test_an_empty_secret_key_stops_the_pods(tmp_path):
    web = objects("Deployment")["sampan-web"]["spec"]["template"]["spec"]["containers"][0]
    env = {**environment(web), "SAMPAN_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    assert env["DJANGO_SECRET_KEY"] == ""  # the example ships no secret
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        cwd=REPO / "platform",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr
