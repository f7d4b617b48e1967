"""The quality-report routes without a worker: an editor queues a report of the dataset or of one of
its versions (202, a ``datasets.quality_report`` job naming the report), one report of the same data
at a time (409), refusals name the problem (400), a viewer reads but cannot run one (403), a report
whose job ended without it shows as failed, and lists leave the findings out."""

from __future__ import annotations

import pytest
from datasets.models import QualityReport
from datasets.services import dataset_version_create
from jobs.models import Job

from tests.datasets import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def digits(tenants, isolated_storage):
    dataset = factories.dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=3, classes=range(2), unlabeled=1
    )
    return dataset, f"/api/v1/datasets/{dataset.pk}/quality-reports/"


def test_editor_queues_reports_of_the_dataset_and_of_a_version(tenants, api_client, digits):
    dataset, url = digits
    erin = api_client(tenants["erin"])
    made = erin.post(url, {"params": {"min_per_class": 20, "near_duplicate_distance": 4}}, format="json")
    assert made.status_code == 202, made.content
    body = made.json()
    assert body["status"] == "queued" and body["version"] is None and body["report"] is None
    assert body["params"] == {"min_per_class": 20, "near_duplicate_distance": 4}
    assert body["created_by"] == "erin"
    job = Job.objects.get(pk=body["job"])
    assert job.kind == "datasets.quality_report" and job.params == {"quality_report": body["id"]}
    assert job.workspace_id == dataset.workspace_id

    again = erin.post(url, {}, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "quality_report_running"
    assert again.json()["error"]["details"]["report"] == body["id"]

    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)
    of_version = erin.post(url, {"version": version.pk}, format="json")  # other data: runs alongside
    assert of_version.status_code == 202, of_version.content
    assert of_version.json()["version"] == version.pk and of_version.json()["version_name"] == "V1"

    listed = erin.get(url).json()
    assert [row["id"] for row in listed["results"]] == [of_version.json()["id"], body["id"]]
    assert all("report" not in row for row in listed["results"])


def test_refusals_name_the_problem(tenants, api_client, digits):
    dataset, url = digits
    alice = api_client(tenants["alice"])
    other = factories.dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Other", per_class=2, classes=range(2)
    )
    foreign_version = dataset_version_create(dataset=other, user=tenants["alice"], seed=1)
    wrong = alice.post(url, {"version": foreign_version.pk}, format="json")
    assert wrong.status_code == 400 and "version" in wrong.json()["error"]["details"]

    bad = alice.post(url, {"params": {"near_duplicate_distance": 99, "min_per_class": 0}}, format="json")
    assert bad.status_code == 400
    assert "near_duplicate_distance" in str(bad.json()["error"]["details"])

    empty = factories.dataset(tenants["project_a"], name="Empty")
    refused = alice.post(f"/api/v1/datasets/{empty.pk}/quality-reports/", {}, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "dataset_has_no_samples"

    viewer = api_client(tenants["carol"])
    assert viewer.post(url, {}, format="json").status_code == 403
    assert QualityReport.objects.count() == 0
    assert viewer.get(url).status_code == 200


def test_a_report_whose_job_failed_without_it_shows_failed(tenants, api_client, digits):
    _, url = digits
    alice = api_client(tenants["alice"])
    made = alice.post(url, {}, format="json").json()
    # as the reaper ends a job whose worker kept dying: the report's own code never ran
    Job.objects.filter(pk=made["job"]).update(status="failed", error="worker lost 3 times")
    detail = alice.get(f"{url}{made['id']}/").json()
    assert detail["status"] == "failed" and detail["report"] is None
    # the data is free again: a new report may run
    assert alice.post(url, {}, format="json").status_code == 202
