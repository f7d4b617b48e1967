"""GET /api/v1/training-estimates/?dataset_version=<id>: each preset's expected training time on the
workers online, quality, model size and speed, from what earlier runs measured and never guessed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.jobs.factories import job, worker_node
from tests.training.factories import model_version

pytestmark = pytest.mark.django_db

CPU4 = {"cpu_count": 4, "cuda": []}
GPU = {"cpu_count": 16, "cuda": [{"index": 0, "name": "NVIDIA H200", "memory_bytes": 1}]}
FAST = {
    "preset": "fast",
    "model": "cnn_small",
    "epochs": 10,
    "batch_size": 64,
    "image_size": 32,
}


def dataset_version(project, *, train: int, number: int = 1, dataset=None):
    from datasets.models import Dataset, DatasetVersion

    if dataset is None:
        dataset = Dataset.objects.create(
            workspace=project.workspace,
            project=project,
            name=f"Digits {train}",
            task_type="image_classification",
        )
    half = train // 2
    return DatasetVersion.objects.create(
        dataset=dataset,
        number=number,
        seed=1,
        train_ratio=0.8,
        val_ratio=0.1,
        test_ratio=0.1,
        classes=["一", "二"],
        counts={"train": {"一": half, "二": train - half}, "val": {"一": 1, "二": 1}, "test": {"一": 1}},
        sample_count=train + 3,
    )


def earlier_run(project, version, *, worker_class="cpu:4", train_seconds=50.0, total=60.0, **fields):
    """A finished fast run on ``version`` that took ``total`` s, ``train_seconds`` of them training."""
    started = timezone.now() - timedelta(hours=1)
    ran = job(
        project,
        kind="training.run",
        params={"dataset_version": version.pk, "template": "image_classification", "preset": "fast"},
        status="succeeded",
        started_at=started,
        finished_at=started + timedelta(seconds=total),
        lease_node="gone@host",
    )
    runtime = {"device": "cpu"} | ({"worker_class": worker_class} if worker_class else {})
    metrics = {
        "test": {"accuracy": 0.98, "macro_f1": 0.97},
        "training": {"samples_per_s": 20.0, "train_seconds": train_seconds},
        "epochs": 10,
        "runtime": runtime,
    }
    return model_version(
        project,
        dataset_version=version,
        job=ran,
        params=FAST,
        metrics=fields.pop("metrics", metrics),
        onnx=b"x" * 2100,
        **fields,
    )


def work(preset: dict, samples: int) -> float:
    """Sample-passes at the 64 px reference of what the preset runs: its values fitted to the data and
    the workers online (the recommendation), which the time estimate is made for."""
    values = preset["recommendation"]["values"]
    return samples * values["epochs"] * (values["image_size"] / 64) ** 2


def estimates(client, version):
    answer = client.get(f"/api/v1/training-estimates/?dataset_version={version.pk}")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    return body, {p["preset"]: p for p in body["presets"]}


@pytest.mark.openapi_conformance  # every answer below must match the schema
def test_without_earlier_runs_nothing_is_made_up(tenants, api_client, isolated_storage):
    worker_node(queues=("cpu",), devices=CPU4)
    version = dataset_version(tenants["project_a"], train=100)
    assert api_client().get(f"/api/v1/training-estimates/?dataset_version={version.pk}").status_code in (
        401,
        403,
    )
    body, presets = estimates(api_client(tenants["alice"]), version)
    assert body["kind"] == "training_estimates" and body["train_samples"] == 100
    assert body["workers"]["queue"] == "cpu" and body["workers"]["online"] == 1
    assert body["workers"]["classes"] == [
        {"worker_class": "cpu:4", "device": "cpu", "name": "4", "cpu_count": 4, "count": 1}
    ]
    assert list(presets) == ["fast", "balanced", "accurate"]
    assert presets["balanced"]["default"] and presets["fast"]["model"] == "cnn_small"
    for preset in presets.values():
        assert preset["time"]["basis"] == "none" and preset["time"]["seconds"] is None
        assert "the first run measures it" in preset["time"]["message"]
        assert preset["quality"]["basis"] == "none" and preset["quality"]["value"] is None
        assert preset["size"]["basis"] == "none" and preset["size"]["bytes"] is None
        assert preset["speed"]["basis"] == "none" and preset["speed"]["latency_ms"] is None


def test_with_no_worker_online_the_estimate_says_so(tenants, api_client, isolated_storage):
    version = dataset_version(tenants["project_a"], train=100)
    earlier_run(tenants["project_a"], version)
    body, presets = estimates(api_client(tenants["alice"]), version)
    assert body["workers"]["online"] == 0 and body["workers"]["classes"] == []
    assert "No worker is online for the cpu queue" in body["workers"]["message"]
    assert presets["fast"]["time"]["basis"] == "none"
    assert "No worker is online" in presets["fast"]["time"]["message"]
    # what does not depend on a worker is still measured
    assert presets["fast"]["quality"]["basis"] == "measured"


def test_the_measured_time_scales_with_the_dataset_on_the_worker_class_online(
    tenants, api_client, isolated_storage
):
    project = tenants["project_a"]
    worker_node(queues=("cpu",), devices=CPU4)
    small = dataset_version(project, train=100)
    # 100 samples x 10 epochs at 32 px (a quarter of the 64 px reference): 0.2 s per unit + 10 s overhead
    earlier_run(project, small)
    earlier_run(project, small)
    # a run on a GPU that is not online, and one from before worker classes were recorded, are not used
    earlier_run(project, small, worker_class="gpu:NVIDIA H200", train_seconds=1.0, total=2.0)
    earlier_run(project, small, worker_class=None, train_seconds=1.0, total=2.0)
    big = dataset_version(project, train=200)

    body, presets = estimates(api_client(tenants["alice"]), big)
    fast = presets["fast"]["time"]
    assert fast["basis"] == "measured" and fast["runs"] == 2 and fast["worker_class"] == "cpu:4"
    assert fast["seconds"] == pytest.approx(10 + work(presets["fast"], 200) * 0.2)
    assert f"x {presets['fast']['recommendation']['values']['epochs']:g} passes" in fast["message"]
    assert fast["samples_per_second"] == 20.0
    _, on_small = estimates(api_client(tenants["alice"]), small)
    assert on_small["fast"]["time"]["seconds"] == pytest.approx(10 + work(on_small["fast"], 100) * 0.2)
    # another model was never run: no number for it
    assert presets["balanced"]["time"]["basis"] == "none"
    # the run of a live worker whose class was not recorded counts through its node
    worker_node("gone@host", queues=("cpu",), devices=CPU4)
    _, presets = estimates(api_client(tenants["alice"]), big)
    assert presets["fast"]["time"]["runs"] == 3
    # a data-parallel run (2 ranks) measured another speed: a preset's single-process time leaves it out
    ddp = earlier_run(project, small, train_seconds=5.0, total=6.0)
    ddp.job.params = {**ddp.job.params, "processes": 2}
    ddp.job.save(update_fields=["params"])
    _, presets = estimates(api_client(tenants["alice"]), big)
    assert presets["fast"]["time"]["runs"] == 3
    assert presets["fast"]["time"]["seconds"] == pytest.approx(10 + work(presets["fast"], 200) * 0.2)


@pytest.mark.openapi_conformance
def test_quality_size_and_speed_come_from_earlier_versions(tenants, api_client, isolated_storage):
    from deploy.models import Deployment, DeploymentEvent, UsageMinute

    project = tenants["project_a"]
    worker_node(queues=("cpu",), devices=CPU4)
    first = dataset_version(project, train=100)
    earlier_run(project, first)
    latest = earlier_run(
        project,
        first,
        metrics={"test": {"accuracy": 0.9}, "training": {"train_seconds": 5.0}, "runtime": {"device": "cpu"}},
    )
    second = dataset_version(project, train=120, number=2, dataset=first.dataset)
    deployment = Deployment.objects.create(
        workspace=project.workspace, project=project, name="digits", model_version=latest
    )
    event = DeploymentEvent.objects.create(deployment=deployment, action="create", model_version=latest)
    DeploymentEvent.objects.filter(pk=event.pk).update(at=timezone.now() - timedelta(minutes=30))
    minute = timezone.now().replace(second=0, microsecond=0) - timedelta(minutes=5)
    UsageMinute.objects.create(
        deployment=deployment, minute=minute, writer="w", calls=10, latency_ms_sum=40.0
    )
    # calls from before the switch to this version are someone else's latency
    UsageMinute.objects.create(
        deployment=deployment, minute=minute - timedelta(hours=1), writer="w", calls=10, latency_ms_sum=9999.0
    )

    _, presets = estimates(api_client(tenants["alice"]), second)
    quality = presets["fast"]["quality"]
    assert quality["basis"] == "measured" and quality["metric"] == "accuracy"
    assert (quality["value"], quality["best"], quality["runs"]) == (0.9, 0.98, 2)
    assert quality["model_version_name"] == latest.name and quality["dataset_version_name"] == "V1"
    assert presets["fast"]["size"] == {
        "basis": "measured",
        "bytes": 2100,
        "model_version": latest.pk,
        "model_version_name": latest.name,
        "message": f"The ONNX file of {latest.name} with this model is 2100 bytes.",
    }
    assert presets["fast"]["speed"]["basis"] == "measured"
    assert (presets["fast"]["speed"]["latency_ms"], presets["fast"]["speed"]["calls"]) == (4.0, 10)
    assert presets["accurate"]["quality"]["basis"] == "none"


def test_the_estimate_is_tenant_scoped_and_cheap(tenants, api_client, isolated_storage):
    project = tenants["project_a"]
    worker_node(queues=("cpu",), devices=CPU4)
    version = dataset_version(project, train=100)
    for _ in range(5):
        earlier_run(project, version)
    # bob's history is not alice's
    theirs = dataset_version(tenants["project_b"], train=100)
    earlier_run(tenants["project_b"], theirs, train_seconds=1000.0, total=1000.0)

    bob = api_client(tenants["bob"])
    assert bob.get(f"/api/v1/training-estimates/?dataset_version={version.pk}").status_code == 404
    missing = bob.get("/api/v1/training-estimates/")
    assert missing.status_code == 400, missing.content
    assert missing.json()["error"]["details"] == {
        "dataset_version": ["Give the dataset version's id as ?dataset_version=<id>."]
    }
    _, presets = estimates(bob, theirs)
    assert presets["fast"]["time"]["runs"] == 1 and presets["fast"]["quality"]["runs"] == 1

    carol = api_client(tenants["carol"])  # a viewer may look
    with CaptureQueriesContext(connection) as queries:
        _, presets = estimates(carol, version)
    assert presets["fast"]["time"]["runs"] == 5
    assert len(queries) <= 6, [q["sql"] for q in queries]


def test_a_recorded_model_version_names_the_worker_class_that_trained_it(tenants):
    from training.services import _with_worker_class

    project = tenants["project_a"]
    node = worker_node("gpu-1@host", queues=("gpu",), devices=GPU)
    ran = job(project, kind="training.run", lease_node=node.hostname)
    assert _with_worker_class({"device": "cuda:0"}, job=ran) == {
        "device": "cuda:0",
        "worker_class": "gpu:NVIDIA H200",
    }
    ran.lease_node = "vanished@host"
    assert _with_worker_class({"device": "cpu"}, job=ran) == {"device": "cpu"}


def test_a_gpu_worker_online_takes_the_job_and_its_class_is_used(tenants, api_client, isolated_storage):
    project = tenants["project_a"]
    worker_node(queues=("cpu",), devices=CPU4)
    worker_node(queues=("gpu",), devices=GPU)
    version = dataset_version(project, train=100)
    earlier_run(project, version)  # on cpu:4: not where the job would run
    earlier_run(project, version, worker_class="gpu:NVIDIA H200", train_seconds=2.0, total=4.0)
    body, presets = estimates(api_client(tenants["alice"]), version)
    assert body["workers"]["queue"] == "gpu" and body["workers"]["online"] == 1
    assert body["workers"]["classes"][0]["name"] == "NVIDIA H200"
    assert presets["fast"]["time"]["worker_class"] == "gpu:NVIDIA H200"
    # 100 samples x 10 epochs at 32 px took 2 s of training and 2 s overhead on the GPU
    assert presets["fast"]["time"]["seconds"] == pytest.approx(2.0 + work(presets["fast"], 100) * 2.0 / 250)
