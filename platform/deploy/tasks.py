"""The deploy tasks: thin, per DESIGN §2. workers.packaging builds the archive; services record it."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from celery import shared_task
from jobs.runner import run_job

from workers.progress import JobCancelled

MAX_TEST_IMAGES = 200
MAX_CALIBRATION_IMAGES = 200


def _split_inputs(model_version, split: str, limit: int) -> tuple[str, list, list[int] | None]:
    """Up to ``limit`` inputs of a split of the model's dataset version (seeded sample, stable order):
    ``("images", paths, labels)`` for image datasets, ``("instances", texts or rows, labels)`` for text
    and tabular ones. Labels index the model's own class list; ``None`` for regression or when a
    label is not one of the model's classes."""
    from datasets.services import dataset_version_manifest

    if model_version.dataset_version is None:
        return "images", [], None
    manifest = dataset_version_manifest(version=model_version.dataset_version)
    samples = [s for s in manifest["samples"] if s["split"] == split]
    if len(samples) > limit:
        samples = sorted(random.Random(0).sample(samples, limit), key=lambda s: str(s["id"]))
    # the model's output order is its own class list; map the dataset version's label indexes onto it
    positions = {name: i for i, name in enumerate(model_version.classes)}
    labels = [
        positions.get(manifest["classes"][s["label"]], -1) if s.get("label") is not None else -1
        for s in samples
    ]
    known = labels if labels and min(labels) >= 0 else None
    if manifest.get("kind") == "text":
        return "instances", [s["text"] for s in samples], known
    if manifest.get("kind") == "tabular":
        target = manifest.get("target")
        rows = [{k: v for k, v in s["values"].items() if k != target} for s in samples]
        return "instances", rows, None if manifest.get("task") == "regression" else known
    return "images", [Path(s["path"]) for s in samples], known


def _build(job, report) -> dict:
    from django.core.files.storage import default_storage

    from deploy import services
    from deploy.models import Package, PackageKind

    package = (
        Package.objects.select_related("model_version__dataset_version")
        .filter(pk=job.params["package"])
        .first()
    )
    if package is None:
        return {"package": job.params["package"], "deleted": True}
    mv = package.model_version
    report(f"fetching {mv.name}'s model", fraction=0.0, milestone=True)
    try:
        from workers import packaging

        with tempfile.TemporaryDirectory(prefix="sampan-package-") as tmp:
            tmp_dir = Path(tmp)
            model_path = tmp_dir / "model.onnx"
            with default_storage.open(mv.onnx_key, "rb") as source, model_path.open("wb") as out:
                for chunk in iter(lambda: source.read(1 << 20), b""):
                    out.write(chunk)
            kind, test_inputs, test_labels = _split_inputs(mv, "test", MAX_TEST_IMAGES)
            artifacts = packaging.ModelArtifacts(
                model_path=model_path,
                preprocessing=mv.preprocessing,
                classes=list(mv.classes),
                template=mv.template,
                model_version={
                    "id": mv.pk,
                    "name": mv.name,
                    "project": mv.project_id,
                    "template": mv.template,
                    "code_version": mv.code_version,
                    "onnx_sha256": mv.onnx_sha256,
                    "dataset_version": mv.dataset_version_id,
                    "metrics": mv.metrics.get("test", {}),
                },
                test_images=test_inputs if kind == "images" else (),
                test_instances=test_inputs if kind == "instances" else (),
                test_labels=test_labels,
            )
            out_path = tmp_dir / "package.zip"
            if package.kind == PackageKind.SERVER:
                report("building the on-prem server package", fraction=0.2, milestone=True)
                built = packaging.build_server_package(artifacts=artifacts, out_path=out_path, report=report)
            else:
                # int8 for texts and rows is dynamic quantization: it needs no calibration inputs
                calibration = (
                    _split_inputs(mv, "train", MAX_CALIBRATION_IMAGES)[1] if kind == "images" else []
                )
                report(
                    "building the device SDK"
                    + (f" (int8 calibrated on {len(calibration)} training images)" if calibration else ""),
                    fraction=0.2,
                    milestone=True,
                )
                built = packaging.build_device_sdk(
                    artifacts=artifacts, out_path=out_path, calibration_images=calibration, report=report
                )
            report("storing the archive", fraction=0.95, milestone=True)
            package = services.package_record(
                package=package, archive=out_path, report=json.loads(json.dumps(built or {}, default=str))
            )
    except JobCancelled:
        raise
    except Exception as exc:
        services.package_record_failure(package=package, error=f"{type(exc).__name__}: {exc}")
        raise
    return {
        "package": package.pk,
        "kind": package.kind,
        "sha256": package.sha256,
        "size_bytes": package.size_bytes,
    }


@shared_task(name="deploy.build_package")
def build_package(job_id: int) -> None:
    run_job(job_id, _build)
