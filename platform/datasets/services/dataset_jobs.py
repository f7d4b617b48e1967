"""Dataset versions and exports of large datasets as jobs: above a threshold of samples
(``SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES``, ``SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES``) a version
is made by a ``datasets.version`` job and an export written to blob storage by a ``datasets.export``
job, both reporting progress per batch; below it the request does the work, as it always has."""

from __future__ import annotations

import contextlib
import secrets
import tempfile
from datetime import datetime, timedelta
from typing import IO, Any

from config.exceptions import Conflict, NotFound
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.utils import timezone
from jobs.models import Job, JobStatus
from jobs.services import job_create

from datasets.models import FORECASTING_TASKS, Dataset, DatasetVersion
from datasets.services.export import (
    dataset_export,
    dataset_export_check,
    dataset_export_write,
    export_sample_count,
)
from datasets.services.imports import Report
from datasets.services.versions import dataset_version_create, version_candidate_count, version_ratios

EXPORTS_PREFIX = "exports"  # blob storage: exports/<job id>/<download name>


def dataset_version_request(*, dataset: Dataset, user, **fields: Any) -> DatasetVersion | Job:
    """Make a version now (at most ``SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES`` samples, and every
    forecasting version) or queue a ``datasets.version`` job that makes it. Bad input is refused
    here either way, before anything is queued; the seed is drawn here so a redelivered job splits
    the same way.

    e.g. ``dataset_version_request(dataset=d, user=u, seed=7)`` -> ``DatasetVersion`` (small) or ``Job``
    """
    if dataset.task_type in FORECASTING_TASKS:
        return dataset_version_create(dataset=dataset, user=user, **fields)
    version_ratios(
        train_ratio=fields.get("train_ratio", 0.8),
        val_ratio=fields.get("val_ratio", 0.1),
        test_ratio=fields.get("test_ratio", 0.1),
    )
    count = version_candidate_count(dataset=dataset, reviewed_only=bool(fields.get("reviewed_only")))
    if count <= settings.SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES:  # none at all: the usual 400, here
        return dataset_version_create(dataset=dataset, user=user, **fields)
    params = {
        "dataset": dataset.pk,
        **{k: v for k, v in fields.items() if k != "horizon" and v is not None},
        "seed": secrets.randbelow(2**31) if fields.get("seed") is None else int(fields["seed"]),
        "samples": count,
    }
    return job_create(
        workspace=dataset.workspace,
        project=dataset.project,
        kind="datasets.version",
        params=params,
        user=user,
    )


def _dataset_of(job: Job) -> Dataset:
    from jobs.runner import JobInputRejected

    dataset = Dataset.objects.filter(pk=job.params["dataset"], workspace_id=job.workspace_id).first()
    if dataset is None:
        raise JobInputRejected(f"Dataset {job.params['dataset']} was deleted before the job ran.")
    return dataset


