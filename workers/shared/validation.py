"""Cross-validation for small data, shared by the templates' trainers (NumPy only, no torch).

A trainer decides whether to cross-validate with :func:`plan`, draws its folds with
:func:`kfold_indices` (stratified for classes) over the train and val splits together, scores each
held-out fold, and describes the outcome with :func:`summarize` (the ``CrossValidation`` contract,
``workers.contracts.validation``), which it returns as ``result["cross_validation"]``.

e.g.::

    decision = plan("auto", samples=len(rows), threshold=5000, folds=5)
    if decision.cross_validate:
        for fold, (fit, held_out) in enumerate(kfold_indices(labels, decision.folds, seed=0)):
            ...
        result["cross_validation"] = summarize(scores, metric="accuracy", direction="maximize",
                                               chosen={"n_estimators": 212}, reason=decision.reason)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from workers.contracts.templates import ParamValue
from workers.contracts.validation import (
    VALIDATION_MODES,
    VALIDATION_VERSION,
    CandidateScore,
    CrossValidation,
    FoldScore,
)

# Below this many samples (train + val) ``validation="auto"`` cross-validates (templates may pass
# their own threshold: a CNN's fold costs more than a tree's).
DEFAULT_THRESHOLD = 5000
DEFAULT_FOLDS = 5


@dataclass(frozen=True)
class ValidationPlan:
    """What a run will do: ``cross_validate`` with ``folds`` folds, or hold out the val split;
    ``reason`` says why in words (it becomes ``CrossValidation.reason``)."""

    cross_validate: bool
    folds: int
    reason: str
    # the reason as a stable code and its values (CrossValidation.reason_code/_params), for the UI
    code: str = ""
    params: Mapping[str, int] = field(default_factory=dict)


def plan(
    mode: str,
    *,
    samples: int,
    threshold: int = DEFAULT_THRESHOLD,
    folds: int = DEFAULT_FOLDS,
    min_per_fold: int = 2,
) -> ValidationPlan:
    """Decide between k-fold cross-validation and the holdout val split.

    ``mode``: ``auto`` (k-fold when ``samples`` < ``threshold``), ``holdout`` or
    ``cross_validation``. Folds are capped so each holds at least ``min_per_fold`` samples.
    """
    if mode not in VALIDATION_MODES:
        raise ValueError(f"validation must be one of {', '.join(VALIDATION_MODES)}, got {mode!r}")
    k = max(2, min(int(folds), samples // max(1, min_per_fold)))
    if mode == "holdout" or samples < 2 * min_per_fold:
        return ValidationPlan(False, 0, "holdout: the model is chosen on the val split")
    if mode == "cross_validation":
        return ValidationPlan(
            True,
            k,
            f"{k}-fold cross-validation over {samples:,} samples (asked for)",
            "cv_asked",
            {"folds": k, "samples": samples},
        )
    if samples < threshold:
        return ValidationPlan(
            True,
            k,
            f"{samples:,} samples (fewer than {threshold:,}): {k}-fold cross-validation chooses the model "
            "and its stopping point, then the final model trains on all of them",
            "cv_small_data",
            {"folds": k, "samples": samples, "threshold": threshold},
        )
    return ValidationPlan(
        False, 0, f"{samples:,} samples (at least {threshold:,}): the val split chooses the model"
    )


def kfold_indices(
    labels: Sequence[int] | np.ndarray | None, folds: int, *, seed: int, samples: int | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``folds`` (fit, held_out) index pairs covering every sample once as held out.

    With ``labels`` (class indices) the folds are stratified: each class is shuffled and dealt round
    robin, so every fold holds about the same share of each class. Without (regression), pass
    ``samples``; the order is shuffled with ``seed``.
    """
    rng = np.random.default_rng(seed)
    if labels is not None:
        y = np.asarray(labels)
        n = len(y)
        assignment = np.empty(n, dtype=np.int64)
        offset = 0
        for cls in np.unique(y):
            members = np.flatnonzero(y == cls)
            rng.shuffle(members)
            assignment[members] = (np.arange(len(members)) + offset) % folds
            offset += len(members)  # spreads the remainders of small classes over different folds
    else:
        if samples is None:
            raise ValueError("kfold_indices needs labels or samples")
        n = samples
        assignment = rng.permutation(n) % folds
    if n < folds:
        raise ValueError(f"{folds} folds need at least {folds} samples, got {n}")
    pairs = []
    for fold in range(folds):
        held_out = np.flatnonzero(assignment == fold)
        fit = np.flatnonzero(assignment != fold)
        pairs.append((fit, held_out))
    return pairs


def summarize(
    scores: Sequence[FoldScore] | Sequence[Mapping[str, float | int]],
    *,
    metric: str,
    direction: Literal["maximize", "minimize"],
    chosen: Mapping[str, ParamValue],
    reason: str,
    method: Literal["kfold", "repeated_split"] = "kfold",
    candidates: Sequence[CandidateScore] | None = None,
    plan: ValidationPlan | None = None,
) -> CrossValidation:
    """The ``CrossValidation`` contract from per-fold scores (``fold``, ``train_samples``,
    ``samples``, ``score`` each); std is the sample standard deviation (0 for one fold)."""
    folds: list[FoldScore] = [
        {
            "fold": int(s["fold"]),
            "train_samples": int(s["train_samples"]),
            "samples": int(s["samples"]),
            "score": float(s["score"]),
        }
        for s in scores
    ]
    if not folds:
        raise ValueError("summarize needs at least one fold score")
    values = np.asarray([f["score"] for f in folds], dtype=np.float64)
    described: CrossValidation = {
        "kind": "cross_validation",
        "version": VALIDATION_VERSION,
        "method": method,
        "folds": len(folds),
        "metric": metric,
        "direction": direction,
        "samples": int(sum(f["samples"] for f in folds)),
        "scores": folds,
        "mean": float(values.mean()),
        "std": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
        "chosen": dict(chosen),
        "reason": reason,
    }
    if candidates:
        described["candidates"] = list(candidates)
    if plan is not None and plan.code:
        described["reason_code"] = plan.code
        described["reason_params"] = dict(plan.params)
    return described


def candidate(
    name: str, scores: Sequence[float], *, chosen: bool, weight: float | None = None
) -> CandidateScore:
    """A ``CandidateScore`` from a model's per-fold scores."""
    values = np.asarray(scores, dtype=np.float64)
    entry: CandidateScore = {
        "name": name,
        "mean": float(values.mean()),
        "std": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
        "chosen": chosen,
    }
    if weight is not None:
        entry["weight"] = float(weight)
    return entry
