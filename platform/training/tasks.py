"""The training tasks: thin, per DESIGN §2. The compute plane does the work; services record it."""

from __future__ import annotations

import tempfile
from pathlib import Path

from celery import shared_task
from jobs.runner import run_job


def _backbone_file(job, run_dir: Path):
    """The run's backbone (row, local file), or (None, None) for a run from scratch."""
    from training import services
    from training.models import Backbone

    backbone_id = job.params.get("backbone")
    if backbone_id is None:
        return None, None
    backbone = Backbone.objects.filter(pk=backbone_id).first()
    if backbone is None:
        raise services.BackboneUnavailable(
            f"Backbone #{backbone_id} was deleted before the run could read it."
        )
    return backbone, services.backbone_fetch(backbone=backbone, dest=run_dir / "inputs" / "backbone.pt")


def _train(job, report) -> dict:
    from datasets.models import DatasetVersion
    from datasets.services import dataset_version_manifest

    from training import services
    from workers.templates import registry

    template = registry.get(job.params["template"])
    version = DatasetVersion.objects.select_related("dataset").get(pk=job.params["dataset_version"])
    manifest = dataset_version_manifest(version=version)
    run_dir = services.run_dir_for(job)
    backbone, backbone_path = _backbone_file(job, run_dir)
    extra = {} if backbone_path is None else {"backbone": backbone_path}
    try:
        result = template.load("train")(job.params["params"], manifest, run_dir, report, **extra)
    except ValueError as exc:
        if backbone_path is None or str(backbone_path) not in str(exc):
            raise
        # e.g. keys that do not fit the model: name the backbone, not the worker's file path
        raise type(exc)(str(exc).replace(str(backbone_path), f"backbone {backbone.name!r}")) from None
    evaluation = template.load("evaluate")(
        result["onnx"], manifest, preprocessing=result["preprocessing"], report=report
    )
    model_version = services.model_version_record(
        job=job,
        dataset_version=version,
        template=template.name,
        params=result["params"],
        result=result,
        evaluation=evaluation,
        checkpoint=Path(result["model"]),
        onnx=Path(result["onnx"]),
        backbone=backbone,
    )
    return {
        "model_version": model_version.pk,
        "name": model_version.name,
        "metrics": model_version.metrics,
        "resumed_from": result.get("resumed_from"),
        "run_dir": str(run_dir),
    }


@shared_task(name="training.run")
def training_run(job_id: int) -> None:
    run_job(job_id, _train)


def _check_backbone(job, report) -> dict:
    from training import services
    from training.models import Backbone
    from workers.image_classification.backbones import inspect_backbone
    from workers.image_classification.models import BackboneError

    backbone = Backbone.objects.filter(pk=job.params["backbone"]).first()
    if backbone is None:
        return {"backbone": job.params["backbone"], "deleted": True}
    report(f"reading {backbone.filename or backbone.name} with weights_only=True", fraction=0.0)
    with tempfile.TemporaryDirectory(prefix="sampan-backbone-") as tmp:
        path = Path(tmp) / "backbone.pt"
        try:
            summary = inspect_backbone(services.backbone_fetch(backbone=backbone, dest=path))
        except services.BackboneUnavailable as exc:
            backbone = services.backbone_record_check(backbone=backbone, error=str(exc))
        except BackboneError as exc:  # refused or unreadable: the message names the file, not our temp path
            error = str(exc).replace(str(path), backbone.filename or backbone.name)
            backbone = services.backbone_record_check(backbone=backbone, error=error)
        except Exception as exc:  # never leave a backbone pending: record the failure, then fail the job
            services.backbone_record_check(
                backbone=backbone, error=f"The check failed: {type(exc).__name__}: {exc}"
            )
            raise
        else:
            backbone = services.backbone_record_check(backbone=backbone, summary=summary)
    return {
        "backbone": backbone.pk,
        "status": backbone.status,
        "summary": backbone.summary,
        "error": backbone.error,
    }


@shared_task(name="training.check_backbone")
def training_check_backbone(job_id: int) -> None:
    run_job(job_id, _check_backbone)


def _import_model(job, report) -> dict:
    from training.model_uploads import import_state_dict

    return import_state_dict(job, report)


@shared_task(name="training.import_model")
def training_import_model(job_id: int) -> None:
    run_job(job_id, _import_model)


def _evaluate_model(job, report) -> dict:
    from training.model_uploads import evaluate_uploaded

    return evaluate_uploaded(model_version_id=job.params["model_version"], report=report)


@shared_task(name="training.evaluate_model")
def training_evaluate_model(job_id: int) -> None:
    run_job(job_id, _evaluate_model)
