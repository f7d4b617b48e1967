"""Row builders for training: model versions and backbones (plain functions). Their files are
placeholders unless a test passes real bytes (tests/deploy/factories.py registers a trained model)."""

from __future__ import annotations

import hashlib
import itertools

_serial = itertools.count(1)

# An evaluation report of the classification shape (workers.contracts.evaluation; accuracy, macro and
# weighted F1, per class).
EVALUATION = {
    "kind": "classification_report",
    "version": 1,
    "accuracy": 0.5,
    "macro": {"f1": 0.5},
    "weighted": {"f1": 0.5},
    "top_k_accuracy": {"1": 0.5},
    "per_class": [{"class": "0", "precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2}],
}


def model_version(
    project,
    *,
    number: int | None = None,
    onnx: bytes = b"placeholder",
    onnx_key: str | None = None,
    dataset_version=None,
    template: str = "image_classification",
    preset: str = "fast",
    **fields,
):
    """Model version V<number> (the project's next one unless given) of ``project`` with ``onnx`` saved
    in blob storage (``onnx_key`` names the file; pass ``onnx_key=""`` for no file)."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from django.db.models import Max
    from training.models import ModelVersion

    if number is None:
        number = (ModelVersion.objects.filter(project=project).aggregate(n=Max("number"))["n"] or 0) + 1
    if onnx_key is None:
        onnx_key = f"models/project-{project.pk}/v{number}/model.onnx"
    if onnx_key:
        onnx_key = default_storage.save(onnx_key, ContentFile(onnx))
        fields.setdefault("onnx_sha256", hashlib.sha256(onnx).hexdigest())
    return ModelVersion.objects.create(
        workspace=project.workspace,
        project=project,
        number=number,
        dataset_version=dataset_version,
        template=template,
        preset=preset,
        onnx_key=onnx_key,
        **fields,
    )


def backbone(project, *, name: str | None = None, status: str = "valid", **fields):
    """A checked backbone of ``project`` (its file a placeholder key: nothing reads it)."""
    from training.models import Backbone

    values = {
        "filename": "resnet18.pt",
        "blob_key": f"backbones/00/placeholder-{next(_serial)}.pt",
        "sha256": "0" * 64,
        "size_bytes": 1,
        "summary": {
            "architecture": "resnet18",
            "fits": ["resnet18"],
            "tensors": 122,
            "parameters": 11689512,
            "head_classes": 1000,
            "dtypes": ["float32", "int64"],
        },
        **fields,
    }
    return Backbone.objects.create(
        workspace=project.workspace,
        project=project,
        name=name or f"ResNet-18 #{next(_serial)}",
        status=status,
        **values,
    )


def compression(parent, *, variants=(), report: bool = True, **fields):
    """A compression run of ``parent`` with a finished ``training.compress`` job and, with ``report``,
    a report naming ``variants`` (model versions) measured against it (placeholder figures)."""
    from training.models import Compression

    from tests.jobs.factories import job

    summary = {
        "size_bytes": 1000,
        "parameters": 100,
        "flops": 2000,
        "precision": "fp32",
        "latency": {
            "kind": "latency_measurement",
            "version": 1,
            "median_ms": 1.0,
            "p90_ms": 1.2,
            "runs": 30,
            "target_ms": 1.0,
            "profile": "worker-cpu",
            "threads": 1,
            "provider": "CPUExecutionProvider",
            "machine": "test",
        },
        "metric": "accuracy",
        "value": 0.5,
        "delta": 0.0,
    }
    recipe = {"name": "int8", "quantize": "auto"}
    values = {
        "workspace": parent.workspace,
        "project": parent.project,
        "parent": parent,
        "preset": "smaller",
        "spec": {"kind": "compression_spec", "version": 1, "recipes": [recipe]},
        "job": job(
            parent.project,
            kind="training.compress",
            params={"model_version": parent.pk, "compression": 0},
            status="succeeded",
            created_by=None,
        ),
        "report": {
            "kind": "compression_report",
            "version": 1,
            "template": parent.template,
            "target": "worker-cpu",
            "parent": {**summary, "model_version": parent.pk, "model_version_name": parent.name},
            "variants": [
                {
                    "name": "int8",
                    "recipe": recipe,
                    "model_version": v.pk,
                    "model_version_name": v.name,
                    "summary": {**summary, "precision": "int8", "size_bytes": 300},
                    "notes": [],
                }
                for v in variants
            ],
            "skipped": [],
            "browser_latency": [],
        }
        if report
        else None,
        **fields,
    }
    return Compression.objects.create(**values)
