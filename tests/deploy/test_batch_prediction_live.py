"""A batch prediction end to end on PostgreSQL, Redis and a live Celery worker: the digits
classifier over a dataset version's test split, queued by the REST API, run by a
``deploy.batch_predict`` job, its results the hosted API's answers for the same images and its
accuracy the one those answers give; then one cancelled while it runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.datasets.factories import dataset_with_samples
from tests.deploy.factories import b64, deployment_with_key, model_version_from
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

URL = "/api/v1/batch-predictions/"
FINISHED = ("succeeded", "failed", "cancelled")


def finished(client, batch_id: int, timeout: float = 300) -> dict:
    def done():
        batch = client.get(f"{URL}{batch_id}/").json()
        return batch if batch["status"] in FINISHED else None

    return wait_for(done, timeout=timeout, interval=0.5, what=f"batch prediction {batch_id}")


def test_a_worker_predicts_a_test_split_as_the_hosted_api_answers(
    live_worker, tenants, api_client, trained_digits
):
    from datasets.models import VersionSample
    from datasets.services import dataset_version_create
    from django.core.files.storage import default_storage
    from jobs.models import Job

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=5, classes=range(10)
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=5)
    mv = model_version_from(tenants, trained_digits, dataset_version=version)
    deployment, _, secret = deployment_with_key(tenants, mv)
    alice = api_client(tenants["alice"])

    created = alice.post(
        URL,
        {
            "deployment": deployment.pk,
            "source": "dataset_version",
            "dataset_version": version.pk,
            "split": "test",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["model_version"] == mv.pk  # the deployment's version
    batch = finished(alice, created.json()["id"])
    assert batch["status"] == "succeeded", batch["error"]
    job = Job.objects.get(pk=batch["job"])
    assert job.status == "succeeded" and job.result["kind"] == "batch_predict_result"
    assert job.result["predicted"] == batch["summary"]["rows"]

    entries = list(VersionSample.objects.filter(version=version, split="test").order_by("pk"))
    download = alice.get(f"{URL}{batch['id']}/download/")  # jsonl by default
    assert download.status_code == 200 and download["Content-Type"] == "application/x-ndjson"
    rows = [json.loads(line) for line in b"".join(download.streaming_content).decode().splitlines()]
    assert [r["id"] for r in rows] == [e.sample_id for e in entries]

    images = [default_storage.open(e.blob_key, "rb").read() for e in entries]
    answer = alice.post(
        f"/api/v1/deployments/{deployment.pk}/predict/",
        data=json.dumps({"instances": [{"image": b64(i)} for i in images]}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert answer.status_code == 200, answer.content
    hosted = answer.json()["predictions"]
    for row, prediction in zip(rows, hosted, strict=True):
        assert [c["label"] for c in row["prediction"]["top_k"]] == [c["label"] for c in prediction["top_k"]]
        assert np.allclose(
            [c["score"] for c in row["prediction"]["top_k"]],
            [c["score"] for c in prediction["top_k"]],
            atol=1e-6,
        )
    accuracy = np.mean([p["top_k"][0]["label"] == e.label_name for p, e in zip(hosted, entries, strict=True)])
    assert batch["summary"]["metrics"]["accuracy"] == pytest.approx(accuracy)


def test_a_running_batch_is_cancelled_by_its_worker(
    live_worker, tenants, api_client, trained_digits, settings
):
    """A slow input (many copies of the digits) is cancelled while it runs: the job and the batch end
    cancelled, no result file is kept."""
    from tests.datasets.factories import digit_bytes, make_zip, upload

    mv = model_version_from(tenants, trained_digits)
    archive = make_zip({f"d/{i}.png": digit_bytes(i % 1797, size=256) for i in range(3000)})
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL,
        {"model_version": mv.pk, "source": "upload", "file": upload("many.zip", archive)},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    batch_id = created.json()["id"]

    def running():
        batch = alice.get(f"{URL}{batch_id}/").json()
        return (
            batch
            if batch["status"] == "running" and batch["progress"] and batch["progress"]["done"]
            else None
        )

    batch = wait_for(running, timeout=300, interval=0.2, what="the batch to report progress")
    assert 0 < batch["progress"]["done"] < batch["progress"]["total"] == 3000
    refused = alice.delete(f"{URL}{batch_id}/")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "batch_running"
    assert alice.post(f"{URL}{batch_id}/cancel/").status_code == 200
    batch = finished(alice, batch_id, timeout=120)
    assert batch["status"] == "cancelled" and batch["files"] == [] and batch["summary"] is None
    assert alice.delete(f"{URL}{batch_id}/").status_code == 204
