"""The evaluation report of an exported model on a manifest's test split, and report comparison.

Runs the ONNX model as serving does (ONNX Runtime, NumPy preprocessing, batches), so the report
describes the model users get. No torch here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from workers.contracts.evaluation import (
    COMPARISON_VERSION,
    REPORT_VERSION,
    ClassComparison,
    ClassificationComparison,
    ClassificationReport,
    MetricPair,
    SampleRef,
)
from workers.contracts.manifest import ImageManifest
from workers.image_classification.manifest import parse_manifest
from workers.image_classification.predictor import ImageClassifier
from workers.image_classification.preprocessing import open_image
from workers.progress import Report, silent_report
from workers.shared.atomic_files import sha256_of
from workers.shared.classification_metrics import classification_metrics
from workers.shared.intervals import classification_intervals

REPORT_INTERVAL_S = 0.5


def evaluate(
    model_path: str | os.PathLike[str],
    manifest: ImageManifest,
    *,
    preprocessing: Mapping[str, Any] | None = None,
    split: str = "test",
    batch_size: int = 64,
    mistakes: int = 20,
    report: Report = silent_report,
) -> ClassificationReport:
    """Evaluate ``model_path`` (ONNX) on the ``split`` samples of ``manifest``.

    ``preprocessing`` defaults to the spec stored in the model by Sampan's export. Samples are
    referred to by their manifest ``id`` when given, else by their position in ``samples``.
    Returns a JSON-able report (``workers.contracts.evaluation.ClassificationReport``)::

        {"kind": "classification_report", "version": 1, "split": "test", "samples": n, "classes": [names],
         "accuracy": a, "top_k_accuracy": {"1": a1, "3": a3, "5": a5},   # k <= number of classes
         "macro": {"precision", "recall", "f1"}, "weighted": {"precision", "recall", "f1"},
         "per_class": [{"class", "index", "precision", "recall", "f1", "support"}],
         "confusion_matrix": {"counts": [[int]], "samples": [[[ref]]]},    # rows: true, columns: predicted
         "most_confident_mistakes": [{"sample", "index", "path", "true", "true_class",
                                      "predicted", "predicted_class", "confidence"}],
         "model": {"path", "sha256"}}
    """
    data = parse_manifest(manifest, check_files=True, min_samples_per_class=0, required_splits=(split,))
    samples = data.split(split)
    classifier = ImageClassifier(model_path, preprocessing=preprocessing, classes=list(data.classes))
    n_classes = len(data.classes)
    probabilities = np.zeros((len(samples), n_classes), dtype=np.float64)
    last_report = time.monotonic()
    for start in range(0, len(samples), batch_size):
        batch = samples[start : start + batch_size]
        probabilities[start : start + len(batch)] = classifier.probabilities(
            [open_image(s.path) for s in batch]
        )
        done = start + len(batch)
        if time.monotonic() - last_report >= REPORT_INTERVAL_S or done == len(samples):
            last_report = time.monotonic()
            report(
                f"evaluated {done}/{len(samples)} images",
                fraction=done / len(samples),
                milestone=done == len(samples),
                evaluated=done,
                total=len(samples),
            )

    y_true = np.array([s.label for s in samples], dtype=np.int64)
    y_pred = probabilities.argmax(axis=1)
    metrics = classification_metrics(y_true, probabilities, list(data.classes))
    cells: list[list[list[SampleRef]]] = [[[] for _ in range(n_classes)] for _ in range(n_classes)]
    for sample, predicted in zip(samples, y_pred, strict=True):
        cells[sample.label][int(predicted)].append(sample.ref)
    confidence = probabilities[np.arange(len(samples)), y_pred]
    wrong = np.flatnonzero(y_pred != y_true)
    ranked = wrong[np.argsort(-confidence[wrong], kind="stable")][:mistakes]
    return {
        "kind": "classification_report",
        "version": REPORT_VERSION,
        "split": split,
        "samples": metrics["samples"],
        "classes": list(data.classes),
        "accuracy": metrics["accuracy"],
        "top_k_accuracy": metrics["top_k_accuracy"],
        "macro": metrics["macro"],
        "weighted": metrics["weighted"],
        "per_class": metrics["per_class"],
        "confusion_matrix": {"counts": metrics["confusion_matrix"], "samples": cells},
        "most_confident_mistakes": [
            {
                "sample": samples[i].ref,
                "index": samples[i].index,
                "path": samples[i].path,
                "true": int(y_true[i]),
                "true_class": data.classes[y_true[i]],
                "predicted": int(y_pred[i]),
                "predicted_class": data.classes[y_pred[i]],
                "confidence": float(confidence[i]),
            }
            for i in ranked
        ],
        "model": {"path": os.fspath(model_path), "sha256": sha256_of(model_path)},
        "intervals": classification_intervals(y_true, probabilities),
    }


def _pair(a: float | None, b: float | None) -> MetricPair:
    return {"a": a, "b": b, "delta": None if a is None or b is None else b - a}


def compare(report_a: ClassificationReport, report_b: ClassificationReport) -> ClassificationComparison:
    """Two classification reports side by side; every ``delta`` is b minus a.

    Classes are matched by name (a's order, then b's extra classes); a class missing from one
    report has ``None`` there. Returns (``workers.contracts.evaluation.ClassificationComparison``)::

        {"kind": "classification_comparison", "version": 1,
         "accuracy": {"a", "b", "delta"}, "macro_f1": {...}, "weighted_f1": {...},
         "top_k_accuracy": {"1": {...}, ...},
         "per_class": [{"class", "precision": {...}, "recall": {...}, "f1": {...},
                        "support": {"a", "b"}}]}
    """
    by_class_a = {row["class"]: row for row in report_a["per_class"]}
    by_class_b = {row["class"]: row for row in report_b["per_class"]}
    names = list(by_class_a) + [name for name in by_class_b if name not in by_class_a]
    per_class: list[ClassComparison] = []
    for name in names:
        row_a, row_b = by_class_a.get(name), by_class_b.get(name)
        per_class.append(
            {
                "class": name,
                "precision": _pair(
                    row_a["precision"] if row_a else None, row_b["precision"] if row_b else None
                ),
                "recall": _pair(row_a["recall"] if row_a else None, row_b["recall"] if row_b else None),
                "f1": _pair(row_a["f1"] if row_a else None, row_b["f1"] if row_b else None),
                "support": {
                    "a": row_a["support"] if row_a else None,
                    "b": row_b["support"] if row_b else None,
                },
            }
        )
    ks = [k for k in report_a["top_k_accuracy"] if k in report_b["top_k_accuracy"]]
    return {
        "kind": "classification_comparison",
        "version": COMPARISON_VERSION,
        "accuracy": _pair(report_a["accuracy"], report_b["accuracy"]),
        "macro_f1": _pair(report_a["macro"]["f1"], report_b["macro"]["f1"]),
        "weighted_f1": _pair(report_a["weighted"]["f1"], report_b["weighted"]["f1"]),
        "top_k_accuracy": {
            k: _pair(report_a["top_k_accuracy"][k], report_b["top_k_accuracy"][k]) for k in ks
        },
        "per_class": per_class,
    }
