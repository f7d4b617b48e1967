"""The evaluation report of an exported tabular model on a manifest's test split, computed through
the serving predictor (ONNX Runtime), so it describes the model users get. No torch here.

Classification: the image template's report (accuracy, top-k, macro/weighted, per class, confusion
matrix, most confident mistakes with their rows). Regression: MAE, RMSE, R2, a residual plot's
points and a residual histogram. Both: permutation feature importance per table column.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from workers.contracts.evaluation import (
    COMPARISON_VERSION,
    REPORT_VERSION,
    ClassificationReport,
    FeatureImportance,
    ModelFile,
    RegressionComparison,
    RegressionMetricPair,
    RegressionMetrics,
    RegressionReport,
    SampleRef,
)
from workers.contracts.manifest import TabularManifest
from workers.progress import Report, silent_report
from workers.shared.atomic_files import sha256_of
from workers.shared.classification_metrics import classification_metrics
from workers.shared.intervals import classification_intervals, regression_intervals
from workers.tabular.encoding import encode, feature_sources
from workers.tabular.predictor import TabularPredictor

MAX_POINTS = 1000


REGRESSION_METRICS = ("mae", "rmse", "r2")


def _regression_pair(a: float, b: float) -> RegressionMetricPair:
    return {"a": float(a), "b": float(b), "delta": float(b) - float(a)}


def compare_regression(report_a: RegressionReport, report_b: RegressionReport) -> RegressionComparison:
    """Two regression reports side by side; every ``delta`` is b minus a (lower MAE and RMSE are
    better, higher R2 is better). Returns (``workers.contracts.evaluation.RegressionComparison``)::

        {"kind": "regression_comparison", "version": 1,
         "mae": {"a", "b", "delta"}, "rmse": {...}, "r2": {...}, "samples": {"a", "b"}}
    """
    return {
        "kind": "regression_comparison",
        "version": COMPARISON_VERSION,
        "mae": _regression_pair(report_a["mae"], report_b["mae"]),
        "rmse": _regression_pair(report_a["rmse"], report_b["rmse"]),
        "r2": _regression_pair(report_a["r2"], report_b["r2"]),
        "samples": {"a": report_a.get("samples"), "b": report_b.get("samples")},
    }


def regression_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> RegressionMetrics:
    residual = y_pred - y_true
    total = float(np.sum((y_true - y_true.mean()) ** 2))
    return {
        "mae": float(np.mean(np.abs(residual))),
        "rmse": float(np.sqrt(np.mean(residual**2))),
        "r2": 1.0 - float(np.sum(residual**2)) / total if total else 0.0,
    }


def _score(predictor: TabularPredictor, matrix: np.ndarray, y: np.ndarray) -> float:
    """Higher is better: accuracy, or minus the RMSE."""
    out = predictor.run(matrix)
    if predictor.regression:
        return -float(np.sqrt(np.mean((out.reshape(-1) - y) ** 2)))
    return float(np.mean(out.argmax(axis=1) == y))


def permutation_importance(
    predictor: TabularPredictor, matrix: np.ndarray, y: np.ndarray, *, seed: int = 0, repeats: int = 3
) -> list[FeatureImportance]:
    """How much the score drops when one table column's values are shuffled across rows (its one-hot
    or missing-indicator columns move together); sorted, largest drop first."""
    sources = feature_sources(predictor.preprocessing)
    baseline = _score(predictor, matrix, y)
    rng = np.random.default_rng(seed)
    found: list[FeatureImportance] = []
    for column in dict.fromkeys(sources):
        positions = [i for i, s in enumerate(sources) if s == column]
        drops = []
        for _ in range(repeats):
            shuffled = matrix.copy()
            shuffled[:, positions] = matrix[rng.permutation(len(matrix))][:, positions]
            drops.append(baseline - _score(predictor, shuffled, y))
        found.append({"feature": column, "importance": float(np.mean(drops)), "std": float(np.std(drops))})
    return sorted(found, key=lambda f: -f["importance"])


def evaluate(
    model_path: str | os.PathLike[str],
    manifest: TabularManifest,
    *,
    preprocessing: Mapping[str, Any] | None = None,
    split: str = "test",
    mistakes: int = 20,
    report: Report = silent_report,
) -> ClassificationReport | RegressionReport:
    """The report of ``model_path`` on the ``split`` rows of ``manifest``: a
    ``RegressionReport`` for a regression model, else a ``ClassificationReport``
    (``workers.contracts.evaluation``)."""
    samples = [s for s in manifest["samples"] if s["split"] == split]
    if not samples:
        raise ValueError(f"the {split} split is empty; nothing to evaluate")
    classes = list(manifest.get("classes") or [])
    predictor = TabularPredictor(model_path, preprocessing=preprocessing, classes=classes or None)
    matrix = encode(predictor.preprocessing, [s["values"] for s in samples])
    out = predictor.run(matrix)
    report(
        f"evaluated {len(samples)} rows",
        fraction=1.0,
        milestone=True,
        evaluated=len(samples),
        total=len(samples),
    )
    model: ModelFile = {"path": os.fspath(model_path), "sha256": sha256_of(model_path)}
    if predictor.regression:
        y_true = np.asarray([s["target"] for s in samples], dtype=np.float64)
        y_pred = out.reshape(-1)
        metrics = regression_metrics(y_true, y_pred)
        residual = y_pred - y_true
        counts, edges = np.histogram(residual, bins=20)
        step = max(1, len(samples) // MAX_POINTS)
        return {
            "kind": "regression_report",
            "version": REPORT_VERSION,
            "split": split,
            "samples": len(samples),
            "mae": metrics["mae"],
            "rmse": metrics["rmse"],
            "r2": metrics["r2"],
            "headline": metrics,
            "residuals": {
                "points": [
                    {"sample": samples[i]["id"], "actual": float(y_true[i]), "predicted": float(y_pred[i])}
                    for i in range(0, len(samples), step)
                ],
                "histogram": {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]},
            },
            "largest_errors": [
                {
                    "sample": samples[i]["id"],
                    "values": samples[i]["values"],
                    "actual": float(y_true[i]),
                    "predicted": float(y_pred[i]),
                }
                for i in np.argsort(-np.abs(residual), kind="stable")[:mistakes]
            ],
            "feature_importance": permutation_importance(predictor, matrix, y_true),
            "model": model,
            "intervals": regression_intervals(y_true, y_pred),
        }
    y_true = np.asarray([s["label"] for s in samples], dtype=np.int64)
    scores = classification_metrics(y_true, out, classes)
    y_pred = out.argmax(axis=1)
    n = len(classes)
    cells: list[list[list[SampleRef]]] = [[[] for _ in range(n)] for _ in range(n)]
    for sample, truth, predicted in zip(samples, y_true, y_pred, strict=True):
        cells[int(truth)][int(predicted)].append(sample["id"])
    confidence = out[np.arange(len(samples)), y_pred]
    wrong = np.flatnonzero(y_pred != y_true)
    ranked = wrong[np.argsort(-confidence[wrong], kind="stable")][:mistakes]
    return {
        "kind": "classification_report",
        "version": REPORT_VERSION,
        "split": split,
        "samples": scores["samples"],
        "classes": classes,
        "accuracy": scores["accuracy"],
        "top_k_accuracy": scores["top_k_accuracy"],
        "macro": scores["macro"],
        "weighted": scores["weighted"],
        "per_class": scores["per_class"],
        "headline": {
            "accuracy": scores["accuracy"],
            "macro_f1": scores["macro"]["f1"],
            "weighted_f1": scores["weighted"]["f1"],
            "top_k_accuracy": scores["top_k_accuracy"],
        },
        "confusion_matrix": {"counts": scores["confusion_matrix"], "samples": cells},
        "most_confident_mistakes": [
            {
                "sample": samples[i]["id"],
                "index": int(i),
                "values": samples[i]["values"],
                "true": int(y_true[i]),
                "true_class": classes[y_true[i]],
                "predicted": int(y_pred[i]),
                "predicted_class": classes[y_pred[i]],
                "confidence": float(confidence[i]),
            }
            for i in ranked
        ],
        "feature_importance": permutation_importance(predictor, matrix, y_true),
        "model": model,
        "intervals": classification_intervals(y_true, out),
    }
