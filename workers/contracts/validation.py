"""How a run was validated, and how sure its test figures are: the cross-validation a small-data run
used to choose its model and stopping point, and bootstrap intervals of the test split's metrics.

A trainer returns :class:`CrossValidation` as ``result["cross_validation"]`` when it ran k-fold (or
repeated splits); the training service copies it into the evaluation report
(``report["cross_validation"]``). The template's ``evaluate`` adds ``report["intervals"]``
(:class:`MetricInterval`, one per headline metric) from a bootstrap over the test split, so the
report shows the spread rather than one number from a few test rows.

e.g. ``report["cross_validation"]["mean"]``, ``report["intervals"][0]["low"]``
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.templates import ParamValue

VALIDATION_VERSION = 1

# auto: k-fold below the template's size threshold, holdout above it; holdout: the val split only;
# cross_validation: k-fold (or repeated splits) whatever the size.
ValidationMode = Literal["auto", "holdout", "cross_validation"]
VALIDATION_MODES: tuple[str, ...] = ("auto", "holdout", "cross_validation")


class FoldScore(TypedDict):
    """One fold: trained on ``train_samples``, scored on the ``samples`` it held out."""

    fold: int
    train_samples: int
    samples: int
    score: float


class CandidateScore(TypedDict):
    """A model the folds compared (e.g. ``gbdt``, ``linear``, ``mlp``, ``ensemble``): its mean and
    standard deviation over the folds, its ensemble ``weight`` where it is a member, and whether it
    is the one the run kept."""

    name: str
    mean: float
    std: float
    weight: NotRequired[float]
    chosen: bool


class CrossValidation(TypedDict):
    """k-fold cross-validation (or repeated random splits) over the train and val splits together.

    ``metric`` is scored on each held-out fold in ``direction``; ``mean``/``std`` summarise
    ``scores`` (std: the sample standard deviation over folds). ``chosen`` holds what the folds
    decided (e.g. ``{"n_estimators": 212}``, ``{"epochs": 14}``); the final model is then trained on
    all ``samples`` with it. ``reason`` says, in words, why the run cross-validated.
    """

    kind: Literal["cross_validation"]
    version: int
    method: Literal["kfold", "repeated_split"]
    folds: int
    metric: str
    direction: Literal["maximize", "minimize"]
    samples: int
    scores: list[FoldScore]
    mean: float
    std: float
    chosen: dict[str, ParamValue]
    candidates: NotRequired[list[CandidateScore]]
    reason: str
    # the reason as a stable code (cv_asked, cv_small_data) and its values, for the UI's languages
    reason_code: NotRequired[str]
    reason_params: NotRequired[dict[str, int]]


class MetricInterval(TypedDict):
    """A percentile-bootstrap confidence interval of one test-split metric (e.g. ``accuracy``,
    ``macro_f1``, ``rmse``, ``r2``): ``value`` on the whole split, ``low``..``high`` at
    ``confidence`` over ``resamples`` resamples of the split's samples."""

    metric: str
    value: float
    low: float
    high: float
    confidence: float
    resamples: int
