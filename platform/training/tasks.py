"""The training task: thin, per DESIGN §2. The compute plane does the work; services record it."""

from __future__ import annotations

from pathlib import Path

from celery import shared_task
from django.conf import settings
from jobs.runner import run_job


def _train(job, report) -> dict:
    from datasets.models import DatasetVersion
    from datasets.services import dataset_version_manifest

    from training import services
    from workers.templates import registry

    template = registry.get(job.params["template"])
    version = DatasetVersion.objects.select_related("dataset").get(pk=job.params["dataset_version"])
    manifest = dataset_version_manifest(version=version)
    # One directory per job, kept across its attempts so a retry resumes from the checkpoints;
    # the creation time keeps it unique even if the database is reset under the same SAMPAN_HOME.
    run_dir = settings.SAMPAN_HOME / "runs" / f"job-{job.pk}-{job.created_at:%Y%m%d%H%M%S%f}"
    result = template.load("train")(job.params["params"], manifest, run_dir, report)
    evaluation = template.load("evaluate")(result["onnx"], manifest, preprocessing=result["preprocessing"],
                                           report=report)
    model_version = services.model_version_record(
        job=job, dataset_version=version, template=template.name, params=result["params"], result=result,
        evaluation=evaluation, checkpoint=Path(result["model"]), onnx=Path(result["onnx"]),
    )
    return {"model_version": model_version.pk, "name": model_version.name, "metrics": model_version.metrics,
            "resumed_from": result.get("resumed_from"), "run_dir": str(run_dir)}


@shared_task(name="training.run")
def training_run(job_id: int) -> None:
    run_job(job_id, _train)
