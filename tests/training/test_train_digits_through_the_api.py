"""Image classification through the REST API against PostgreSQL, Redis and a live worker:
import real handwritten digits, make a version, train, and read the model version's evaluation."""

from __future__ import annotations

import onnxruntime
import pytest
from jobs.models import Job, JobEvent

from tests.datasets.factories import dataset_with_samples
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def finished(job_id: int, timeout: float) -> Job:
    def done():
        job = Job.objects.get(pk=job_id)
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    job = wait_for(done, timeout=timeout, interval=1, what=f"training job {job_id}")
    assert job.status == "succeeded", f"{job.status}: {job.error}"
    return job


def digits_version(tenants, api_client, *, per_class: int) -> dict:
    from datasets.models import ImportBatch

    dataset = dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Digits",
        per_class=per_class,
        classes=range(10),
    )
    # a big archive is imported by a `datasets.import` job on the worker
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    batch = ImportBatch.objects.get(dataset=dataset)
    assert batch.status == "succeeded" and batch.imported == per_class * 10, (
        batch.status,
        batch.imported,
        batch.error,
    )
    response = api_client(tenants["alice"]).post(
        f"/api/v1/datasets/{dataset.pk}/versions/", {"seed": 7}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_balanced_preset_reaches_095_test_accuracy_on_digits(live_worker, tenants, api_client, tmp_path):
    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=170)
    started = client.post(
        "/api/v1/training-jobs/",
        # holdout: one validated point per epoch (small data would cross-validate under auto)
        {"dataset_version": version["id"], "preset": "balanced", "params": {"validation": "holdout"}},
        format="json",
    )
    assert started.status_code == 201, started.content
    assert started.json()["kind"] == "training.run" and started.json()["queue"] == "cpu"
    job = finished(started.json()["id"], timeout=900)

    versions = client.get(f"/api/v1/model-versions/?project={tenants['project_a'].pk}").json()["results"]
    assert len(versions) == 1
    model = versions[0]
    assert model["name"] == "V1" and model["dataset_version"] == version["id"] and model["job"] == job.pk
    assert model["template"] == "image_classification" and model["preset"] == "balanced"
    assert model["params"]["model"] == "resnet_narrow" and model["code_version"]
    accuracy = model["metrics"]["test"]["accuracy"]
    assert accuracy >= 0.95, f"test accuracy {accuracy:.3f}"

    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert len(report["per_class"]) == 10 and len(report["confusion_matrix"]["counts"]) == 10
    assert (
        sum(map(sum, report["confusion_matrix"]["counts"]))
        == report["samples"]
        == sum(version["counts"]["test"].values())
    )

    epochs = JobEvent.objects.filter(job=job, type="progress", data__has_key="val_acc").values_list(
        "data__epoch", flat=True
    )
    assert sorted(set(epochs)) == list(range(1, model["params"]["epochs"] + 1)), (
        "one validated point per epoch"
    )

    onnx = client.get(f"/api/v1/model-versions/{model['id']}/onnx/")
    assert onnx.status_code == 200
    path = tmp_path / "model.onnx"
    path.write_bytes(b"".join(onnx.streaming_content))
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert session.get_inputs()[0].shape[0] in (None, "batch", "N") or isinstance(
        session.get_inputs()[0].shape[0], str
    )


def test_training_refuses_bad_parameters_and_untrainable_data(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=6)
    bad = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version["id"], "preset": "fast", "params": {"epochs": 0}},
        format="json",
    )
    assert bad.status_code == 400 and "params.epochs" in bad.json()["error"]["details"]
    unknown = client.post(
        "/api/v1/training-jobs/", {"dataset_version": version["id"], "preset": "turbo"}, format="json"
    )
    assert unknown.status_code == 400 and "preset" in unknown.json()["error"]["details"]
    generic = client.post(
        "/api/v1/jobs/", {"workspace": tenants["ws_a"].pk, "kind": "training.run"}, format="json"
    )
    assert generic.status_code == 400 and "/api/v1/training-jobs/" in generic.json()["error"]["message"]

    one_class = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Ones", per_class=8, classes=[1]
    )
    v1 = client.post(f"/api/v1/datasets/{one_class.pk}/versions/", {"seed": 1}, format="json").json()
    refused = client.post("/api/v1/training-jobs/", {"dataset_version": v1["id"]}, format="json")
    assert refused.status_code == 400 and "at least 2" in refused.json()["error"]["message"]

    few = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Few", per_class=3, classes=[4, 7]
    )
    v_few = client.post(f"/api/v1/datasets/{few.pk}/versions/", {"seed": 1}, format="json").json()
    too_small = client.post("/api/v1/training-jobs/", {"dataset_version": v_few["id"]}, format="json")
    assert too_small.status_code == 400 and "at least 5 samples" in too_small.json()["error"]["message"]
    assert not Job.objects.filter(kind="training.run").exists()


def test_worker_killed_mid_training_resumes_from_its_last_checkpoint(live_worker, tenants, api_client):
    import os
    import signal

    from jobs.services import jobs_reap_stale

    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=30)
    started = client.post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version["id"],
            "preset": "fast",
            "params": {"epochs": 6, "validation": "holdout"},
        },
        format="json",
    )
    assert started.status_code == 201, started.content
    job_id = started.json()["id"]

    def validated_epochs() -> set[int]:
        return set(
            JobEvent.objects.filter(job_id=job_id, type="progress", data__has_key="val_acc").values_list(
                "data__epoch", flat=True
            )
        )

    wait_for(
        lambda: max(validated_epochs(), default=0) >= 2, timeout=300, interval=0.2, what="two finished epochs"
    )
    job = Job.objects.get(pk=job_id)
    assert job.status == "running" and job.attempt == 1
    os.kill(int(job.lease_owner.rsplit("/", 1)[1]), signal.SIGKILL)  # the training process dies mid-run

    def requeued() -> bool:
        jobs_reap_stale()
        return Job.objects.get(pk=job_id).attempt >= 2

    wait_for(requeued, timeout=120, interval=1, what="the reaper to requeue the training job")
    job = finished(job_id, timeout=600)
    assert job.attempt == 2
    assert job.result["resumed_from"] is not None and job.result["resumed_from"]["epoch"] >= 2
    assert job.result["metrics"]["epochs"] == 6
    assert validated_epochs() == set(range(1, 7))


def test_cancel_stops_training_within_seconds_and_keeps_the_last_checkpoint(live_worker, tenants, api_client):
    import time

    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=30)
    started = client.post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version["id"],
            "preset": "balanced",
            "params": {"epochs": 40, "validation": "holdout"},
        },
        format="json",
    )
    job_id = started.json()["id"]
    wait_for(
        lambda: JobEvent.objects.filter(job_id=job_id, type="progress", data__has_key="val_acc").exists(),
        timeout=300,
        interval=0.2,
        what="a finished epoch",
    )
    asked = time.monotonic()
    assert client.post(f"/api/v1/jobs/{job_id}/cancel/").status_code == 200
    job = wait_for(
        lambda: (j := Job.objects.get(pk=job_id)).status != "running" and j,
        timeout=30,
        interval=0.2,
        what="the training to stop",
    )
    assert job.status == "cancelled", (job.status, job.error)
    assert time.monotonic() - asked < 15
    from training.services import run_dir_for

    checkpoints = list((run_dir_for(job) / "checkpoints").glob("*"))
    assert checkpoints, "the cancelled run keeps its checkpoint for a later resume"
    assert not client.get(f"/api/v1/model-versions/?project={tenants['project_a'].pk}").json()["count"]
