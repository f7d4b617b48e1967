"""What image and table imports share: the one path that commits an import's samples, and the one
that hands a big upload to a ``datasets.import`` job."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import uuid4

from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from datasets.exceptions import ImportRejected
from datasets.label_order import import_order
from datasets.models import (
    ActivityAction,
    ActivitySource,
    Dataset,
    ImportBatch,
    ImportStatus,
    Label,
    Sample,
    SampleActivity,
)
from datasets.services.activity import label_value, target_value
from datasets.services.labels import next_colors, next_position

Report = Callable[..., None]
INSERT_BATCH = 2000
MAX_PROBLEMS_LISTED = 1000  # per import's answer and detail; the counts (failed, duplicates) are whole


@dataclass(slots=True)
class Staged:
    """A sample ready to insert: checked, unique within its import, its blobs (if any) stored.
    ``fields`` are the rest of its Sample columns (blob keys and sizes, or text, values, target)."""

    name: str
    label: str | None
    sha256: str
    fields: dict[str, Any]


def chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def problem_details(problems: list[dict], *, files: int, failed: int) -> dict:
    """A refused import's details: the first MAX_PROBLEMS_LISTED problems and the whole counts."""
    return {
        "problems": problems[:MAX_PROBLEMS_LISTED],
        "problems_total": len(problems),
        "files": files,
        "failed": failed,
        "duplicates": len(problems) - failed,
    }


def _log_imported_labels(*, batch: ImportBatch, now: datetime, targets: bool) -> None:
    """One activity entry (source ``import``, actor = who imported, before: nothing) per sample of
    ``batch`` that came with a label or a regression target, so the log says who set each label and
    when from the start. One read and one bulk insert per batch (the same on SQLite and PostgreSQL)."""
    common = {
        "actor_id": batch.created_by_id,
        "source": ActivitySource.IMPORT,
        "created_at": now,
        "comment": "",
    }
    labeled = Sample.objects.filter(import_batch=batch, label__isnull=False).order_by("pk")
    rows = [
        SampleActivity(
            dataset_id=dataset_id,
            sample_id=pk,
            action=ActivityAction.LABEL,
            before=label_value(None, None),
            after=label_value(label_id, name),
            **common,
        )
        for pk, dataset_id, label_id, name in labeled.values_list(
            "pk", "dataset_id", "label_id", "label__name"
        )
    ]
    if targets:
        with_target = Sample.objects.filter(import_batch=batch, target__isnull=False).order_by("pk")
        rows += [
            SampleActivity(
                dataset_id=dataset_id,
                sample_id=pk,
                action=ActivityAction.TARGET,
                before=target_value(None),
                after=target_value(target),
                **common,
            )
            for pk, dataset_id, target in with_target.values_list("pk", "dataset_id", "target")
        ]
    SampleActivity.objects.bulk_create(rows, batch_size=INSERT_BATCH)


def commit_samples(
    *,
    dataset: Dataset,
    batch: ImportBatch,
    staged: list[Staged],
    problems: list[dict],
    files: int,
    ignored: int = 0,
    what: str = "file",
    field: str = "non_field_errors",
    shown: int = 255,
    finish: Callable[[Dataset], None] | None = None,
) -> ImportBatch:
    """Insert an import's samples in one transaction, one import of a dataset at a time: those
    already in the dataset become ``duplicate`` problems, missing labels are created, and the batch
    records the outcome. Nothing is written when no ``what`` (file or row) could be imported.
    ``finish(locked_dataset)`` runs last, in the same transaction; ``shown`` caps the names quoted."""
    with transaction.atomic():
        locked = Dataset.objects.select_for_update().get(pk=dataset.pk)
        existing: dict[str, str] = {}
        for chunk in chunks([s.sha256 for s in staged], 5000):
            existing.update(
                Sample.objects.filter(dataset=dataset, sha256__in=chunk).values_list(
                    "sha256", "original_name"
                )
            )
        fresh = []
        for sample in staged:
            if sample.sha256 in existing:
                problems.append(
                    {
                        "file": sample.name[:shown],
                        "code": "duplicate",
                        "message": f"already in the dataset as {existing[sample.sha256][:shown]!r}",
                    }
                )
            else:
                fresh.append(sample)
        failed = sum(1 for p in problems if p["code"] != "duplicate")
        if not fresh and failed:
            listed = "; ".join(f"{p['file']}: {p['message']}" for p in problems[:5])
            raise ImportRejected(
                f"No {what} could be imported ({failed:,} rejected): {listed}",
                code="nothing_imported",
                field=field,
                **problem_details(problems, files=files, failed=failed),
            )
        names = {s.label for s in fresh if s.label}
        labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        # New labels follow the existing ones, in the order the import gives them (natural order
        # when their names have numbers); the dataset's row lock keeps positions unique.
        created = import_order(s.label for s in fresh if s.label and s.label not in labels)
        if created:
            first = next_position(dataset=dataset)
            colors = next_colors(dataset=dataset, count=len(created))
            Label.objects.bulk_create(
                [
                    Label(dataset=dataset, name=n, color=colors[i], position=first + i)
                    for i, n in enumerate(created)
                ],
                ignore_conflicts=True,
            )
            labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        batch.files = files
        batch.ignored = ignored
        batch.imported = len(fresh)
        batch.duplicates = len(problems) - failed
        batch.failed = failed
        batch.labels_created = created
        batch.problems = problems[:MAX_PROBLEMS_LISTED]
        batch.status = ImportStatus.SUCCEEDED
        batch.finished_at = timezone.now()
        batch.save()
        now = timezone.now()
        for chunk in chunks(fresh, INSERT_BATCH):
            Sample.objects.bulk_create(
                [
                    Sample(
                        dataset=dataset,
                        label=labels.get(s.label) if s.label else None,
                        sha256=s.sha256,
                        original_name=s.name,
                        import_batch=batch,
                        created_at=now,
                        **s.fields,
                    )
                    for s in chunk
                ]
            )
        targets = any(s.fields.get("target") is not None for s in fresh)
        _log_imported_labels(batch=batch, now=now, targets=targets)
        if finish is not None:
            finish(locked)
    return batch


def import_later(*, dataset: Dataset, batch: ImportBatch, upload, user, name: str) -> ImportBatch:
    """Store the upload and queue the batch as a ``datasets.import`` job (its body:
    ``datasets.services.import_job.import_batch_run``); nothing stays stored if queueing fails."""
    from jobs.services import job_create

    upload.seek(0)
    batch.upload_key = default_storage.save(f"imports/{uuid4().hex}/{name}", upload)
    try:
        with transaction.atomic():
            batch.save()
            batch.job = job_create(
                workspace=dataset.workspace,
                project=dataset.project,
                kind="datasets.import",
                params={"import_batch": batch.pk},
                user=user,
            )
            batch.save(update_fields=["job"])
    except Exception:
        default_storage.delete(batch.upload_key)
        raise
    return batch
