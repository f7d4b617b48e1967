"""Deploy test material: a tiny digits classifier trained once per test session with the real trainer
(fast preset, 3 epochs, 30 digits per class), model versions registered on it, deployments, keys."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.datasets.factories import digit_bytes, digit_class


@pytest.fixture(scope="session", name="trained_digits")
def trained_digits_fixture(tmp_path_factory) -> Path:
    """A trained run directory: model.onnx, preprocess.json, labels.json (classes "0".."9")."""
    from tests.workers.digits_data import write_digits
    from workers.templates import registry

    root = tmp_path_factory.mktemp("deploy-digits")
    manifest = write_digits(root / "images", per_class=30)
    template = registry.get("image_classification")
    params = template.validate_params("fast", {"epochs": 3, "image_size": 32, "augmentation": "none"})
    template.load("train")(params, manifest, root / "run", lambda *a, **k: None)
    return root / "run"


def model_version_from(world: dict, run: Path, *, number: int = 1, dataset_version=None, project=None):
    """Register ``run`` as model version V<number> of project A (or ``project``), its ONNX file in blob storage."""
    import hashlib

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from training.models import ModelVersion

    project = project or world["project_a"]
    data = (run / "model.onnx").read_bytes()
    key = default_storage.save(f"models/project-{project.pk}/v{number}/model.onnx", ContentFile(data))
    return ModelVersion.objects.create(
        workspace=project.workspace,
        project=project,
        number=number,
        dataset_version=dataset_version,
        template="image_classification",
        preset="fast",
        params={"model": "cnn_small"},
        classes=json.loads((run / "labels.json").read_text()),
        preprocessing=json.loads((run / "preprocess.json").read_text()),
        onnx_key=key,
        onnx_sha256=hashlib.sha256(data).hexdigest(),
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
