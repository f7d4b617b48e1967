"""The evaluation report of an exported text classifier on a manifest's test split, through the
serving predictor (ONNX Runtime + tokenizers): the image template's report, with the
misclassified texts listed."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from workers.contracts.evaluation import REPORT_VERSION, ClassificationReport
from workers.contracts.manifest import SampleRef, TextManifest
from workers.progress import Report, silent_report
from workers.shared.atomic_files import sha256_of
from workers.shared.classification_metrics import classification_metrics
from workers.shared.intervals import classification_intervals
from workers.text_classification.predictor import TextClassifier


def evaluate(
    model_path: str | os.PathLike[str],
    manifest: TextManifest,
    *,
    preprocessing: Mapping[str, Any] | None = None,
    split: str = "test",
    mistakes: int = 50,
    report: Report = silent_report,
) -> ClassificationReport:
    samples = [s for s in manifest["samples"] if s["split"] == split]
    if not samples:
        raise ValueError(f"the {split} split is empty; nothing to evaluate")
    classes = list(manifest["classes"])
    classifier = TextClassifier(model_path, preprocessing=preprocessing, classes=classes)
    probabilities = classifier.probabilities([s["text"] for s in samples])
    report(
        f"evaluated {len(samples)} texts",
        fraction=1.0,
        milestone=True,
        evaluated=len(samples),
        total=len(samples),
    )
    y_true = np.asarray([s["label"] for s in samples], dtype=np.int64)
    y_pred = probabilities.argmax(axis=1)
    metrics = classification_metrics(y_true, probabilities, classes)
    n = len(classes)
    cells: list[list[list[SampleRef]]] = [[[] for _ in range(n)] for _ in range(n)]
    for sample, truth, predicted in zip(samples, y_true, y_pred, strict=True):
        cells[int(truth)][int(predicted)].append(sample["id"])
    confidence = probabilities[np.arange(len(samples)), y_pred]
    wrong = np.flatnonzero(y_pred != y_true)
    ranked = wrong[np.argsort(-confidence[wrong], kind="stable")][:mistakes]
    return {
        "kind": "classification_report",
        "version": REPORT_VERSION,
        "split": split,
        "samples": metrics["samples"],
        "classes": classes,
        "accuracy": metrics["accuracy"],
        "top_k_accuracy": metrics["top_k_accuracy"],
        "macro": metrics["macro"],
        "weighted": metrics["weighted"],
        "per_class": metrics["per_class"],
        "confusion_matrix": {"counts": metrics["confusion_matrix"], "samples": cells},
        "most_confident_mistakes": [
            {
                "sample": samples[i]["id"],
                "index": int(i),
                "text": samples[i]["text"][:1000],
                "true": int(y_true[i]),
                "true_class": classes[y_true[i]],
                "predicted": int(y_pred[i]),
                "predicted_class": classes[y_pred[i]],
                "confidence": float(confidence[i]),
            }
            for i in ranked
        ],
        "misclassified": len(wrong),
        "model": {"path": os.fspath(model_path), "sha256": sha256_of(model_path)},
        "intervals": classification_intervals(y_true, probabilities),
    }
