"""A large dataset's version and export are made by `datasets.version` and `datasets.export` jobs on a
real Celery worker (real Redis and PostgreSQL), reporting progress batch by batch; the version
appears when its job succeeds and the export's zip downloads through the web."""

from __future__ import annotations

import io
import zipfile

import pytest
from datasets.models import DatasetVersion
from jobs.models import Job, JobEvent, JobStatus

from tests.datasets.factories import bulk_text_dataset
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def finished(job_id: int) -> Job:
    wait_for(
        lambda: (
            Job.objects.get(pk=job_id).status in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)
        ),
        timeout=600,  # behaviour, not speed: a loaded machine, a worker busy with an earlier test's job
        what=f"job {job_id} to finish",
    )
    return Job.objects.get(pk=job_id)


def test_a_large_version_and_export_are_made_by_the_worker(live_worker, tenants, api_client, settings):
    settings.SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES = 100
    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 100
    rows = 12_000  # three of the worker's 5,000-sample batches
    dataset = bulk_text_dataset(user=tenants["alice"], project=tenants["project_a"], samples=rows, classes=4)
    client = api_client(tenants["alice"])
    url = f"/api/v1/datasets/{dataset.pk}/"

    body = {"seed": 9, "train_ratio": 0.7, "val_ratio": 0.2, "test_ratio": 0.1}
    queued = client.post(f"{url}versions/", body, format="json")
    assert queued.status_code == 202, queued.json()
    job = finished(queued.json()["id"])
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.result["kind"] == "dataset_version_result" and job.result["sample_count"] == rows
    version = client.get(f"{url}versions/{job.result['dataset_version']}/").json()
    assert (version["name"], version["sample_count"], version["totals"]) == (
        "V1",
        rows,
        {"train": 8400, "val": 2400, "test": 1200},
    )
    progress = [
        (d["processed"], d["total"])
        for d in JobEvent.objects.filter(job=job, type="progress")
        .order_by("id")
        .values_list("data", flat=True)
        if "processed" in d
    ]
    assert progress[-1] == (rows, rows) and len(progress) >= 2, progress
    assert all(a[0] <= b[0] for a, b in zip(progress, progress[1:], strict=False)), "progress went backwards"
    assert len({done for done, _ in progress}) >= 2, progress
    assert DatasetVersion.all_objects.filter(dataset=dataset).count() == 1

    started = client.post(f"{url}exports/", {"version": version["id"]}, format="json")
    assert started.status_code == 202, started.json()
    export = finished(started.json()["id"])
    assert export.status == JobStatus.SUCCEEDED, export.error
    assert export.result["kind"] == "dataset_export_result" and export.progress["fraction"] == 1.0
    download = client.get(f"{url}exports/{export.pk}/")
    assert download.status_code == 200
    table = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))).read("data.csv").decode()
    lines = table.splitlines()
    assert len(lines) == rows + 1 and lines[0] == "text,label,split"
    assert sum(line.endswith(",val") for line in lines) == 2400
