"""The deploy tasks, thin per DESIGN §2 and STYLE 4: take the job's id, let the runner claim it,
call one service (workers.packaging builds the archive; the service records it)."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import run_job


@shared_task(name="deploy.build_package")
def build_package(job_id: int) -> None:
    from deploy.services import package_build

    run_job(job_id, lambda job, report: package_build(job=job, report=report))


@shared_task(name="deploy.batch_predict")
def batch_predict(job_id: int) -> None:
    from deploy.batch import batch_prediction_run

    run_job(job_id, lambda job, report: batch_prediction_run(job=job, report=report))


@shared_task(name="deploy.capture_cleanup")
def capture_cleanup() -> int:
    """Hourly (celery beat, housekeeping queue): captured requests past their retention."""
    from deploy.capture_services import capture_cleanup as cleanup

    return cleanup()
