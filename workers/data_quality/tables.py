"""Table checks, one column at a time: constant, near-constant (one value in >= 99 % of the rows
that have one), a high missing share (>= 50 %), and target leaks: a single column that predicts the
target almost perfectly on rows it was not fitted on.

The leak test fits a one-column lookup model out of fold (5 folds): classification maps each
category, or each of 20 quantile bins of a number, to its most frequent class and scores balanced
accuracy; regression scores |Pearson correlation| for numbers and the out-of-fold R² of per-category
means for categories. A column scoring >= 0.98 leaks. Out of fold matters: an id column, unique per
row, fits the training rows perfectly and predicts nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from workers.contracts.quality import Finding
from workers.contracts.smart_labeling import LabelPool
from workers.data_quality.findings import finding, groups_from_keys

NEAR_CONSTANT_SHARE = 0.99
HIGH_MISSING_SHARE = 0.5
LEAK_SCORE = 0.98
LEAK_FOLDS = 5
LEAK_BINS = 20
MIN_ROWS_FOR_LEAK = 20


def _missing(value: object) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def _number(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return number if math.isfinite(number) else math.nan


def _folds(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n) % LEAK_FOLDS


def _balanced_accuracy(truth: np.ndarray, predicted: np.ndarray) -> float:
    recalls = [float((predicted[truth == c] == c).mean()) for c in np.unique(truth)]
    return float(np.mean(recalls))


def _lookup_classification_score(keys: np.ndarray, target: np.ndarray, seed: int) -> float:
    folds = _folds(len(keys), seed)
    predicted = np.empty_like(target)
    for fold in range(LEAK_FOLDS):
        held = folds == fold
        if not held.any():
            continue
        counts: dict[object, Counter[int]] = {}
        for key, label in zip(keys[~held], target[~held], strict=True):
            counts.setdefault(key, Counter())[int(label)] += 1
        fallback = Counter(target[~held].tolist()).most_common(1)[0][0]
        predicted[held] = [
            counts[key].most_common(1)[0][0] if key in counts else fallback for key in keys[held]
        ]
    return _balanced_accuracy(target, predicted)


def _lookup_regression_r2(keys: np.ndarray, target: np.ndarray, seed: int) -> float:
    folds = _folds(len(keys), seed)
    predicted = np.empty_like(target)
    for fold in range(LEAK_FOLDS):
        held = folds == fold
        if not held.any():
            continue
        sums: dict[object, list[float]] = {}
        for key, value in zip(keys[~held], target[~held], strict=True):
            sums.setdefault(key, []).append(float(value))
        fallback = float(target[~held].mean())
        predicted[held] = [float(np.mean(sums[key])) if key in sums else fallback for key in keys[held]]
    variance = float(((target - target.mean()) ** 2).sum())
    if variance == 0:
        return 0.0
    return 1.0 - float(((target - predicted) ** 2).sum()) / variance


def _bin_keys(numbers: np.ndarray) -> np.ndarray:
    """Each number's quantile bin (20 bins; distinct values when there are fewer), -1 when missing."""
    present = numbers[~np.isnan(numbers)]
    keys = np.full(len(numbers), -1, dtype=np.int64)
    if present.size == 0:
        return keys
    distinct = np.unique(present)
    edges = (
        distinct
        if len(distinct) <= LEAK_BINS
        else np.unique(np.quantile(present, np.linspace(0, 1, LEAK_BINS + 1)))
    )
    mask = ~np.isnan(numbers)
    keys[mask] = np.searchsorted(edges, numbers[mask], side="right")
    return keys


def leak_score(
    kind: str, values: Sequence[object], target: np.ndarray, *, regression: bool, seed: int = 0
) -> tuple[float, str]:
    """How well one column alone predicts the target out of fold: (score 0..1, metric name)."""
    if kind == "numeric":
        numbers = np.array([_number(v) for v in values], dtype=np.float64)
        if regression:
            mask = ~np.isnan(numbers)
            if mask.sum() < 3 or numbers[mask].std() == 0 or target[mask].std() == 0:
                return 0.0, "abs_correlation"
            return abs(float(np.corrcoef(numbers[mask], target[mask])[0, 1])), "abs_correlation"
        return _lookup_classification_score(_bin_keys(numbers), target, seed), "balanced_accuracy"
    keys = np.array(["" if _missing(v) else str(v) for v in values], dtype=object)
    if regression:
        return max(0.0, _lookup_regression_r2(keys, target, seed)), "r2"
    return _lookup_classification_score(keys, target, seed), "balanced_accuracy"


def table_findings(pool: LabelPool, *, seed: int = 0) -> tuple[list[Finding], list[list[int]]]:
    """Column findings and the groups (positions) of rows whose feature values are all equal."""
    samples = pool["samples"]
    target_name = pool.get("target", "")
    columns = [c for c in pool.get("columns", []) if c["name"] != target_name]
    regression = pool["task_type"] == "tabular_regression"
    ids = [s["id"] for s in samples]
    rows = [s.get("values", {}) for s in samples]
    n = len(rows)
    findings: list[Finding] = []
    if regression:
        labeled = [i for i, s in enumerate(samples) if s.get("target") is not None]
        target = np.array([float(samples[i].get("target") or 0.0) for i in labeled], dtype=np.float64)
    else:
        labeled = [i for i, s in enumerate(samples) if s["label"] is not None]
        target = np.array([samples[i]["label"] for i in labeled], dtype=np.int64)
    for column in columns:
        name = column["name"]
        values = [row.get(name) for row in rows]
        missing = [i for i, v in enumerate(values) if _missing(v)]
        present = Counter(str(v) for v in values if not _missing(v))
        if n and len(missing) / n >= HIGH_MISSING_SHARE:
            findings.append(
                finding(
                    "high_missing_column",
                    "warning",
                    (ids[i] for i in missing),
                    column=name,
                    details={"missing_share": round(len(missing) / n, 4)},
                )
            )
        if len(present) <= 1:
            findings.append(
                finding(
                    "constant_column",
                    "warning",
                    [],
                    column=name,
                    details={
                        "value": next(iter(present), None),
                        "missing_share": round(len(missing) / max(n, 1), 4),
                    },
                )
            )
            continue
        top_value, top_count = present.most_common(1)[0]
        share = top_count / sum(present.values())
        if share >= NEAR_CONSTANT_SHARE:
            others = [i for i, v in enumerate(values) if not _missing(v) and str(v) != top_value]
            findings.append(
                finding(
                    "near_constant_column",
                    "info",
                    (ids[i] for i in others),
                    column=name,
                    details={"value": top_value, "share": round(share, 4)},
                )
            )
        if column["type"] in ("numeric", "categorical") and len(labeled) >= MIN_ROWS_FOR_LEAK:
            score, metric = leak_score(
                column["type"], [values[i] for i in labeled], target, regression=regression, seed=seed
            )
            if score >= LEAK_SCORE:
                findings.append(
                    finding(
                        "target_leak_column",
                        "error",
                        [],
                        column=name,
                        details={"score": round(score, 4), "metric": metric, "target": target_name},
                    )
                )
    names = [c["name"] for c in columns]
    keys = [
        None
        if all(_missing(row.get(name)) for name in names)
        else tuple(str(row.get(name)) for name in names)
        for row in rows
    ]
    return findings, groups_from_keys(keys)
