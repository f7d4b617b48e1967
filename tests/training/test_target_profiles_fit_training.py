"""Choosing the deployment target at training time: a training job given a target profile fits the
image classifier's image size, width (and int8) to the profile's latency budget before training,
records the choice and its reasons in the model version, and fails with target_unreachable (naming the
smallest latency reached) when nothing fits. Budgets are set from latencies this test measures the
same way the worker does, far apart, so the outcome does not depend on the machine's speed."""

from __future__ import annotations

import math

import onnxruntime
import pytest
from jobs.models import Job

from tests.datasets.factories import dataset_with_samples
from tests.harness import wait_for

PARAMS = {"model": "resnet_narrow", "image_size": 64, "epochs": 1, "batch_size": 8, "validation": "holdout"}


@pytest.fixture
def version(tenants):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", per_class=8, classes=range(3)
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


def start(client, version, target, **extra):
    return client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version.pk, "preset": "fast", "params": PARAMS, "adapt": False, **extra}
        | {"target_profile": target},
        format="json",
    )


@pytest.mark.django_db
def test_a_target_needs_a_budget_an_image_classifier_and_an_own_profile(tenants, api_client, version):
    from deploy.targets import target_profile_create

    client = api_client(tenants["alice"])
    no_budget = start(client, version, "worker-cpu")
    assert no_budget.status_code == 400 and "target_profile" in no_budget.json()["error"]["details"]
    assert "budget" in no_budget.json()["error"]["message"]
    unknown = start(client, version, "a-phone")
    assert unknown.status_code == 400 and "target_profile" in unknown.json()["error"]["details"]
    theirs = target_profile_create(
        user=tenants["bob"], workspace=tenants["ws_b"], name="bob's", latency_budget_ms=5.0
    )
    stranger = start(client, version, theirs.pk)
    assert stranger.status_code == 400 and "target_profile" in stranger.json()["error"]["details"]
    mine = target_profile_create(
        user=tenants["alice"], workspace=tenants["ws_a"], name="mine", latency_budget_ms=5
    )
    queued = start(client, version, mine.pk)
    assert queued.status_code == 201, queued.content
    assert Job.objects.get(pk=queued.json()["id"]).params["target_profile"] == mine.pk


def latency(tmp_path, image_size: int, width: float) -> float:
    """The worker's estimate for the worker-cpu target, measured as the fitting measures it."""
    from workers.deployment_targets import BUILTIN_TARGETS, measure_latency
    from workers.target_fitting import _export_untrained

    path = _export_untrained("resnet_narrow", 3, image_size, width, tmp_path / f"{image_size}-{width}.onnx")
    return float(measure_latency(path, BUILTIN_TARGETS["worker-cpu"], warmup=3, runs=15)["target_ms"])


def finished(job_id: int) -> Job:
    def done():
        job = Job.objects.get(pk=job_id)
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    return wait_for(done, timeout=900, interval=1, what=f"training job {job_id}")


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_budget_forces_a_smaller_network_and_an_unreachable_one_fails_clearly(
    live_worker, tenants, api_client, version, tmp_path
):
    from deploy.targets import target_profile_create

    client = api_client(tenants["alice"])
    full, smallest = latency(tmp_path, 64, 1.0), latency(tmp_path, 32, 0.25)
    assert smallest < full / 3, (smallest, full)
    between = target_profile_create(
        user=tenants["alice"],
        workspace=tenants["ws_a"],
        name="between",
        latency_budget_ms=math.sqrt(full * smallest),
    )
    job = finished(start(client, version, between.pk).json()["id"])
    assert job.status == "succeeded", job.error
    [model] = client.get(f"/api/v1/model-versions/?project={tenants['project_a'].pk}").json()["results"]
    fit = model["metrics"]["target"]
    chosen = fit["chosen"]
    assert fit["kind"] == "target_fit" and fit["profile"] == "between" and chosen["fits"] is True
    assert (chosen["image_size"], chosen["width"]) != (64, 1.0), "the requested network is over the budget"
    assert chosen["image_size"] <= 64 and chosen["width"] <= 1.0
    assert fit["candidates"][0]["image_size"] == 64 and fit["candidates"][0]["fits"] is False
    assert (
        model["params"]["image_size"] == chosen["image_size"] and model["params"]["width"] == chosen["width"]
    )
    assert any("Chose" in reason for reason in fit["reasons"]) and "trained_latency_ms" in fit
    # the served ONNX takes the chosen image size
    from django.core.files.storage import default_storage
    from training.models import ModelVersion

    path = tmp_path / "served.onnx"
    with default_storage.open(ModelVersion.objects.get(pk=model["id"]).onnx_key, "rb") as stored:
        path.write_bytes(stored.read())
    shape = onnxruntime.InferenceSession(str(path)).get_inputs()[0].shape
    assert shape[-1] == chosen["image_size"]

    assert smallest > 0.02, smallest  # far above the smallest budget a profile takes (0.001 ms)
    impossible = target_profile_create(
        user=tenants["alice"], workspace=tenants["ws_a"], name="impossible", latency_budget_ms=0.001
    )
    failed = finished(start(client, version, impossible.pk).json()["id"])
    assert failed.status == "failed"
    assert "target_unreachable" in failed.error or "No configuration" in failed.error, failed.error
    assert "smallest" in failed.error and " ms " in failed.error
