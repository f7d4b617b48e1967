"""The training tasks, thin per DESIGN §2 and STYLE 4: take the job's id, let the runner claim it,
call one service (which imports the compute plane inside its body)."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import run_job


@shared_task(name="training.run")
def training_run(job_id: int) -> None:
    from training.services import training_job_run

    run_job(job_id, lambda job, report: training_job_run(job=job, report=report))


@shared_task(name="training.check_backbone")
def training_check_backbone(job_id: int) -> None:
    from training.services import backbone_check

    run_job(job_id, lambda job, report: backbone_check(job=job, report=report))


@shared_task(name="training.import_model")
def training_import_model(job_id: int) -> None:
    from training.model_uploads import import_state_dict

    run_job(job_id, lambda job, report: import_state_dict(job=job, report=report))


@shared_task(name="training.evaluate_model")
def training_evaluate_model(job_id: int) -> None:
    from training.model_uploads import evaluate_uploaded

    run_job(
        job_id,
        lambda job, report: evaluate_uploaded(model_version_id=job.params["model_version"], report=report),
    )


@shared_task(name="training.compress")
def training_compress(job_id: int) -> None:
    from training.compression import compression_run

    run_job(job_id, lambda job, report: compression_run(job=job, report=report))
