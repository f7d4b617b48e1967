"""Bootstrap confidence intervals of a test split's headline metrics (NumPy only, no torch).

A template's ``evaluate`` adds ``report["intervals"]`` (``MetricInterval`` each,
``workers.contracts.validation``) so a report on 15 test rows says how little 15 rows can tell.

Percentile bootstrap: ``resamples`` times, draw the split's ``n`` samples with replacement, score
the metric on the draw; ``low``/``high`` are the ``(1 - confidence) / 2`` and
``(1 + confidence) / 2`` quantiles of those scores (widened to include ``value`` when the
bootstrap distribution is skewed past it). Vectorised: a resample is a row of counts (how many
times each sample was drawn), so every metric is a matrix product over the counts; 1000
resamples of a few thousand samples take a few tens of milliseconds.

Conventions (the same as the report's own figures, so ``value`` equals the report's number):

- ``macro_f1`` averages every class, a class with no samples and no predictions in a resample
  counting 0 (``classification_metrics``' scikit-learn convention with ``zero_division=0``). On a
  tiny split a rare class missing from a resample lowers that resample's score, which widens the
  interval downwards: that is the honest spread of such a split.
- ``r2`` is 0 when the targets are constant (on the split, or in a resample that drew one sample
  value only), as the tabular report defines it.
- ``accuracy`` with every sample right (or none): every draw scores the same, so the bootstrap
  would show no spread; the interval is then the Wilson score interval of the proportion instead
  (36 of 36 right: 0.904..1). ``macro_f1`` keeps the bootstrap's (1..1 then).
- One sample: every resample is that sample, so ``low == value == high``; the interval cannot say
  anything and the report's sample count shows why.

e.g.::

    intervals = classification_intervals(y_true, probabilities)
    # [{"metric": "accuracy", "value": 0.933, "low": 0.8, "high": 1.0, "confidence": 0.95,
    #   "resamples": 1000}, {"metric": "macro_f1", ...}]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from statistics import NormalDist

import numpy as np

from workers.contracts.validation import MetricInterval

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95
# Counts matrices are built this many cells at a time (8 bytes each: under 1 MB, so a chunk stays in
# cache; measured 2x faster than one resamples x samples matrix, which a large split cannot afford).
_CHUNK_CELLS = 100_000
# With at least this many samples per unit (a classifier's distinct confusion-matrix cells) the resample
# counts come from one multinomial over the units: a binomial draw per unit costs about as much as
# drawing and counting this many samples.
_MULTINOMIAL_RATIO = 16


def _check(samples: int, resamples: int, confidence: float) -> None:
    if samples < 1:
        raise ValueError("bootstrap intervals need at least one sample, got none")
    if int(resamples) != resamples or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")


def _counts(units: np.ndarray, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Resamples as rows of draw counts per unit (float64 [rows, units]), in chunks; deterministic
    for a seed. ``units`` maps each sample to its unit (a sample itself, or the confusion-matrix cell
    a classifier's sample falls in: samples of one cell are interchangeable, so drawing cells from
    their multinomial is the same bootstrap and much cheaper)."""
    rng = np.random.default_rng(seed)
    samples = len(units)
    width = int(units.max()) + 1
    if width * _MULTINOMIAL_RATIO <= samples:
        shares = np.bincount(units, minlength=width) / samples
        yield rng.multinomial(samples, shares, size=resamples).astype(np.float64)
        return
    rows_per_chunk = max(1, _CHUNK_CELLS // samples)
    done = 0
    while done < resamples:
        rows = min(rows_per_chunk, resamples - done)
        drawn = units[rng.integers(0, samples, size=(rows, samples))]
        flat = (np.arange(rows)[:, None] * width + drawn).ravel()
        yield np.bincount(flat, minlength=rows * width).reshape(rows, width).astype(np.float64)
        done += rows


def _weighted_sums(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``counts @ values`` in NumPy's own single-threaded loops: these products are small, and a
    multithreaded BLAS spinning its threads on a busy machine made them 100x slower."""
    sums: np.ndarray = np.einsum("rk,k...->r...", counts, values)
    return sums


def _interval(metric: str, value: float, draws: np.ndarray, confidence: float) -> MetricInterval:
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return {
        "metric": metric,
        "value": float(value),
        "low": float(min(low, value)),
        "high": float(max(high, value)),
        "confidence": float(confidence),
        "resamples": int(len(draws)),
    }


def _bootstrap(
    units: np.ndarray,
    statistic: Callable[[np.ndarray], dict[str, np.ndarray]],
    *,
    seed: int,
    resamples: int,
    confidence: float,
) -> list[MetricInterval]:
    """``statistic(counts)`` returns each metric's score per row of ``counts`` (draws per unit);
    the row of each unit's own sample count is the split itself (``value``)."""
    whole = statistic(np.bincount(units).astype(np.float64)[None, :])
    draws: dict[str, list[np.ndarray]] = {name: [] for name in whole}
    for counts in _counts(units, resamples, seed):
        for name, scores in statistic(counts).items():
            draws[name].append(scores)
    return [_interval(name, float(whole[name][0]), np.concatenate(draws[name]), confidence) for name in whole]


def classification_intervals(
    y_true: np.ndarray,
    scores: np.ndarray,
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[MetricInterval]:
    """Intervals of ``accuracy`` and ``macro_f1`` on a classifier's test split.

    ``y_true``: class indices [n]; ``scores``: class scores or probabilities [n, classes] (the
    prediction is their argmax), or predicted class indices [n].
    """
    y = np.asarray(y_true)
    predictions = np.asarray(scores)
    if y.ndim != 1:
        raise ValueError(f"y_true must be one class index per sample, got shape {y.shape}")
    if predictions.ndim == 2:
        classes = predictions.shape[1]
        if classes < 1:
            raise ValueError("scores have no class columns")
        if not np.all(np.isfinite(predictions)):
            raise ValueError("scores contain NaN or infinite values")
        predicted = predictions.argmax(axis=1)
    elif predictions.ndim == 1:
        predicted = predictions.astype(np.int64)
        classes = int(max(predicted.max(initial=0), y.max(initial=0))) + 1
    else:
        raise ValueError(f"scores must be [samples, classes] or [samples], got shape {predictions.shape}")
    if len(predicted) != len(y):
        raise ValueError(f"y_true has {len(y)} samples but scores have {len(predicted)}")
    _check(len(y), resamples, confidence)
    truth = y.astype(np.int64)
    if truth.min() < 0 or truth.max() >= classes or predicted.min() < 0:
        raise ValueError(f"class indices must lie in 0..{classes - 1}")
    n = len(truth)
    cells, units = np.unique(truth * classes + predicted, return_inverse=True)
    eye = np.eye(classes)
    actual = eye[cells // classes]  # [cells, classes]
    guessed = eye[cells % classes]
    hits = actual * guessed  # one-hot of the true class where the prediction is right
    correct = hits.sum(axis=1)

    def statistic(counts: np.ndarray) -> dict[str, np.ndarray]:
        support = _weighted_sums(counts, actual)  # [rows, classes]
        flagged = _weighted_sums(counts, guessed)
        true_positive = _weighted_sums(counts, hits)
        denominator = support + flagged  # F1 = 2 TP / (predicted + support); 0 where both are 0
        f1 = np.divide(
            2.0 * true_positive, denominator, out=np.zeros_like(denominator), where=denominator > 0
        )
        return {"accuracy": _weighted_sums(counts, correct) / n, "macro_f1": f1.mean(axis=1)}

    found = _bootstrap(units.reshape(-1), statistic, seed=seed, resamples=resamples, confidence=confidence)
    accuracy = found[0]
    if n > 1 and accuracy["value"] in (0.0, 1.0):
        # every (or no) sample right: every draw scores the same, so the bootstrap shows no spread
        # although 36 of 36 right does not make the model certain; the Wilson score interval does
        accuracy["low"], accuracy["high"] = _wilson(accuracy["value"], n, confidence)
    return found


def _wilson(share: float, samples: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``share`` of ``samples``."""
    z = float(NormalDist().inv_cdf(0.5 + confidence / 2.0))
    centre = (share + z * z / (2 * samples)) / (1 + z * z / samples)
    half = (
        z * np.sqrt(share * (1 - share) / samples + z * z / (4 * samples * samples)) / (1 + z * z / samples)
    )
    return float(max(0.0, min(share, centre - half))), float(min(1.0, max(share, centre + half)))


def regression_intervals(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[MetricInterval]:
    """Intervals of ``mae``, ``rmse`` and ``r2`` on a regressor's test split (targets and
    predictions [n] each)."""
    y = np.asarray(y_true, dtype=np.float64)
    p = np.asarray(y_pred, dtype=np.float64)
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    if y.ndim != 1 or p.ndim != 1:
        raise ValueError(
            f"y_true must be [samples] and y_pred [samples] or [samples, 1], got shapes "
            f"{np.shape(y_true)} and {np.shape(y_pred)}"
        )
    if len(y) != len(p):
        raise ValueError(f"y_true has {len(y)} samples but y_pred has {len(p)}")
    _check(len(y), resamples, confidence)
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(p))):
        raise ValueError("targets or predictions contain NaN or infinite values")
    n = len(y)
    centred = y - y.mean()  # R2 is shift-invariant; centring keeps the sums of squares precise
    residual = p - y
    scale = float((centred**2).max())

    columns = np.column_stack([np.abs(residual), residual**2, centred, centred**2])

    def statistic(counts: np.ndarray) -> dict[str, np.ndarray]:
        absolute, sse, shift, squares = _weighted_sums(counts, columns).T
        total = squares - shift**2 / n
        # constant targets in the draw (total ~ 0 up to rounding): R2 is 0 by the report's convention
        constant = total <= 1e-12 * max(scale, 1e-300) * n
        r2 = np.where(constant, 0.0, 1.0 - sse / np.where(constant, 1.0, total))
        return {"mae": absolute / n, "rmse": np.sqrt(sse / n), "r2": r2}

    return _bootstrap(np.arange(n), statistic, seed=seed, resamples=resamples, confidence=confidence)
