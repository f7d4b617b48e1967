"""Blob garbage collection: a blob nothing references is deleted once it is older than the grace
period; never one a dataset, version, model version, package or running job still needs, and never
one a declared field could name without the sweep knowing (every app declares its key fields)."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import boto3
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone
from moto.server import ThreadedMotoServer

from tests.datasets.factories import dataset_with_samples
from tests.harness import free_port
from tests.jobs.factories import job
from tests.training.factories import model_version

pytestmark = pytest.mark.django_db

GRACE = timedelta(hours=24)


def _later(hours: float = 25):
    """A sweep's clock this many hours from now: every blob written by the test is that old."""
    return timezone.now() + timedelta(hours=hours)


def _sweep(**options):
    from blobs.services import blobs_sweep

    return blobs_sweep(grace=GRACE, **options)


def _sample_keys(dataset) -> set[str]:
    from datasets.models import Sample

    keys = set()
    for blob, thumbnail in Sample.objects.filter(dataset=dataset).values_list("blob_key", "thumbnail_key"):
        keys.add(blob)
        if thumbnail:
            keys.add(thumbnail)
    return keys


def _exists(keys) -> set[str]:
    return {key for key in keys if default_storage.exists(key)}


def test_a_deleted_datasets_blobs_go_after_the_grace_period_only(tenants, isolated_storage):
    from datasets.services.datasets import dataset_delete

    alice, project = tenants["alice"], tenants["project_a"]
    kept = dataset_with_samples(user=alice, project=project, name="Kept", classes=range(0, 2))
    gone = dataset_with_samples(user=alice, project=project, name="Gone", classes=range(5, 7))
    kept_keys, gone_keys = _sample_keys(kept), _sample_keys(gone)
    assert gone_keys and not gone_keys & kept_keys and _exists(gone_keys) == gone_keys
    dataset_delete(dataset=gone)

    young = _sweep()  # written moments ago: within the grace period
    assert young.deleted == 0 and young.young >= len(gone_keys | kept_keys)
    assert _exists(gone_keys) == gone_keys

    swept = _sweep(now=_later())
    assert set(swept.deleted_keys) == gone_keys
    assert swept.freed_bytes > 0
    assert _exists(gone_keys) == set()
    assert _exists(kept_keys) == kept_keys  # the live dataset's blobs stay, however old


def test_dry_run_deletes_nothing(tenants, isolated_storage):
    from datasets.services.datasets import dataset_delete

    gone = dataset_with_samples(user=tenants["alice"], project=tenants["project_a"], name="Gone")
    keys = _sample_keys(gone)
    dataset_delete(dataset=gone)
    dry = _sweep(now=_later(), dry_run=True)
    assert set(dry.deleted_keys) == keys and dry.deleted == len(keys)
    assert _exists(keys) == keys


def test_a_blob_shared_by_a_deleted_dataset_and_a_live_version_is_kept(tenants, isolated_storage):
    from datasets.models import Sample
    from datasets.services import dataset_version_create
    from datasets.services.datasets import dataset_delete

    alice, project = tenants["alice"], tenants["project_a"]
    # the same images in two datasets: the same content-addressed blobs
    deleted = dataset_with_samples(user=alice, project=project, name="Deleted")
    versioned = dataset_with_samples(user=alice, project=project, name="Versioned")
    shared = {k for k in _sample_keys(versioned) if k.startswith("samples/")}
    assert shared and shared <= _sample_keys(deleted)
    dataset_version_create(dataset=versioned, user=alice)
    # only the version names them now: its samples are gone from the live dataset
    Sample.objects.filter(dataset=versioned).delete()
    dataset_delete(dataset=deleted)

    swept = _sweep(now=_later())
    assert _exists(shared) == shared
    assert not set(swept.deleted_keys) & shared

    dataset_delete(dataset=versioned)
    assert set(_sweep(now=_later()).deleted_keys) == shared


