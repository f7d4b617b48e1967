"""SAMPAN_DATASET_MAX_FILES means "at most N files": an archive with exactly N imports, on the
synchronous path and in the background job alike; N + 1 is a 4xx before any batch or job exists
(the real default included). A background import where nothing is an image fails with honest
counts, a problems list capped with its total, and no traceback in the worker's log."""

from __future__ import annotations

import io
import logging
import zipfile

import pytest
from datasets.models import ImportBatch, Sample
from datasets.services import dataset_create, image_imports, imports
from jobs.models import Job, JobStatus
from jobs.runner import run_job

from tests.datasets.factories import digit_bytes, make_zip, snapshot, upload

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

LIMIT = 6


@pytest.fixture
def dataset(tenants, isolated_storage, settings):
    settings.SAMPAN_DATASET_MAX_FILES = LIMIT
    found = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Limits", task_type="image_classification"
    )
    image_imports.import_files(
        dataset=found, files=[upload("seed.png", digit_bytes(90, size=20))], user=tenants["alice"]
    )
    return found


def archive_of(count: int, *, images: bool = True, offset: int = 0) -> bytes:
    return make_zip(
        {
            f"{'cat' if i % 2 else 'dog'}/{i}.png": digit_bytes(offset + i)
            if images
            else b"not an image %d" % i
            for i in range(count)
        }
    )


def stored(dataset) -> dict:
    """The samples and labels (a failed import keeps its batch row, with its outcome)."""
    found = snapshot(dataset)
    return {"samples": found["samples"], "labels": found["labels"]}


def post(client, dataset, data: bytes, **fields):
    return client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload("a.zip", data), **fields},
        format="multipart",
    )


@pytest.fixture
def run_import_job(monkeypatch):
    """The ``datasets.import`` task's body as the worker runs it (claim, run, record), in this test's
    process and transaction: the job is never enqueued (nothing commits), so no other worker takes it,
    and this test's settings apply. Only the runner's connection recycling is left out."""
    from datasets.tasks import _import

    monkeypatch.setattr("jobs.runner.close_old_connections", lambda: None)

    def run(job_id: int) -> Job:
        run_job(job_id, _import)
        return Job.objects.get(pk=job_id)

    return run


@pytest.mark.parametrize("background", [False, True], ids=["synchronous", "background-job"])
def test_exactly_the_limit_imports_and_one_more_is_refused_up_front(
    dataset, tenants, api_client, settings, run_import_job, background
):
    settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES = LIMIT
    client = api_client(tenants["alice"])
    before, batches, jobs = snapshot(dataset), ImportBatch.objects.count(), Job.objects.count()

    over = post(client, dataset, archive_of(LIMIT + 1), background=str(background).lower())
    assert over.status_code == 400, over.content
    error = over.json()["error"]
    assert error["code"] == "too_many_files" and f"more than {LIMIT:,} files" in error["message"]
    assert "SAMPAN_DATASET_MAX_FILES" in error["message"]
    assert (ImportBatch.objects.count(), Job.objects.count()) == (batches, jobs), (
        "a refused archive left a record"
    )
    assert snapshot(dataset) == before

    exact = post(client, dataset, archive_of(LIMIT), background=str(background).lower())
    assert exact.status_code == (202 if background else 201), exact.content
    if background:
        job = run_import_job(exact.json()["job"])
        assert job.status == JobStatus.SUCCEEDED, job.error
    batch = client.get(f"/api/v1/datasets/{dataset.pk}/imports/{exact.json()['id']}/").json()
    assert (batch["status"], batch["files"], batch["imported"], batch["failed"]) == (
        "succeeded",
        LIMIT,
        LIMIT,
        0,
    )
    assert Sample.objects.filter(dataset=dataset).count() == 1 + LIMIT
    assert set(before["samples"]) < set(snapshot(dataset)["samples"]), "a stored sample changed"


def test_the_real_default_is_checked_before_any_job(tenants, api_client, isolated_storage, settings):
    """200,001 (empty) entries against the default 200,000: refused from the scan, nothing queued."""
    assert settings.SAMPAN_DATASET_MAX_FILES == 200_000
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Default", task_type="image_classification"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for i in range(200_001):
            archive.writestr(f"{i}.png", b"")
    batches, jobs = ImportBatch.objects.count(), Job.objects.count()
    response = post(api_client(tenants["alice"]), dataset, out.getvalue(), background="true")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "too_many_files"
    assert "200,000" in response.json()["error"]["message"]
    assert (ImportBatch.objects.count(), Job.objects.count()) == (batches, jobs)


def test_a_background_import_of_no_images_fails_with_honest_counts_and_a_capped_list(
    dataset, tenants, api_client, settings, monkeypatch, caplog, run_import_job
):
    monkeypatch.setattr(imports, "MAX_PROBLEMS_LISTED", 4)
    client = api_client(tenants["alice"])
    before = stored(dataset)
    queued = post(client, dataset, archive_of(LIMIT, images=False), background="true")
    assert queued.status_code == 202, queued.content
    with caplog.at_level(logging.INFO):
        job = run_import_job(queued.json()["job"])
    assert job.status == JobStatus.FAILED and "No file could be imported (6 rejected)" in job.error
    assert "Traceback" not in caplog.text and "refused its input" in caplog.text
    batch = client.get(f"/api/v1/datasets/{dataset.pk}/imports/{queued.json()['id']}/").json()
    assert (batch["status"], batch["error_code"]) == ("failed", "nothing_imported")
    assert (batch["files"], batch["failed"], batch["imported"], batch["problems_total"]) == (
        LIMIT,
        LIMIT,
        0,
        LIMIT,
    )
    assert len(batch["problems"]) == 4 and {p["code"] for p in batch["problems"]} == {"not_an_image"}
    assert stored(dataset) == before

    refused = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"files": [upload(f"{i}.png", b"text") for i in range(LIMIT)]},
        format="multipart",
    )
    assert refused.status_code == 400, refused.content
    details = refused.json()["error"]["details"]
    assert (details["problems_total"], details["failed"], len(details["problems"])) == (LIMIT, LIMIT, 4)
    assert stored(dataset) == before
