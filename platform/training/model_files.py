"""A trained model's files copied next to a job that reads them (smart labeling, quality reports)."""

from __future__ import annotations

from pathlib import Path

from datasets.models import Dataset
from datasets.services.versions import blob_local_path

from training.selectors import latest_model_for_dataset
from workers.contracts.smart_labeling import ModelFeatures


def dataset_model_features(*, dataset: Dataset, work_dir: Path) -> ModelFeatures | None:
    """The newest image classifier trained on a version of ``dataset``
    (:func:`training.selectors.latest_model_for_dataset`) as the compute plane's ``ModelFeatures``:
    its checkpoint (else its ONNX file) copied under ``work_dir`` (or the storage's own path when
    the storage is local) with its preprocessing; None when the dataset has no such model.

    e.g. ``dataset_model_features(dataset=d, work_dir=tmp)`` -> ``{"name": "model version V3",
    "checkpoint_path": ".../checkpoint.pt", "preprocessing": {...}}``"""
    version = latest_model_for_dataset(dataset)
    if version is None:
        return None
    found: ModelFeatures = {
        "name": f"model version {version.name}",
        "preprocessing": dict(version.preprocessing),
    }
    files = Path(work_dir) / "model"
    if version.checkpoint_key:
        found["checkpoint_path"] = blob_local_path(version.checkpoint_key, files)
    else:
        found["onnx_path"] = blob_local_path(version.onnx_key, files)
    return found
