"""Writes for training: starting a training job and recording the model version it produces."""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path
from typing import Any

from datasets.models import DatasetVersion
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max
from jobs.models import Job
from jobs.services import job_create
from rest_framework.exceptions import ValidationError

from training.models import ModelVersion
from workers.templates import TemplateParamError, registry


def code_version() -> str:
    """The Sampan version and, in a git checkout, the commit: part of every model's lineage."""
    try:
        version = metadata.version("sampan-platform")
    except metadata.PackageNotFoundError:
        version = "unknown"
    head = settings.REPO_DIR / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            ref = (settings.REPO_DIR / ".git" / ref[5:]).read_text().strip()
        return f"{version}+{ref[:12]}"
    except OSError:
        return version


def template_named(name: str):
    try:
        return registry.get(name)
    except KeyError as exc:
        raise ValidationError({"template": [str(exc)]}) from None


@transaction.atomic
def training_job_create(*, user, dataset_version: DatasetVersion, template: str | None = None,
                        preset: str | None = None, params: dict[str, Any] | None = None) -> Job:
    """Validate the run's parameters and data, then queue it (on `gpu` when a GPU worker is alive).

    e.g. ``training_job_create(user=u, dataset_version=v, preset="fast", params={"epochs": 3})``
    """
    from datasets.services import dataset_version_check_trainable

    chosen = template_named(template or dataset_version.dataset.task_type)
    if chosen.name != dataset_version.dataset.task_type:
        raise ValidationError({"template": [f"Template {chosen.name!r} cannot train a "
                                            f"{dataset_version.dataset.task_type!r} dataset."]})
    try:
        values = chosen.validate_params(preset, params or {})
    except TemplateParamError as exc:
        field = exc.field if exc.field == "preset" else f"params.{exc.field}"
        raise ValidationError({field: [exc.message]}) from None
    dataset_version_check_trainable(version=dataset_version, min_per_class=chosen.data.min_samples_per_class)
    return job_create(
        workspace=dataset_version.dataset.workspace,
        project=dataset_version.dataset.project,
        kind="training.run",
        params={"dataset_version": dataset_version.pk, "template": chosen.name, "preset": values["preset"],
                "params": values},
        user=user,
    )


def _store(path: Path, key: str) -> tuple[str, str]:
    """Copy an artifact into the blob storage (shared between hosts); returns (key, sha256)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
        fh.seek(0)
        if default_storage.exists(key):
            default_storage.delete(key)
        stored = default_storage.save(key, File(fh, name=path.name))
    return stored, digest.hexdigest()


@transaction.atomic
def model_version_record(*, job: Job, dataset_version: DatasetVersion, template: str, params: dict[str, Any],
                         result: dict[str, Any], evaluation: dict[str, Any], checkpoint: Path, onnx: Path) -> ModelVersion:
    """Record a finished training run as the project's next model version (V1, V2, ...)."""
    existing = ModelVersion.objects.filter(job=job).first()
    if existing is not None:  # a retried job that had already recorded its model
        return existing
    project = type(job.project).objects.select_for_update().get(pk=job.project_id)
    number = (ModelVersion.objects.filter(project=project).aggregate(n=Max("number"))["n"] or 0) + 1
    prefix = f"models/project-{project.pk}/v{number}-job-{job.pk}"
    checkpoint_key, _ = _store(checkpoint, f"{prefix}/checkpoint.pt")
    onnx_key, onnx_sha = _store(onnx, f"{prefix}/model.onnx")
    headline = {"accuracy": evaluation["accuracy"], "macro_f1": evaluation["macro"]["f1"],
                "weighted_f1": evaluation["weighted"]["f1"], "top_k_accuracy": evaluation["top_k_accuracy"]}
    return ModelVersion.objects.create(
        workspace_id=job.workspace_id, project=project, number=number, dataset_version=dataset_version, job=job,
        template=template, preset=params.get("preset", ""), params=params, code_version=code_version(),
        classes=result.get("classes", []), preprocessing=result.get("preprocessing", {}),
        checkpoint_key=checkpoint_key, onnx_key=onnx_key, onnx_sha256=onnx_sha,
        metrics={"test": headline, "training": result.get("metrics", {}), "epochs": result.get("epochs"),
                 "best_epoch": result.get("best_epoch"), "runtime": result.get("runtime", {})}, evaluation=evaluation,
        created_by=job.created_by,
    )
