"""Classification metrics in NumPy (no torch, no scikit-learn at run time).

Conventions follow scikit-learn with ``labels=range(n_classes)`` and ``zero_division=0``: a class
never predicted has precision 0, a class with no samples has recall 0, and macro averages include
every class.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> np.ndarray:
    """Counts with true classes as rows and predicted classes as columns."""
    y_true, y_pred = np.asarray(y_true, dtype=np.int64), np.asarray(y_pred, dtype=np.int64)
    return np.bincount(y_true * n_classes + y_pred, minlength=n_classes * n_classes).reshape(
        n_classes, n_classes
    )


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    numerator, denominator = (
        np.asarray(numerator, dtype=np.float64),
        np.asarray(denominator, dtype=np.float64),
    )
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def per_class_scores(matrix: np.ndarray) -> dict[str, np.ndarray]:
    true_positive = np.diag(matrix).astype(np.float64)
    predicted = matrix.sum(axis=0)
    support = matrix.sum(axis=1)
    precision = _safe_divide(true_positive, predicted)
    recall = _safe_divide(true_positive, support)
    f1 = _safe_divide(2 * precision * recall, precision + recall)
    return {"precision": precision, "recall": recall, "f1": f1, "support": support}


def top_k_accuracy(y_true: np.ndarray, scores: np.ndarray, k: int) -> float:
    """Share of samples whose true class is among the ``k`` highest scores."""
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return float(np.mean(np.any(top == np.asarray(y_true)[:, None], axis=1))) if len(scores) else 0.0


def top_k_values(n_classes: int) -> list[int]:
    return [k for k in (1, 3, 5) if k <= n_classes]


def classification_metrics(y_true: np.ndarray, scores: np.ndarray, classes: list[str]) -> dict[str, Any]:
    """Accuracy, top-k accuracy, macro and weighted averages, per-class scores and the confusion counts."""
    n = len(classes)
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.argmax(scores, axis=1)
    matrix = confusion_matrix(y_true, y_pred, n)
    scores_by_class = per_class_scores(matrix)
    support = scores_by_class["support"]
    total = int(support.sum())

    def average(weights: np.ndarray | None) -> dict[str, float]:
        return {
            name: float(np.average(scores_by_class[name], weights=weights))
            if weights is None or weights.sum()
            else 0.0
            for name in ("precision", "recall", "f1")
        }

    return {
        "samples": total,
        "accuracy": float(np.trace(matrix) / total) if total else 0.0,
        "top_k_accuracy": {str(k): top_k_accuracy(y_true, scores, k) for k in top_k_values(n)},
        "macro": average(None),
        "weighted": average(support.astype(np.float64)),
        "per_class": [
            {
                "class": name,
                "index": i,
                "precision": float(scores_by_class["precision"][i]),
                "recall": float(scores_by_class["recall"][i]),
                "f1": float(scores_by_class["f1"][i]),
                "support": int(support[i]),
            }
            for i, name in enumerate(classes)
        ],
        "confusion_matrix": matrix.tolist(),
    }
