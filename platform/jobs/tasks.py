"""Thin Celery tasks: take an id, let the runner claim the row, call the compute plane."""

from __future__ import annotations

from celery import shared_task

from jobs import housekeeping, services
from jobs.runner import run_job


def _system_check(job, report) -> dict:
    import django

    from workers.system_check import run_system_check

    result = run_system_check(seconds=float(job.params.get("seconds", 2.0)), report=report)
    result["versions"]["django"] = django.get_version()
    return result


@shared_task(name="jobs.system_check")
def system_check(job_id: int) -> None:
    run_job(job_id, _system_check)


@shared_task(name="jobs.reap_stale")
def reap_stale() -> dict:
    return services.jobs_reap_stale()


@shared_task(name="jobs.tidy")
def tidy() -> dict:
    """Stale upload temp files and the checkpoints of runs whose model version is stored."""
    return {"uploads": housekeeping.uploads_clean_stale(), "runs": housekeeping.runs_prune()}
