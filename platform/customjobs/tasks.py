"""The custom training task, thin per DESIGN §2 and STYLE 4: the runner claims the job, the service
(which imports the compute plane inside its body) runs the code."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import run_job


@shared_task(name="customjobs.run")
def customjobs_run(job_id: int) -> None:
    from customjobs.running import custom_job_run

    run_job(job_id, lambda job, report: custom_job_run(job=job, report=report))
