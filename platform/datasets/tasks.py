"""Thin Celery tasks of the data service: the runner claims the job row, a service does the work."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import run_job


def _import(job, report) -> dict:
    from datasets.services.import_job import import_batch_run

    return import_batch_run(batch_id=int(job.params["import_batch"]), job=job, report=report)


@shared_task(name="datasets.import")
def dataset_import(job_id: int) -> None:
    run_job(job_id, _import)


def _quality_report(job, report) -> dict:
    from datasets.services.quality import quality_report_run

    return quality_report_run(report_id=int(job.params["quality_report"]), job=job, report=report)


@shared_task(name="datasets.quality_report")
def dataset_quality_report(job_id: int) -> None:
    run_job(job_id, _quality_report)


def _version(job, report) -> dict:
    from datasets.services.dataset_jobs import dataset_version_job_run

    return dataset_version_job_run(job=job, report=report)


@shared_task(name="datasets.version")
def dataset_version(job_id: int) -> None:
    run_job(job_id, _version)


def _export(job, report) -> dict:
    from datasets.services.dataset_jobs import dataset_export_job_run

    return dataset_export_job_run(job=job, report=report)


@shared_task(name="datasets.export")
def dataset_export(job_id: int) -> None:
    run_job(job_id, _export)


@shared_task(name="datasets.exports_expire")
def dataset_exports_expire() -> int:
    """Hourly on the housekeeping queue: delete export zips past SAMPAN_DATASET_EXPORT_RETENTION_HOURS."""
    from datasets.services.dataset_jobs import dataset_exports_expire as expire

    return expire()
