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
