"""A training job that asks for ``processes: 2`` runs as two DDP ranks (gloo) on a live worker and
records it; the ``processes`` field is checked at creation (400s naming it)."""

from __future__ import annotations

import pytest

from tests.datasets.factories import bulk_text_dataset
from tests.training.test_train_digits_through_the_api import digits_version, finished

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_job_with_two_processes_trains_on_two_ranks(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=40)
    started = client.post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version["id"],
            "preset": "fast",
            "params": {"validation": "holdout", "epochs": 2, "batch_size": 32},
            "processes": 2,
        },
        format="json",
    )
    assert started.status_code == 201, started.content
    job = finished(started.json()["id"], timeout=600)

    shown = client.get(f"/api/v1/training-jobs/{job.pk}/").json()
    assert shown["processes"] == 2 and shown["params"]["batch_size"] == 32
    model = client.get(f"/api/v1/model-versions/{shown['model_version']['id']}/").json()
    runtime = model["metrics"]["runtime"]
    assert runtime["processes"] == 2 and runtime["backend"] == "gloo" and runtime["restarts"] == 0
    assert model["metrics"]["epochs"] == 2 and model["metrics"]["test"]["accuracy"] > 0.2


def test_processes_is_checked_when_the_job_is_created(tenants, api_client, settings):
    settings.SAMPAN_MAX_PROCESSES = 4
    client = api_client(tenants["alice"])
    texts = bulk_text_dataset(user=tenants["alice"], project=tenants["project_a"], samples=60, classes=3)
    text_version = client.post(f"/api/v1/datasets/{texts.pk}/versions/", {"seed": 1}, format="json")
    assert text_version.status_code == 201, text_version.content

    def create(processes: int, **params):
        body = {"dataset_version": text_version.json()["id"], "processes": processes}
        return client.post("/api/v1/training-jobs/", {**body, **params}, format="json")

    for processes, words in ((0, "greater than or equal to 1"), (5, "between 1 and 4"), (2, "one process")):
        answer = create(processes)
        assert answer.status_code == 400, answer.content
        assert "processes" in answer.content.decode() and words in answer.content.decode()
