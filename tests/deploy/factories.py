"""Deploy test material: a tiny digits classifier trained with the real trainer (fast preset, 3 epochs,
30 digits per class; the session fixture ``trained_digits`` in tests/conftest.py trains it once), model
versions registered on it, deployments, keys and packages."""

from __future__ import annotations

import base64
import io
import itertools
import json
from pathlib import Path

from PIL import Image

from tests.datasets.factories import digit_bytes, digit_class

_serial = itertools.count(1)


def train_digits(root: Path) -> Path:
    """Train the tiny digits classifier under ``root`` with the real trainer (fast preset, 3 epochs,
    30 digits per class): the run directory (model.onnx, preprocess.json, labels.json, classes "0".."9").
    tests/conftest.py's session fixture ``trained_digits`` trains it once per session."""
    from tests.workers.digits_data import write_digits
    from workers.templates import registry

    manifest = write_digits(root / "images", per_class=30)
    template = registry.get("image_classification")
    params = template.validate_params(
        "fast", {"epochs": 3, "image_size": 32, "augmentation": "none", "validation": "holdout"}
    )
    template.load("train")(params, manifest, root / "run", lambda *a, **k: None)
    return root / "run"


def model_version_from(world: dict, run: Path, *, number: int = 1, dataset_version=None, project=None):
    """Register ``run`` as model version V<number> of project A (or ``project``), its ONNX file in blob
    storage."""
    from tests.training.factories import model_version

    return model_version(
        project or world["project_a"],
        number=number,
        onnx=(run / "model.onnx").read_bytes(),
        dataset_version=dataset_version,
        params={"model": "cnn_small"},
        classes=json.loads((run / "labels.json").read_text()),
        preprocessing=json.loads((run / "preprocess.json").read_text()),
        metrics={"test": {"accuracy": 0.5}},
    )


def deployment_with_key(world: dict, model_version, *, name: str = "digits", **key_options):
    """A deployment of ``model_version`` and one key: (deployment, key row, secret)."""
    from deploy import services

    deployment = services.deployment_create(user=world["alice"], model_version=model_version, name=name)
    key, secret = services.deployment_key_create(
        user=world["alice"], deployment=deployment, name="test key", **key_options
    )
    return deployment, key, secret


def deployment(model_version, *, name: str | None = None, **fields):
    """A deployment row of ``model_version`` (active; no key, no serving-cache stamp bump)."""
    from deploy.models import Deployment

    return Deployment.objects.create(
        workspace=model_version.workspace,
        project=model_version.project,
        name=name or f"deployment {next(_serial)}",
        model_version=model_version,
        **fields,
    )


def deployment_key(deployment, *, by, name: str | None = None, **options):
    """(key row, secret) of ``deployment`` through the real service."""
    from deploy.services import deployment_key_create

    return deployment_key_create(
        user=by, deployment=deployment, name=name or f"key {next(_serial)}", **options
    )


def package(model_version, *, kind: str = "server", archive: bytes = b"PK placeholder", **fields):
    """A built package row of ``model_version`` (its archive a placeholder in blob storage)."""
    import hashlib

    from deploy.models import Package
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    key = default_storage.save(f"packages/test-{next(_serial)}/package.zip", ContentFile(archive))
    values = {
        "blob_key": key,
        "sha256": hashlib.sha256(archive).hexdigest(),
        "size_bytes": len(archive),
        **fields,
    }
    return Package.objects.create(
        workspace=model_version.workspace,
        project=model_version.project,
        model_version=model_version,
        kind=kind,
        **values,
    )


def png(index: int = 0, *, size: int = 32) -> bytes:
    return digit_bytes(index, size=size)


def label_of(index: int) -> str:
    return str(digit_class(index))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def jpeg(index: int = 0) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(png(index))).convert("RGB").save(out, "JPEG")
    return out.getvalue()


def batch_prediction(model_version, *, dataset_version=None, status: str = "succeeded", **fields):
    """A batch prediction row of ``model_version`` over ``dataset_version`` (its test split) with a
    finished ``deploy.batch_predict`` job and, when succeeded, a placeholder JSONL result file."""
    import hashlib

    from deploy.models import BatchPrediction
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from tests.jobs.factories import job

    files = {}
    if status == "succeeded":
        data = b'{"id": null, "name": "1", "error": "placeholder"}\n'
        key = default_storage.save(f"batch-predictions/test-{next(_serial)}/results.jsonl", ContentFile(data))
        files = {"jsonl": {"key": key, "size_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}}
    fields.setdefault(
        "job",
        job(
            model_version.project,
            kind="deploy.batch_predict",
            params={"batch_prediction": 0},
            status=status,
            created_by=None,
        ),
    )
    return BatchPrediction.objects.create(
        workspace=model_version.workspace,
        project=model_version.project,
        model_version=model_version,
        status=status,
        source_kind="dataset_version" if dataset_version is not None else "upload",
        dataset_version=dataset_version,
        split="test" if dataset_version is not None else "",
        upload_name="" if dataset_version is not None else "inputs.zip",
        files=files,
        params={"formats": ["jsonl"]},
        **fields,
    )
