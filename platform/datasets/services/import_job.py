"""The ``datasets.import`` job's body: import the stored upload of a queued batch (an archive or a
table file) and record the outcome on the batch, a refusal with its message and details."""

from __future__ import annotations

import tempfile
from typing import BinaryIO

from config.exceptions import DomainError
from django.core.files.storage import default_storage
from django.utils import timezone

from datasets.models import ImportBatch, ImportSource, ImportStatus
from datasets.services import imports
from datasets.services.image_imports import import_stored_archive
from datasets.services.imports import Report
from datasets.services.table_imports import import_stored_table
from workers.progress import JobCancelled


def _open_stored(key: str) -> tuple[BinaryIO, int]:
    """A seekable local file for a stored upload (downloaded first from non-local storage)."""
    size = default_storage.size(key)
    try:
        return open(default_storage.path(key), "rb"), size  # noqa: SIM115 - closed by the caller
    except NotImplementedError:
        local = tempfile.TemporaryFile()  # noqa: SIM115
        with default_storage.open(key, "rb") as remote:
            while chunk := remote.read(1024 * 1024):
                local.write(chunk)
        local.seek(0)
        return local, size


def _record_failure(batch: ImportBatch, exc: Exception) -> None:
    """A refusal keeps its message, code, problems and counts; any other failure its type."""
    refused = exc if isinstance(exc, DomainError) else None
    counts = {
        key: refused.details[key]
        for key in ("files", "failed", "duplicates")
        if refused is not None and isinstance(refused.details.get(key), int)
    }
    ImportBatch.objects.filter(pk=batch.pk).update(
        status=ImportStatus.FAILED,
        finished_at=timezone.now(),
        error=(refused.message if refused is not None else f"{type(exc).__name__}: {exc}")[:4000],
        error_code=(
            refused.code if refused is not None else "cancelled" if isinstance(exc, JobCancelled) else "error"
        )[:64],
        problems=refused.details.get("problems", [])[: imports.MAX_PROBLEMS_LISTED] if refused else [],
        **counts,
    )


def import_batch_run(*, batch_id: int, job, report: Report) -> dict:
    """Import the stored upload of a queued batch.

    Safe to run again after a lost worker: blobs are content-addressed and the rows are inserted
    in one transaction together with the batch's outcome, so a finished batch is never redone. A
    refused input fails the job with the domain error's message (no traceback: the user's file,
    not a fault).
    """
    from jobs.runner import LeaseLost

    batch = ImportBatch.objects.select_related("dataset").filter(pk=batch_id, job_id=job.pk).first()
    if batch is None or batch.dataset.workspace_id != job.workspace_id:
        raise ValueError(f"import batch {batch_id} does not belong to job {job.pk}")
    if batch.status == ImportStatus.SUCCEEDED:
        return {"import_batch": batch.pk, "imported": batch.imported}
    upload_key = batch.upload_key
    ImportBatch.objects.filter(pk=batch.pk).update(status=ImportStatus.RUNNING)
    report("checking the archive", fraction=0.0, milestone=True)
    body = import_stored_table if batch.source == ImportSource.TABLE else import_stored_archive
    try:
        fileobj, size = _open_stored(upload_key)
        with fileobj:
            batch = body(batch=batch, fileobj=fileobj, size=size, report=report)
    except LeaseLost:
        raise  # another attempt owns the batch now
    except Exception as exc:
        _record_failure(batch, exc)
        default_storage.delete(upload_key)
        raise
    default_storage.delete(upload_key)
    report("imported", fraction=1.0, milestone=True, imported=batch.imported, problems=len(batch.problems))
    return {
        "import_batch": batch.pk,
        "imported": batch.imported,
        "duplicates": batch.duplicates,
        "failed": batch.failed,
        "labels_created": batch.labels_created,
    }
