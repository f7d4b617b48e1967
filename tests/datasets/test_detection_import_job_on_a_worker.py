"""An object-detection archive imported in the background runs as a `datasets.import` job on a real
Celery worker (real Redis and PostgreSQL): the format chosen travels with the batch and the boxes
arrive; an archive mixing two formats fails the job with mixed_annotation_formats naming both, and
imports nothing."""

from __future__ import annotations

import io
import json

import pytest
from datasets.models import Annotation, Label, Sample
from datasets.services import dataset_create
from jobs.models import Job, JobStatus
from PIL import Image

from tests.datasets.factories import make_zip, upload
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def finished(job_id: int) -> Job:
    wait_for(
        lambda: Job.objects.get(pk=job_id).status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
        timeout=90,
        what=f"import job {job_id} to finish",
    )
    return Job.objects.get(pk=job_id)


def png(shade: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (shade, 100, 50)).save(out, "PNG")
    return out.getvalue()


def detection_dataset(tenants, name: str):
    return dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name=name, task_type="object_detection"
    )


def test_a_yolo_archive_imports_in_a_background_job(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    dataset = detection_dataset(tenants, "Background boxes")
    archive = make_zip(
        {
            "data.yaml": b"names: [car, person]\n",
            "images/a.png": png(1),
            "images/b.png": png(2),
            "labels/a.txt": b"1 0.5 0.5 0.5 0.5\n0 0.25 0.25 0.25 0.5\n",
            "labels/b.txt": b"",
        }
    )
    response = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload("boxes.zip", archive), "format": "yolo", "background": "true"},
        format="multipart",
    )
    assert response.status_code == 202, response.json()
    job = finished(response.json()["job"])
    assert job.status == JobStatus.SUCCEEDED, job.error
    batch = client.get(f"/api/v1/datasets/{dataset.pk}/imports/{response.json()['id']}/").json()
    assert (batch["status"], batch["imported"], batch["mapping"]) == (
        "succeeded",
        2,
        {"annotation_format": "yolo"},
    )
    assert batch["labels_created"] == ["car", "person"]
    assert list(Label.objects.filter(dataset=dataset).values_list("name", flat=True)) == ["car", "person"]
    statuses = dict(Sample.objects.filter(dataset=dataset).values_list("original_name", "annotation_status"))
    assert statuses == {"images/a.png": "annotated", "images/b.png": "no_objects"}
    boxes = sorted(
        (a.label.name, *(round(a.geometry[k], 3) for k in ("x", "y", "width", "height")))
        for a in Annotation.objects.filter(sample__dataset=dataset).select_related("label")
    )
    assert boxes == [("car", 5.0, 0.0, 10.0, 15.0), ("person", 10.0, 7.5, 20.0, 15.0)]


def test_mixed_formats_fail_the_job_naming_both(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    dataset = detection_dataset(tenants, "Mixed boxes")
    coco = {
        "images": [{"id": 1, "file_name": "a.png", "width": 40, "height": 30}],
        "categories": [{"id": 1, "name": "car"}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, 5, 5]}],
    }
    voc = b"<annotation><filename>a.png</filename><object><name>car</name></object></annotation>"
    archive = make_zip({"coco.json": json.dumps(coco).encode(), "a.xml": voc, "a.png": png(3)})
    response = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload("mixed.zip", archive), "background": "true"},
        format="multipart",
    )
    assert response.status_code == 202, response.json()
    job = finished(response.json()["job"])
    assert job.status == JobStatus.FAILED
    batch = client.get(f"/api/v1/datasets/{dataset.pk}/imports/{response.json()['id']}/").json()
    assert (batch["status"], batch["error_code"]) == ("failed", "mixed_annotation_formats")
    assert "COCO" in batch["error"] and "VOC" in batch["error"]
    assert [p["action"] for p in batch["problems"]] == ["refused"]
    assert not Sample.objects.filter(dataset=dataset).exists()
