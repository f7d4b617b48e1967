"""The AutoML tasks, thin per DESIGN §2 and STYLE 4: take the job's id, let the runner claim it,
call one service. The services train through the same path as a training job, record what the
trial reports in Optuna's storage and the study's rows, and schedule the next trial."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import run_job


@shared_task(name="automl.trial")
def automl_trial(job_id: int) -> None:
    from automl.services import trial_run

    run_job(job_id, lambda job, report: trial_run(job=job, report=report))


@shared_task(name="automl.report_run")
def automl_report_run(job_id: int) -> None:
    from automl.services import report_run_run

    run_job(job_id, lambda job, report: report_run_run(job=job, report=report))


@shared_task(name="automl.reconcile")
def automl_reconcile() -> dict:
    from automl.services import studies_reconcile

    return studies_reconcile()