def test_a_model_versions_files_stay_while_it_exists(tenants, isolated_storage):
    from tests.deploy.factories import package

    version = model_version(tenants["project_a"], onnx=b"onnx bytes")
    built = package(version)
    keys = {version.onnx_key, built.blob_key}
    assert _exists(keys) == keys

    assert _sweep(now=_later(48)).deleted == 0
    assert _exists(keys) == keys  # the package is kept too

    built.delete()
    version.delete()
    assert set(_sweep(now=_later(48)).deleted_keys) == keys


def test_blobs_of_a_running_job_are_kept_whatever_their_age(tenants, isolated_storage):
    from training.services import run_dir_for

    project = tenants["project_a"]
    running = job(project, kind="training.run", status="running")
    failed = job(project, kind="training.run", status="failed")  # a retry resumes from its mirror
    succeeded = job(project, kind="training.run", status="succeeded")

    def mirrored(of) -> str:  # training.checkpoint_mirror's key of a run's checkpoint
        return f"runs/{run_dir_for(of).name}/checkpoints/epoch-0003-step-000000120.pt"

    kept = {
        mirrored(running),
        f"models/project-{project.pk}/v3-job-{running.pk}/model.onnx",  # stored before its version commits
        f"custom-jobs/job-{running.pk}/artifacts/a.txt",
        mirrored(failed),
    }
    garbage = {
        mirrored(succeeded),
        f"models/project-{project.pk}/v4-job-{succeeded.pk}/model.onnx",  # its version was never recorded
        f"custom-jobs/job-{failed.pk}/artifacts/b.txt",  # not in its result
    }
    for key in kept | garbage:
        default_storage.save(key, ContentFile(b"x"))

    swept = _sweep(now=_later(24 * 30))
    assert set(swept.deleted_keys) == garbage
    assert _exists(kept) == kept


def test_keys_named_by_a_job_are_kept(tenants, isolated_storage):
    # a model upload's job names the blob it is about to read; a custom run's result its artifacts
    upload = default_storage.save("model-uploads/ab/abc.pt", ContentFile(b"weights"))
    artifact = default_storage.save("custom-jobs/job-999999/artifacts/report.txt", ContentFile(b"r"))
    orphan = default_storage.save("model-uploads/cd/cde.pt", ContentFile(b"weights"))
    job(tenants["project_a"], kind="training.upload", status="queued", params={"blob_key": upload})
    job(
        tenants["project_a"],
        kind="custom.run",
        status="succeeded",
        result={"artifacts": [{"path": "report.txt", "key": artifact}]},
    )
    assert _sweep(now=_later()).deleted_keys == [orphan]


def test_the_command_prints_counts_and_records_the_sweep(tenants, isolated_storage, capsys):
    from blobs.models import BlobSweep

    key = default_storage.save("imports/abc/digits.zip", ContentFile(b"0123456789"))
    call_command("blobs_gc", "--dry-run", "--grace-hours", "0")
    out = capsys.readouterr().out
    assert "would delete 1 (10 bytes)" in out
    assert default_storage.exists(key)
    call_command("blobs_gc", "--grace-hours", "0")
    assert "deleted 1 (10 bytes)" in capsys.readouterr().out
    assert not default_storage.exists(key)
    latest, first = BlobSweep.objects.all()[:2]
    assert (first.dry_run, first.deleted, first.freed_bytes) == (True, 1, 10)
    assert (latest.dry_run, latest.deleted, latest.freed_bytes, latest.grace_hours) == (False, 1, 10, 0)


