"""Smart labeling: a quick model trained on a dataset's labeled samples suggests a label for every
unlabeled one and ranks what to label next.

:func:`run` takes a :class:`~workers.contracts.smart_labeling.LabelPool` and answers a
:class:`~workers.contracts.smart_labeling.SmartLabelingResult`. Classification: logistic regression
on the pool's features (:mod:`.features`, :mod:`.quick_model`); the suggestion is the most probable
class, its confidence that probability. Regression: ridge regression, uncertainty from the spread of
bootstrap refits. Detection: :mod:`.detection` (a small detector trained for a few epochs).

The ranking (``strategy``):

- ``uncertainty``: the unlabeled samples with the smallest margin between the two most probable
  classes (``priority = 1 - margin``) first.
- ``uncertainty_diversity`` (the default): the ``10 x batch_size`` most uncertain are candidates;
  the batch is picked greedily, each time the candidate with the largest ``priority x distance to
  the nearest sample already labeled or picked`` (a weighted k-center), so a batch is never many
  near-copies of one uncertain image.
- ``random``: a seeded shuffle (a baseline).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.smart_labeling import (
    SMART_LABELING_VERSION,
    ClassScore,
    LabelPool,
    ModelFeatures,
    SampleSuggestion,
    SmartLabelingParams,
    SmartLabelingResult,
    SmartLabelingSummary,
)
from workers.progress import JobCancelled, Report

CANDIDATES_PER_PICK = 10
TOP_SCORES = 3
MIN_LABELED_PER_CLASS = 2
MIN_TARGETS = 4
BOOTSTRAPS = 20
RIDGE = 1.0


class NotEnoughLabels(ValueError):
    """Too few labels to train the quick model: at least 2 classes with 2 labeled samples each
    (detection: 4 annotated images with boxes; regression: 4 samples with a target)."""


class NothingToSuggest(ValueError):
    """Every sample is labeled already."""


def run(
    pool: LabelPool,
    params: SmartLabelingParams,
    *,
    work_dir: Path,
    report: Report,
    cache_dir: Path | None = None,
    model: ModelFeatures | None = None,
) -> SmartLabelingResult:
    """One smart-labeling round over ``pool``. ``cache_dir`` (optional, may vanish): where image and
    text feature rows are kept between rounds (:class:`~workers.smart_labeling.features.FeatureCache`).
    ``model`` (image classification): a model trained on the platform whose embedding joins the
    image features. An image that cannot be read gets no suggestion and is not trained on; the
    summary's ``unreadable`` counts them.

    e.g. ``run(pool, {"batch_size": 50, "strategy": "uncertainty_diversity", "seed": 0},
    work_dir=tmp, report=silent_report)["suggestions"]`` -> one suggestion per unlabeled sample, 50 of
    them ranked 1..50. Raises :class:`NotEnoughLabels`, :class:`NothingToSuggest`, or
    ``workers.progress.JobCancelled`` (from ``report``).
    """
    started = time.monotonic()
    task = pool["task_type"]
    if task == "object_detection":
        from workers.smart_labeling.detection import run_detection

        result = run_detection(pool, params, work_dir=work_dir, report=report, cache_dir=cache_dir)
    elif task == "tabular_regression":
        result = _run_regression(pool, params, work_dir=work_dir, report=report)
    else:
        result = _run_classification(
            pool, params, work_dir=work_dir, report=report, cache_dir=cache_dir, model=model
        )
    result["summary"]["seconds"] = round(time.monotonic() - started, 3)
    report(
        f"suggested {len(result['suggestions'])} samples, ranked {result['summary']['ranked']}",
        fraction=1.0,
        milestone=True,
    )
    return result


def scaled_report(report: Report, start: float, end: float) -> Report:
    """``report`` for a stage that runs from ``start`` to ``end`` of the whole job."""

    def stage(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        if fraction is not None:
            fraction = start + (end - start) * max(0.0, min(1.0, fraction))
        report(message, fraction=fraction, milestone=milestone, **metrics)

    return stage


def _model_name(task: str, model: ModelFeatures | None = None) -> str:
    if model is not None and task == "image_classification":
        return f"logistic regression on image features + {model['name']}'s embedding"
    return {
        "image_classification": "logistic regression on image thumbnails and gradient histograms",
        "text_classification": "logistic regression on MiniLM sentence embeddings",
        "tabular_classification": "logistic regression on the encoded table",
        "tabular_regression": "ridge regression on the encoded table (bootstrap uncertainty)",
    }.get(task, task)


def margin_uncertainty(probabilities: np.ndarray) -> np.ndarray:
    """1 - (p_first - p_second) per row: 1 when the two best classes tie, 0 when one is certain."""
    if probabilities.shape[1] < 2:
        return np.zeros(len(probabilities))
    top = np.sort(probabilities, axis=1)[:, -2:]
    return np.asarray(1.0 - (top[:, 1] - top[:, 0]))


def rank_batch(
    strategy: str,
    priority: np.ndarray,
    features: np.ndarray | None,
    labeled_features: np.ndarray | None,
    batch_size: int,
    *,
    seed: int,
) -> np.ndarray:
    """Positions (into ``priority``) of the batch to label next, in order."""
    n = len(priority)
    size = min(batch_size, n)
    if size <= 0:
        return np.zeros(0, dtype=np.int64)
    if strategy == "random":
        return np.random.default_rng(seed).permutation(n)[:size]
    # ties broken by position, so a round is repeatable
    by_priority = np.lexsort((np.arange(n), -priority))
    if strategy == "uncertainty" or features is None:
        return by_priority[:size]
    candidates = by_priority[: min(n, CANDIDATES_PER_PICK * size)]
    points = features[candidates].astype(np.float64)
    nearest = np.full(len(candidates), np.inf)
    if labeled_features is not None and len(labeled_features):
        anchors = labeled_features.astype(np.float64)
        for start in range(0, len(anchors), 1024):
            nearest = np.minimum(nearest, _distances(points, anchors[start : start + 1024]).min(axis=1))
    if not np.isfinite(nearest).any():
        nearest[:] = 1.0
    weight = priority[candidates] + 1e-6
    picked: list[int] = []
    available = np.ones(len(candidates), dtype=bool)
    for _ in range(size):
        score = np.where(available, weight * nearest, -np.inf)
        best = int(np.argmax(score))
        picked.append(best)
        available[best] = False
        nearest = np.minimum(nearest, _distances(points, points[best : best + 1])[:, 0])
    return np.asarray(candidates[np.asarray(picked)])


def _distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    squared = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return np.asarray(np.sqrt(np.maximum(squared, 0.0)))


def _histogram(confidences: Sequence[float]) -> list[int]:
    counts, _ = np.histogram(np.asarray(confidences, dtype=np.float64), bins=10, range=(0.0, 1.0))
    return [int(c) for c in counts]


def read_features(
    pool: LabelPool,
    work_dir: Path,
    report: Report,
    cache_dir: Path | None = None,
    *,
    model: ModelFeatures | None = None,
    unreadable: set[int] | None = None,
) -> np.ndarray:
    from workers.smart_labeling.features import pool_features

    report("reading the samples", fraction=0.0)
    return pool_features(
        pool, work_dir=work_dir, report=report, cache_dir=cache_dir, model=model, unreadable=unreadable
    )


def classification_round(
    features: np.ndarray,
    labeled: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    strategy: str,
    batch_size: int,
    *,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The heart of a classification round, on features already read: (probabilities of every
    unlabeled sample, their priority, positions among the unlabeled of the batch to label next).
    ``labeled`` is a mask over ``features``; ``y`` the labels of the masked rows, in order.
    ``benchmarks/smart_labeling.py`` calls this very function."""
    from workers.smart_labeling.quick_model import fit_predict_proba

    unlabeled = np.flatnonzero(~labeled)
    probabilities = fit_predict_proba(features[labeled], y, features[unlabeled], n_classes, seed=seed)
    priority = margin_uncertainty(probabilities)
    order = rank_batch(strategy, priority, features[unlabeled], features[labeled], batch_size, seed=seed)
    return probabilities, priority, order


