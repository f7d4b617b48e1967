"""A training job goes to the `gpu` queue while a worker consuming it is alive, else to `cpu`;
other kinds stay on `cpu`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from jobs.models import WorkerNode

from tests.datasets.factories import dataset_with_samples

pytestmark = pytest.mark.django_db


def test_queue_follows_live_gpu_workers(tenants, api_client):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=6, classes=range(2)
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)
    client = api_client(tenants["alice"])

    def start(kind_body: dict) -> str:
        response = client.post(kind_body.pop("url"), kind_body, format="json")
        assert response.status_code == 201, response.content
        return response.json()["queue"]

    training = {"url": "/api/v1/training-jobs/", "dataset_version": version.pk, "preset": "fast"}
    check = {"url": "/api/v1/jobs/", "workspace": tenants["ws_a"].pk, "kind": "system.check"}
    assert start(dict(training)) == "cpu"

    now = timezone.now()
    gpu = WorkerNode.objects.create(
        hostname="gpu-host",
        queues=["cpu", "gpu"],
        devices={"cuda": [{"name": "H200"}]},
        started_at=now,
        last_seen=now,
    )
    assert start(dict(training)) == "gpu"
    assert start(dict(check)) == "cpu"

    WorkerNode.objects.filter(pk=gpu.pk).update(
        last_seen=now - timedelta(minutes=5)
    )  # the GPU host went away
    assert start(dict(training)) == "cpu"