def test_the_periodic_sweep_is_scheduled_on_the_housekeeping_queue(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["blobs-gc"]
    assert entry["task"] == "blobs.collect_garbage"
    assert entry["options"]["queue"] == "housekeeping"
    from blobs import tasks

    assert tasks.collect_garbage.name == "blobs.collect_garbage"


@pytest.fixture
def s3_storage(settings, monkeypatch, tmp_path):
    from config.env import storage_from_url

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    bucket = f"sampan-{uuid.uuid4().hex[:8]}"
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test-key",
        aws_secret_access_key="test-secret",
    ).create_bucket(Bucket=bucket)
    monkeypatch.setenv(
        "SAMPAN_STORAGE_URL",
        f"s3://{bucket}/sampan?endpoint_url={endpoint}&region=us-east-1&addressing_style=path",
    )
    monkeypatch.setenv("SAMPAN_STORAGE_ACCESS_KEY", "test-key")
    monkeypatch.setenv("SAMPAN_STORAGE_SECRET_KEY", "test-secret")
    settings.STORAGES = {
        **settings.STORAGES,
        "default": storage_from_url("SAMPAN_STORAGE_URL", tmp_path / "none"),
    }
    assert settings.STORAGES["default"]["BACKEND"] == "storages.backends.s3.S3Storage"
    yield
    server.stop()


def test_the_sweep_works_on_object_storage(tenants, s3_storage):
    from datasets.services.datasets import dataset_delete

    alice, project = tenants["alice"], tenants["project_a"]
    kept = dataset_with_samples(user=alice, project=project, name="Kept", classes=range(0, 2))
    gone = dataset_with_samples(user=alice, project=project, name="Gone", classes=range(5, 7))
    kept_keys, gone_keys = _sample_keys(kept), _sample_keys(gone)
    dataset_delete(dataset=gone)

    assert _sweep().deleted == 0  # within the grace period
    swept = _sweep(now=_later())
    assert set(swept.deleted_keys) == gone_keys
    assert swept.scanned == len(kept_keys | gone_keys)
    assert _exists(gone_keys) == set() and _exists(kept_keys) == kept_keys


def _age(root, key: str, hours: float) -> None:
    import os

    then = time.time() - hours * 3600
    os.utime(root / key, (then, then))


def test_an_old_unreferenced_blob_imported_again_is_kept(tenants, isolated_storage):
    # a deleted dataset's image, unreferenced for two days, is imported into a new dataset: the
    # import finds it stored (content-addressed) and does not rewrite it
    from datasets.services.datasets import dataset_delete

    alice, project = tenants["alice"], tenants["project_a"]
    first = dataset_with_samples(user=alice, project=project, name="First")
    keys = _sample_keys(first)
    dataset_delete(dataset=first)
    for key in keys:
        _age(isolated_storage, key, 48)
    again = dataset_with_samples(user=alice, project=project, name="Again")
    assert _sample_keys(again) == keys
    # touched when reused: a sweep between the import's check and its commit keeps them
    assert all((isolated_storage / key).stat().st_mtime > time.time() - 3600 for key in keys)
    assert _sweep().deleted == 0
    assert _exists(keys) == keys


def test_a_blob_reused_while_the_sweep_runs_is_kept(tenants, isolated_storage, monkeypatch):
    # the sweep lists an old unreferenced blob; before it reads the references, an import reuses
    # the blob (blob_reuse touches it) and has not committed its sample yet
    from blobs import services

    key = default_storage.save("samples/ab/abcdef.png", ContentFile(b"png"))
    orphan = default_storage.save("samples/cd/cdef01.png", ContentFile(b"png"))
    _age(isolated_storage, key, 48)
    _age(isolated_storage, orphan, 48)
    read_references = services.live_references

    def import_meanwhile():
        assert services.blob_reuse(key)
        return read_references()

    monkeypatch.setattr(services, "live_references", import_meanwhile)
    swept = _sweep()
    assert swept.deleted_keys == [orphan]
    assert default_storage.exists(key)


def test_reusing_a_blob_on_object_storage_keeps_its_bytes(s3_storage):
    from blobs.services import blob_reuse

    assert not blob_reuse("samples/ab/missing.png")
    key = default_storage.save("samples/ab/present.png", ContentFile(b"png bytes"))
    assert blob_reuse(key)
    with default_storage.open(key, "rb") as fh:
        assert fh.read() == b"png bytes"
