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
    run_dir = settings.SAMPAN_HOME / "runs" / f"job-{job.pk}"  # kept across attempts: resume from checkpoints
    result = template.load("train")(job.params["params"], manifest, run_dir, report)
    evaluation = template.load("evaluate")(result["onnx"], manifest, preprocessing=result["preprocessing"],
                                           report=report)
    model_version = services.model_version_record(
        job=job, dataset_version=version, template=template.name, params=result["params"], result=result,
        evaluation=evaluation, checkpoint=Path(result["model"]), onnx=Path(result["onnx"]),
    )
    return {"model_version": model_version.pk, "name": model_version.name, "metrics": model_version.metrics}


@shared_task(name="training.run")
def training_run(job_id: int) -> None:
    run_job(job_id, _train)