def dataset_version_job_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The ``datasets.version`` job's body. Redelivered after its version was made, it answers that
    version; after a lost attempt left a half-filled one, it removes it and starts again."""
    made = DatasetVersion.all_objects.filter(job=job).first()
    if made is not None and made.ready:
        return {"dataset_version": made.pk, "number": made.number, "sample_count": made.sample_count}
    if made is not None:
        DatasetVersion.all_objects.filter(pk=made.pk).delete()
    dataset = _dataset_of(job)
    fields = {
        k: job.params[k]
        for k in ("train_ratio", "val_ratio", "test_ratio", "seed", "note", "reviewed_only")
        if k in job.params
    }
    version = dataset_version_create(dataset=dataset, user=job.created_by, job=job, report=report, **fields)
    n = version.sample_count
    report(f"{version.name} ready", fraction=1.0, milestone=True, processed=n, total=n)
    return {"dataset_version": version.pk, "number": version.number, "sample_count": version.sample_count}


def dataset_export_request(
    *, dataset: Dataset, version: DatasetVersion | None, format: str | None
) -> tuple[IO[bytes], str]:
    """The export zip made inside the request, or a 409 ``export_needs_job`` when it holds more than
    ``SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES`` samples (``dataset_export_job_create`` makes it)."""
    dataset_export_check(dataset=dataset, format=format)
    count = export_sample_count(dataset=dataset, version=version)
    limit = settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES
    if count > limit:
        raise Conflict(
            f"This export holds {count} samples, more than the {limit} exported inside a request; start it "
            f"as a job (POST /api/v1/datasets/{dataset.pk}/exports/) and download it when the job succeeds.",
            code="export_needs_job",
            samples=count,
            limit=limit,
        )
    return dataset_export(dataset=dataset, version=version, format=format)


def dataset_export_job_create(
    *, dataset: Dataset, version: DatasetVersion | None, format: str | None, user
) -> Job:
    """Queue a ``datasets.export`` job (any size) that writes the zip to blob storage; download it
    with ``dataset_export_download`` once the job succeeded.

    e.g. ``dataset_export_job_create(dataset=d, version=v, format=None, user=u)``
    """
    format = dataset_export_check(dataset=dataset, format=format)
    params = {
        "dataset": dataset.pk,
        "dataset_version": version.pk if version is not None else None,
        "format": format or "",
        "samples": export_sample_count(dataset=dataset, version=version),
    }
    return job_create(
        workspace=dataset.workspace, project=dataset.project, kind="datasets.export", params=params, user=user
    )


def dataset_export_job_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The ``datasets.export`` job's body: the zip is written to a local temporary file, then stored
    at ``exports/<job id>/<name>`` (a redelivery overwrites what a lost attempt left there)."""
    from jobs.runner import JobInputRejected

    dataset = _dataset_of(job)
    version = None
    if job.params.get("dataset_version"):
        version = DatasetVersion.objects.filter(dataset=dataset, pk=job.params["dataset_version"]).first()
        if version is None:
            raise JobInputRejected(f"Version {job.params['dataset_version']} was deleted before the job ran.")
    with tempfile.TemporaryFile() as out:
        name = dataset_export_write(
            dataset=dataset, version=version, format=job.params.get("format") or None, out=out, report=report
        )
        size = out.tell()
        out.seek(0)
        key = f"{EXPORTS_PREFIX}/{job.pk}/{name}"
        default_storage.delete(key)
        stored = default_storage.save(key, File(out, name=name))
    report("archive stored", fraction=1.0, milestone=True, size_bytes=size)
    return {"dataset": dataset.pk, "blob_key": stored, "filename": name, "size_bytes": size}


def dataset_export_download(*, dataset: Dataset, job: Job) -> tuple[IO[bytes], str]:
    """The stored zip of a succeeded ``datasets.export`` job of ``dataset`` (409 ``export_not_ready``
    before it succeeded, 404 ``export_expired`` once ``dataset_exports_expire`` deleted it)."""
    if job.status != JobStatus.SUCCEEDED or not job.result:
        raise Conflict(
            f"Export job {job.pk} is {job.status}; download it once it has succeeded.",
            code="export_not_ready",
            job=job.pk,
        )
    if job.result.get("expired_at"):
        raise NotFound(
            f"The zip of export job {job.pk} was deleted "
            f"{settings.SAMPAN_DATASET_EXPORT_RETENTION_HOURS} hours after the export "
            "(SAMPAN_DATASET_EXPORT_RETENTION_HOURS); start the export again.",
            code="export_expired",
            expired_at=job.result["expired_at"],
        )
    try:
        return default_storage.open(job.result["blob_key"], "rb"), str(job.result["filename"])
    except FileNotFoundError:
        raise NotFound(
            f"The zip of export job {job.pk} is no longer stored; start the export again.", code="export_gone"
        ) from None


def dataset_exports_expire(*, now: datetime | None = None) -> int:
    """Delete the zips of export jobs that finished more than ``SAMPAN_DATASET_EXPORT_RETENTION_HOURS``
    ago; each job's result keeps what it was (filename, size) with ``expired_at`` and no ``blob_key``,
    so its download says it expired and the blob collector no longer counts it as referenced.
    Returns how many expired. The hourly ``datasets.exports_expire`` task (housekeeping)."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.SAMPAN_DATASET_EXPORT_RETENTION_HOURS)
    expired = 0
    old = Job.objects.filter(
        kind="datasets.export", status=JobStatus.SUCCEEDED, finished_at__lt=cutoff, result__has_key="blob_key"
    ).exclude(result__blob_key=None)
    for job_id, result in old.values_list("pk", "result").iterator():
        if not isinstance(result, dict):  # (the filter above means a dict with a blob_key)
            continue
        with contextlib.suppress(FileNotFoundError):  # gone already: the result says so all the same
            default_storage.delete(result["blob_key"])
        Job.objects.filter(pk=job_id).update(
            result={**result, "blob_key": None, "expired_at": now.isoformat()}
        )
        expired += 1
    return expired
