"""A big archive imports as a `datasets.import` job on a real Celery worker (real Redis and
PostgreSQL), reporting progress; a refused archive fails the job and leaves the dataset as it was."""

from __future__ import annotations

import pytest
from datasets.models import ImportBatch, Sample
from datasets.services import dataset_create
from django.core.files.storage import default_storage
from jobs.models import Job, JobEvent, JobStatus

from tests.datasets.factories import folder_layout, make_tar, make_zip, upload
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def finished(job_id: int) -> Job:
    wait_for(
        lambda: Job.objects.get(pk=job_id).status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
        timeout=60,
        what=f"import job {job_id} to finish",
    )
    return Job.objects.get(pk=job_id)


def test_archive_imports_in_a_background_job(live_worker, tenants, api_client, settings):
    settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES = 10  # 40 files: too many to import inside the request
    client = api_client(tenants["alice"])
    dataset = dataset_create(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Background",
        task_type="image_classification",
    )
    archive = make_tar(folder_layout(8, range(4), unlabeled=8))
    response = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload("digits.tar.gz", archive)},
        format="multipart",
    )
    assert response.status_code == 202, response.json()
    queued = response.json()
    assert queued["status"] == "queued" and queued["files"] == 40 and queued["job"]
    job = finished(queued["job"])
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.kind == "datasets.import" and job.result["imported"] == 40
    batch = client.get(f"/api/v1/datasets/{dataset.pk}/imports/{queued['id']}/").json()
    assert (batch["status"], batch["imported"], batch["failed"]) == ("succeeded", 40, 0)
    assert sorted(batch["labels_created"]) == ["0", "1", "2", "3"]
    assert batch["progress"]["fraction"] == 1.0
    assert Sample.objects.filter(dataset=dataset).count() == 40
    series = JobEvent.objects.filter(job=job, type="progress").values_list("data", flat=True)
    assert [point["fraction"] for point in series][-1] == 1.0 and len(series) >= 2
    upload_key = ImportBatch.objects.get(pk=queued["id"]).upload_key
    assert upload_key.startswith("imports/") and not default_storage.exists(upload_key), "the upload was kept"


def test_refused_archive_fails_the_job_and_changes_nothing(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Refused", task_type="image_classification"
    )
    bad = make_zip({"a/notes.txt": b"not an image", "b/readme.md": b"# hi"})
    response = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload("bad.zip", bad), "background": "true"},
        format="multipart",
    )
    assert response.status_code == 202
    job = finished(response.json()["job"])
    assert job.status == JobStatus.FAILED and "No file could be imported" in job.error
    batch = client.get(f"/api/v1/datasets/{dataset.pk}/imports/{response.json()['id']}/").json()
    assert (batch["status"], batch["error_code"]) == ("failed", "nothing_imported")
    assert {p["file"] for p in batch["problems"]} == {"a/notes.txt", "b/readme.md"}
    assert Sample.objects.filter(dataset=dataset).count() == 0


def test_import_jobs_cannot_be_started_through_the_jobs_api(tenants, api_client):
    response = api_client(tenants["alice"]).post(
        "/api/v1/jobs/",
        {"workspace": tenants["ws_a"].pk, "kind": "datasets.import", "params": {"import_batch": 1}},
        format="json",
    )
    assert response.status_code == 400 and "/imports/" in response.json()["error"]["message"]