def _run_classification(
    pool: LabelPool,
    params: SmartLabelingParams,
    *,
    work_dir: Path,
    report: Report,
    cache_dir: Path | None,
    model: ModelFeatures | None = None,
) -> SmartLabelingResult:
    from workers.smart_labeling.quick_model import out_of_fold_probabilities

    n_classes = len(pool["classes"])
    _check_labels([s["label"] for s in pool["samples"]], n_classes)
    images = pool["task_type"] == "image_classification"
    unreadable: set[int] = set()
    model = model if images else None
    try:
        features = read_features(
            pool,
            work_dir,
            scaled_report(report, 0.0, 0.6),
            cache_dir,
            model=model,
            unreadable=unreadable if images else None,
        )
    except JobCancelled:
        raise
    except Exception as error:  # a model file that cannot be used never costs the round
        if model is None:
            raise
        report(f"{model['name']} could not be used ({error}); image features alone")
        model = None
        unreadable.clear()
        features = read_features(
            pool, work_dir, scaled_report(report, 0.0, 0.6), cache_dir, unreadable=unreadable
        )
    # an image that cannot be read is left out: no suggestion, not trained on
    readable = np.asarray([i not in unreadable for i in range(len(pool["samples"]))], dtype=bool)
    features = features[readable]
    samples = [s for i, s in enumerate(pool["samples"]) if i not in unreadable]
    labeled = np.asarray([s["label"] is not None for s in samples], dtype=bool)
    y = np.asarray([s["label"] for s in samples if s["label"] is not None], dtype=np.int64)
    if unreadable:
        _check_labels([s["label"] for s in samples], n_classes, readable_only=True)
    report("training the quick model", fraction=0.6)
    estimated = None
    if len(y) >= 10:
        oof = out_of_fold_probabilities(features[labeled], y, n_classes, seed=params["seed"])
        estimated = float((oof.argmax(axis=1) == y).mean())
    report("predicting the unlabeled samples", fraction=0.8)
    unlabeled = np.flatnonzero(~labeled)
    probabilities, priority, order = classification_round(
        features, labeled, y, n_classes, params["strategy"], params["batch_size"], seed=params["seed"]
    )
    ranks = {int(position): r + 1 for r, position in enumerate(order)}
    suggestions: list[SampleSuggestion] = []
    per_class = [0] * n_classes
    for position, index in enumerate(unlabeled):
        row = probabilities[position]
        best = np.argsort(-row, kind="stable")[:TOP_SCORES]
        label = int(best[0])
        per_class[label] += 1
        scores: list[ClassScore] = [{"label": int(c), "score": round(float(row[c]), 6)} for c in best]
        suggestions.append(
            {
                "id": samples[index]["id"],
                "label": label,
                "confidence": round(float(row[label]), 6),
                "scores": scores,
                "boxes": [],
                "value": None,
                "priority": round(float(priority[position]), 6),
                "rank": ranks.get(position),
            }
        )
    result = round_result(
        pool,
        params,
        suggestions,
        labeled=int(labeled.sum()),
        estimated=estimated,
        per_class=per_class,
        model=_model_name(pool["task_type"], model),
    )
    if unreadable:
        result["summary"]["unreadable"] = len(unreadable)
    return result


