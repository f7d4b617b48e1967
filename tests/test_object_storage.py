"""Blobs through Django's storage API on S3-compatible object storage (SAMPAN_STORAGE_URL), against
a real S3 protocol server (moto's, on loopback): import, thumbnails, versions' manifests, export and
model artifacts all work without the local filesystem holding the blobs."""

from __future__ import annotations

import io
import uuid
import zipfile
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from tests.datasets.factories import folder_layout, make_zip, upload
from tests.harness import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def s3_endpoint():
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def s3(settings, s3_endpoint, monkeypatch, tmp_path):
    from config.env import storage_from_url

    bucket = f"sampan-{uuid.uuid4().hex[:8]}"
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id="test-key",
        aws_secret_access_key="test-secret",
    )
    client.create_bucket(Bucket=bucket)
    monkeypatch.setenv(
        "SAMPAN_STORAGE_URL",
        f"s3://{bucket}/sampan?endpoint_url={s3_endpoint}&region=us-east-1&addressing_style=path",
    )
    monkeypatch.setenv("SAMPAN_STORAGE_ACCESS_KEY", "test-key")
    monkeypatch.setenv("SAMPAN_STORAGE_SECRET_KEY", "test-secret")
    local = tmp_path / "blobs-must-stay-empty"
    settings.STORAGES = {**settings.STORAGES, "default": storage_from_url("SAMPAN_STORAGE_URL", local)}
    settings.SAMPAN_HOME = tmp_path
    assert settings.STORAGES["default"]["BACKEND"] == "storages.backends.s3.S3Storage"

    def keys(prefix: str = "sampan/") -> list[str]:
        listed = client.list_objects_v2(Bucket=bucket, Prefix=prefix)
        return [item["Key"] for item in listed.get("Contents", [])]

    return {"client": client, "bucket": bucket, "keys": keys, "local": local}


def test_dataset_lifecycle_on_object_storage(s3, tenants, api_client):
    from datasets.models import Sample
    from datasets.services import dataset_version_manifest

    client = api_client(tenants["alice"])
    dataset = client.post(
        "/api/v1/datasets/",
        {"workspace": tenants["ws_a"].pk, "project": tenants["project_a"].pk, "name": "Digits on S3"},
        format="json",
    ).json()
    archive = upload("digits.zip", make_zip(folder_layout(6, range(3))), "application/zip")
    imported = client.post(
        f"/api/v1/datasets/{dataset['id']}/imports/", {"archive": archive}, format="multipart"
    )
    assert imported.status_code in (200, 201), imported.content
    samples = Sample.objects.filter(dataset_id=dataset["id"])
    assert samples.count() == 18
    stored = set(s3["keys"]())
    assert all(
        f"sampan/{sample.blob_key}" in stored and f"sampan/{sample.thumbnail_key}" in stored
        for sample in samples
    )
    assert not s3["local"].exists(), "no blob may land on the local filesystem"

    sample = samples.first()
    thumbnail = client.get(f"/api/v1/datasets/{dataset['id']}/samples/{sample.pk}/thumbnail/")
    assert thumbnail.status_code == 200
    body = s3["client"].get_object(Bucket=s3["bucket"], Key=f"sampan/{sample.thumbnail_key}")["Body"].read()
    assert b"".join(thumbnail.streaming_content) == body

    version = client.post(f"/api/v1/datasets/{dataset['id']}/versions/", {"seed": 3}, format="json")
    assert version.status_code == 201, version.content
    from datasets.models import DatasetVersion

    manifest = dataset_version_manifest(version=DatasetVersion.objects.get(pk=version.json()["id"]))
    assert len(manifest["samples"]) == 18
    for entry in manifest["samples"]:  # downloaded once into the worker's cache, byte for byte
        key = Sample.objects.get(pk=entry["id"]).blob_key
        original = s3["client"].get_object(Bucket=s3["bucket"], Key=f"sampan/{key}")["Body"].read()
        assert Path(entry["path"]).read_bytes() == original

    exported = client.get(f"/api/v1/datasets/{dataset['id']}/export/")
    assert exported.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(exported.streaming_content))) as zipped:
        names = zipped.namelist()
    assert sum(name.endswith(".png") for name in names) == 18 and "manifest.csv" in names


def test_model_artifacts_on_object_storage(s3, tenants, api_client, tmp_path):
    from jobs.models import Job
    from training.services import model_version_record

    job = Job.objects.create(workspace=tenants["ws_a"], project=tenants["project_a"], kind="training.run")
    checkpoint, onnx = tmp_path / "model.pt", tmp_path / "model.onnx"
    checkpoint.write_bytes(b"weights")
    onnx.write_bytes(b"onnx-bytes")
    evaluation = {
        "accuracy": 1.0,
        "macro": {"f1": 1.0},
        "weighted": {"f1": 1.0},
        "top_k_accuracy": {"1": 1.0},
    }
    model = model_version_record(
        job=job,
        dataset_version=None,
        template="image_classification",
        params={"preset": "fast"},
        result={"classes": ["a", "b"]},
        evaluation=evaluation,
        checkpoint=checkpoint,
        onnx=onnx,
    )
    assert f"sampan/{model.onnx_key}" in s3["keys"]() and f"sampan/{model.checkpoint_key}" in s3["keys"]()
    response = api_client(tenants["alice"]).get(f"/api/v1/model-versions/{model.pk}/onnx/")
    assert response.status_code == 200 and b"".join(response.streaming_content) == b"onnx-bytes"


def test_export_job_stores_its_zip_on_object_storage(s3, tenants, api_client, settings):
    """A datasets.export job (its body run here) streams the zip to S3 and the web downloads it from there."""
    from datasets.services.dataset_jobs import dataset_export_job_run
    from jobs.models import Job, JobStatus

    from tests.datasets.factories import dataset_with_samples
    from workers.progress import silent_report

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=4, classes=range(2)
    )
    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 3
    client = api_client(tenants["alice"])
    assert client.get(f"/api/v1/datasets/{dataset.pk}/export/").status_code == 409
    job = Job.objects.get(
        pk=client.post(f"/api/v1/datasets/{dataset.pk}/exports/", {}, format="json").json()["id"]
    )
    result = dataset_export_job_run(job=job, report=silent_report)
    assert f"sampan/{result['blob_key']}" in s3["keys"](f"sampan/exports/{job.pk}/")
    Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, result=result)
    download = client.get(f"/api/v1/datasets/{dataset.pk}/exports/{job.pk}/")
    assert download.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as zipped:
        names = zipped.namelist()
    assert sum(name.endswith(".png") for name in names) == 8 and "manifest.csv" in names
    assert not s3["local"].exists(), "no blob may land on the local filesystem"
