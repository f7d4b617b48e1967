"""GET /api/v1/training-jobs/ and /training-jobs/{id}/: a training job is a resource of its own,
shown with what it trains and the model version it produced, filtered, tenant-scoped, and listed in
a number of queries that does not grow with the rows (NetBox's query budgets)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


def training_job(project, *, dataset_version: int = 1, status: str = "queued", user=None, **params):
    from jobs.models import Job

    return Job.objects.create(
        workspace=project.workspace,
        project=project,
        kind="training.run",
        status=status,
        params={
            "dataset_version": dataset_version,
            "template": "image_classification",
            "preset": "fast",
            "params": {"preset": "fast", "epochs": 3, "learning_rate": 0.01},
            **params,
        },
        created_by=user,
        progress={"fraction": 0.5, "message": "epoch 2/3"} if status == "running" else {},
    )


def produced(job, number: int):
    from training.models import ModelVersion

    return ModelVersion.objects.create(
        workspace=job.workspace,
        project=job.project,
        number=number,
        job=job,
        template="image_classification",
        preset="fast",
    )


def test_a_training_job_shows_what_it_trains_and_what_it_produced(tenants, api_client):
    alice = api_client(tenants["alice"])
    job = training_job(tenants["project_a"], dataset_version=7, status="succeeded", user=tenants["alice"])
    version = produced(job, 1)
    shown = alice.get(f"/api/v1/training-jobs/{job.pk}/")
    assert shown.status_code == 200, shown.content
    body = shown.json()
    assert body["id"] == job.pk and body["kind"] == "training.run" and body["status"] == "succeeded"
    assert (body["template"], body["preset"], body["dataset_version"]) == ("image_classification", "fast", 7)
    assert body["params"] == {"preset": "fast", "epochs": 3, "learning_rate": 0.01}
    assert body["backbone"] is None and body["created_by"] == "alice"
    assert body["model_version"] == {"id": version.pk, "name": "V1"}

    running = training_job(tenants["project_a"], status="running", backbone=3)
    body = alice.get(f"/api/v1/training-jobs/{running.pk}/").json()
    assert body["model_version"] is None and body["backbone"] == 3
    assert body["progress"]["fraction"] == 0.5

    # a job of another kind is not a training job
    assert alice.get(f"/api/v1/training-jobs/{tenants['job_a'].pk}/").status_code == 404


def test_the_list_filters_by_project_dataset_version_and_status(tenants, api_client):
    from workspaces.models import Project

    alice = api_client(tenants["alice"])
    other_project = Project.objects.create(workspace=tenants["ws_a"], name="Other")
    first = training_job(tenants["project_a"], dataset_version=1, status="succeeded")
    second = training_job(tenants["project_a"], dataset_version=2, status="failed")
    third = training_job(other_project, dataset_version=2, status="queued")

    def ids(query: str = "") -> list[int]:
        answer = alice.get(f"/api/v1/training-jobs/{query}")
        assert answer.status_code == 200, answer.content
        return [row["id"] for row in answer.json()["results"]]

    assert ids() == [third.pk, second.pk, first.pk]  # newest first, as /jobs/ lists
    assert ids(f"?project={tenants['project_a'].pk}") == [second.pk, first.pk]
    assert ids("?dataset_version=2") == [third.pk, second.pk]
    assert ids("?status=succeeded") == [first.pk]
    assert ids(f"?dataset_version=2&project={other_project.pk}") == [third.pk]
    assert alice.get("/api/v1/training-jobs/?status=sleeping").status_code == 400
    # the jobs of other kinds stay on /jobs/ only
    assert tenants["job_a"].pk not in ids()


def test_other_tenants_neither_list_nor_see_them(tenants, api_client):
    job = training_job(tenants["project_a"])
    bob = api_client(tenants["bob"])
    assert bob.get("/api/v1/training-jobs/").json()["count"] == 0
    assert bob.get(f"/api/v1/training-jobs/?project={tenants['project_a'].pk}").json()["count"] == 0
    assert bob.get(f"/api/v1/training-jobs/{job.pk}/").status_code == 404
    assert api_client(tenants["carol"]).get(f"/api/v1/training-jobs/{job.pk}/").status_code == 200  # viewer
    assert api_client().get("/api/v1/training-jobs/").status_code in (401, 403)


def test_the_list_takes_the_same_number_of_queries_for_one_row_or_many(tenants, api_client):
    alice = api_client(tenants["alice"])

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            answer = alice.get("/api/v1/training-jobs/")
        assert answer.status_code == 200
        return len(captured)

    job = training_job(tenants["project_a"], status="succeeded", user=tenants["alice"])
    produced(job, 1)
    one = queries()
    for number in range(2, 12):
        more = training_job(tenants["project_a"], status="succeeded", user=tenants["erin"])
        produced(more, number)
        training_job(tenants["project_a"], status="running", user=tenants["alice"])
    assert alice.get("/api/v1/training-jobs/").json()["count"] == 21
    assert queries() == one