def _check_labels(labels: Sequence[int | None], n_classes: int, *, readable_only: bool = False) -> None:
    """NothingToSuggest when every sample is labeled, NotEnoughLabels under 2 classes x 2 labels."""
    readable = " readable" if readable_only else ""
    if all(label is not None for label in labels):
        raise NothingToSuggest(f"every{readable} sample is labeled: there is nothing to suggest")
    y = np.asarray([label for label in labels if label is not None], dtype=np.int64)
    counts = np.bincount(y, minlength=n_classes) if len(y) else np.zeros(n_classes, dtype=np.int64)
    if (counts >= MIN_LABELED_PER_CLASS).sum() < 2:
        raise NotEnoughLabels(
            f"smart labeling needs at least {MIN_LABELED_PER_CLASS}{readable} labeled samples in each of "
            f"2 classes; {int((counts >= MIN_LABELED_PER_CLASS).sum())} class(es) have that many"
        )


def round_result(
    pool: LabelPool,
    params: SmartLabelingParams,
    suggestions: list[SampleSuggestion],
    *,
    labeled: int,
    estimated: float | None,
    per_class: list[int],
    model: str,
) -> SmartLabelingResult:
    summary: SmartLabelingSummary = {
        "kind": "smart_labeling_summary",
        "version": SMART_LABELING_VERSION,
        "model": model,
        "strategy": params["strategy"],
        "labeled": labeled,
        "unlabeled": len(suggestions),
        "ranked": sum(1 for s in suggestions if s["rank"] is not None),
        "estimated_accuracy": None if estimated is None else round(estimated, 4),
        "per_class_suggested": per_class,
        "confidence_histogram": _histogram([s["confidence"] for s in suggestions]),
        "seconds": 0.0,
    }
    return {
        "kind": "smart_labeling_result",
        "version": SMART_LABELING_VERSION,
        "summary": summary,
        "suggestions": suggestions,
    }


