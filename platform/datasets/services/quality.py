"""Data quality reports: a ``datasets.quality_report`` job reads a dataset's (or a version's) pool and
the compute plane (``workers.data_quality.run``) finds duplicates, likely mislabels, class imbalance
and problem images, texts or columns; the report row keeps its ``QualityReport`` contract."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from config.exceptions import Conflict, DomainError, InvalidInput
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from jobs.models import JobStatus
from jobs.services import job_create

from datasets.models import Dataset, DatasetVersion, QualityReport, Sample
from datasets.services.pools import label_pool
from workers.contracts.quality import QualityParams
from workers.progress import JobCancelled

ACTIVE = (QualityReport.Status.QUEUED, QualityReport.Status.RUNNING)
ENDED_JOBS = (JobStatus.FAILED, JobStatus.CANCELLED)


def quality_report_create(
    *, dataset: Dataset, version: DatasetVersion | None = None, params: QualityParams | None = None, user=None
) -> QualityReport:
    """Queue a quality report of ``dataset`` (``version`` None: the live dataset, labeled or not) or of
    one of its versions (which also finds duplicates across its splits). One report of the same data
    runs at a time (409 ``quality_report_running``).

    e.g. ``quality_report_create(dataset=d, version=None, params={"min_per_class": 20}, user=u)``
    """
    from datasets.services.time_series import refuse_forecasting

    refuse_forecasting(dataset, "a data quality report")
    if version is not None and version.dataset_id != dataset.pk:
        raise InvalidInput(
            f"Version {version.pk} is not a version of dataset {dataset.pk}.", code="invalid", field="version"
        )
    if version is None and not Sample.objects.filter(dataset=dataset).exists():
        raise InvalidInput(
            f"The dataset {dataset.name!r} has no samples yet; import some before checking its quality.",
            code="dataset_has_no_samples",
        )
    with transaction.atomic():
        # one report per dataset and version at a time: lock the dataset row so two requests queue one
        Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
        running = (
            QualityReport.objects.filter(dataset=dataset, version=version, status__in=ACTIVE)
            .exclude(job__status__in=ENDED_JOBS)  # the reaper failed it before the report's own code ran
            .first()
        )
        if running is not None:
            of = f"version V{version.number}" if version is not None else "the dataset"
            raise Conflict(
                f"A quality report of {of} is already {running.status} (report {running.pk}); wait for it.",
                code="quality_report_running",
                report=running.pk,
            )
        row = QualityReport.objects.create(
            dataset=dataset, version=version, params=dict(params or {}), created_by=_user_or_none(user)
        )
        row.job = job_create(
            workspace=dataset.workspace,
            project=dataset.project,
            kind="datasets.quality_report",
            params={"quality_report": row.pk},
            user=user,
        )
        row.save(update_fields=["job"])
    return row


def _user_or_none(user):
    return user if user is not None and user.is_authenticated else None


def quality_report_run(*, report_id: int, job, report) -> dict[str, Any]:
    """The ``datasets.quality_report`` job's body: the pool, the compute plane's checks, the stored
    report. A failure (or a cancel) is recorded on the report row with its message before it is raised
    again for the job runner."""
    from jobs.runner import JobInputRejected, JobPreempted, LeaseLost, describe_failure

    row = (
        QualityReport.objects.select_related("dataset", "version").filter(pk=report_id, job_id=job.pk).first()
    )
    if row is None or row.dataset.workspace_id != job.workspace_id:
        raise ValueError(f"quality report {report_id} does not belong to job {job.pk}")
    if row.status == QualityReport.Status.SUCCEEDED:
        return {"quality_report": row.pk, "findings": len((row.report or {}).get("findings", []))}
    QualityReport.objects.filter(pk=row.pk).update(status=QualityReport.Status.RUNNING, error="")
    try:
        report("reading the samples", fraction=0.0, milestone=True)
        from workers.data_quality import run

        pool = label_pool(
            dataset=row.dataset, version=row.version, cache_dir=Path(settings.SAMPAN_HOME) / "cache"
        )
        params: QualityParams = dict(row.params or {})  # type: ignore[assignment]  # validated on create
        with tempfile.TemporaryDirectory(prefix="sampan-quality-") as work_dir:
            model = None
            if pool["task_type"] == "image_classification":
                from training.model_files import dataset_model_features

                model = dataset_model_features(dataset=row.dataset, work_dir=Path(work_dir))
            found = run(pool, params, work_dir=Path(work_dir), report=report, model=model)
    except LeaseLost:
        raise  # another attempt owns the report now
    except JobPreempted:
        # the worker is shutting down: the job goes back to the queue and another worker redoes it
        QualityReport.objects.filter(pk=row.pk).update(status=QualityReport.Status.QUEUED)
        raise
    except BaseException as exc:
        if isinstance(exc, JobCancelled):
            message = "Cancelled."
        elif isinstance(exc, (DomainError, JobInputRejected)):
            message = str(exc)  # a refusal that names the problem
        else:
            message = describe_failure(exc)
        QualityReport.objects.filter(pk=row.pk).update(
            status=QualityReport.Status.FAILED, error=message[:4000], finished_at=timezone.now()
        )
        raise
    QualityReport.objects.filter(pk=row.pk).update(
        status=QualityReport.Status.SUCCEEDED, report=found, error="", finished_at=timezone.now()
    )
    findings = found.get("findings", [])
    report("report ready", fraction=1.0, milestone=True)
    return {"quality_report": row.pk, "findings": len(findings)}
