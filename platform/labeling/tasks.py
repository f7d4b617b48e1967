"""Thin Celery tasks of labeling: the runner claims the job row, a service does the work."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import run_job


def _smart_round(job, report) -> dict:
    from labeling.services.smart import smart_round_run

    return smart_round_run(round_id=int(job.params["smart_round"]), job=job, report=report)


@shared_task(name="labeling.smart_round")
def smart_round(job_id: int) -> None:
    run_job(job_id, _smart_round)