def _ridge(train_x: np.ndarray, train_y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    mean_x, mean_y = train_x.mean(axis=0), float(train_y.mean())
    xc = train_x - mean_x
    weights = np.linalg.solve(xc.T @ xc + RIDGE * np.eye(xc.shape[1]), xc.T @ (train_y - mean_y))
    return lambda x: np.asarray((x - mean_x) @ weights + mean_y)


def _run_regression(
    pool: LabelPool, params: SmartLabelingParams, *, work_dir: Path, report: Report
) -> SmartLabelingResult:
    samples = pool["samples"]
    targets = [s.get("target") for s in samples]
    labeled = np.asarray([t is not None for t in targets], dtype=bool)
    if labeled.all():
        raise NothingToSuggest("every sample has a target: there is nothing to suggest")
    if labeled.sum() < MIN_TARGETS:
        raise NotEnoughLabels(
            f"smart labeling needs at least {MIN_TARGETS} samples with a target; "
            f"{int(labeled.sum())} have one"
        )
    features = read_features(pool, work_dir, scaled_report(report, 0.0, 0.5)).astype(np.float64)
    y = np.asarray([t for t in targets if t is not None], dtype=np.float64)
    x_train, x_rest = features[labeled], features[~labeled]
    rng = np.random.default_rng(params["seed"])
    report("training the quick model", fraction=0.5)
    estimated = None
    if len(y) >= 10:
        from workers.smart_labeling.quick_model import stratified_folds

        folds = stratified_folds(np.zeros(len(y), dtype=np.int64), 5, seed=params["seed"])
        predicted = np.zeros(len(y))
        for fold in range(5):
            held = folds == fold
            predicted[held] = _ridge(x_train[~held], y[~held])(x_train[held])
        total = float(((y - y.mean()) ** 2).sum())
        estimated = 1.0 - float(((y - predicted) ** 2).sum()) / total if total > 0 else None
    values = _ridge(x_train, y)(x_rest)
    draws = np.zeros((BOOTSTRAPS, len(x_rest)))
    for b in range(BOOTSTRAPS):
        report(f"bootstrap {b + 1}/{BOOTSTRAPS}", fraction=0.5 + 0.4 * b / BOOTSTRAPS)
        pick = rng.integers(0, len(y), len(y))
        draws[b] = _ridge(x_train[pick], y[pick])(x_rest)
    spread = draws.std(axis=0)
    scale = float(y.std()) or 1.0
    priority = spread / scale
    order = rank_batch(
        params["strategy"], priority, features[~labeled], x_train, params["batch_size"], seed=params["seed"]
    )
    ranks = {int(position): r + 1 for r, position in enumerate(order)}
    suggestions: list[SampleSuggestion] = []
    for position, index in enumerate(np.flatnonzero(~labeled)):
        suggestions.append(
            {
                "id": samples[index]["id"],
                "label": None,
                # 1 when the refits agree, falling as their spread nears the targets' own spread
                "confidence": round(float(np.exp(-priority[position])), 6),
                "scores": [],
                "boxes": [],
                "value": round(float(values[position]), 6),
                "priority": round(float(priority[position]), 6),
                "rank": ranks.get(position),
            }
        )
    return round_result(
        pool,
        params,
        suggestions,
        labeled=int(labeled.sum()),
        estimated=estimated,
        per_class=[],
        model=_model_name("tabular_regression"),
    )
