"""Forecast scores: MASE (absolute errors over the in-sample seasonal-naive error of the series'
training part), sMAPE in percent (0-200), RMSE, and the prediction interval's coverage and
relative width. Over several series the point scores are the mean of the per-series scores (each
series counts once, whatever its scale); coverage pools every scored point. Positions whose actual
value was filled (``observed`` False) are never scored."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workers.contracts.forecasting import ForecastMetrics

_EPS = 1e-8


def mase_scale(y_train: np.ndarray, season_length: int) -> float:
    """The mean absolute seasonal-naive error ``mean |y_t - y_{t-m}|`` of ``y_train`` (``m`` = 1
    when the series is not longer than a season; then the scale of a constant series falls back to
    its mean absolute value, then 1), floored at a tiny positive number.

    >>> mase_scale(np.array([1.0, 2.0, 4.0, 7.0]), 1)
    2.0
    """
    y = np.asarray(y_train, dtype=np.float64)
    y = y[~np.isnan(y)]
    m = season_length if y.shape[0] > season_length else 1
    if y.shape[0] > m:
        scale = float(np.mean(np.abs(y[m:] - y[:-m])))
        if scale > _EPS:
            return scale
        if m > 1:
            scale = float(np.mean(np.abs(np.diff(y))))
            if scale > _EPS:
                return scale
    level = float(np.mean(np.abs(y))) if y.shape[0] else 0.0
    return level if level > _EPS else 1.0


def point_errors(y: np.ndarray, yhat: np.ndarray, scale: float) -> dict[str, np.ndarray]:
    """Per-step errors: ``abs`` (absolute error over ``scale``), ``smape`` (200 |e| / (|y| + |yhat|),
    0 where both are 0) and ``squared``."""
    y = np.asarray(y, dtype=np.float64)
    yhat = np.asarray(yhat, dtype=np.float64)
    error = np.abs(y - yhat)
    denominator = np.abs(y) + np.abs(yhat)
    smape = np.where(denominator > 0, 200.0 * error / np.where(denominator > 0, denominator, 1.0), 0.0)
    return {"abs": error / max(float(scale), _EPS), "smape": smape, "squared": (y - yhat) ** 2}


def series_metrics(
    actual: np.ndarray,
    mean: np.ndarray,
    lower: np.ndarray | None,
    upper: np.ndarray | None,
    scale: float,
    observed: np.ndarray | None = None,
) -> ForecastMetrics | None:
    """One series' scores over its observed positions; None when none is observed."""
    actual = np.asarray(actual, dtype=np.float64)
    mask = np.ones(actual.shape[0], bool) if observed is None else np.asarray(observed, bool)
    mask = mask & ~np.isnan(actual)
    if not mask.any():
        return None
    errors = point_errors(actual[mask], np.asarray(mean)[mask], scale)
    coverage: float | None = None
    width: float | None = None
    if lower is not None and upper is not None:
        lo, hi = np.asarray(lower)[mask], np.asarray(upper)[mask]
        inside = (actual[mask] >= lo) & (actual[mask] <= hi)
        coverage = float(np.mean(inside))
        level = float(np.mean(np.abs(actual[mask])))
        width = float(np.mean(hi - lo)) / (level if level > _EPS else max(scale, _EPS))
    return {
        "mase": float(np.mean(errors["abs"])),
        "smape": float(np.mean(errors["smape"])),
        "rmse": float(np.sqrt(np.mean(errors["squared"]))),
        "coverage": coverage,
        "width": width,
    }


def forecast_metrics(
    actual: Sequence[np.ndarray],
    mean: Sequence[np.ndarray],
    lower: Sequence[np.ndarray] | None,
    upper: Sequence[np.ndarray] | None,
    scales: Sequence[float],
    observed: Sequence[np.ndarray] | None,
) -> ForecastMetrics:
    """Scores over several series' forecasts: MASE, sMAPE and RMSE are the mean of the per-series
    scores, coverage the share of every scored actual value inside its interval, width the mean of
    the per-series relative widths (coverage and width None without intervals). Series without an
    observed value are skipped; with none at all every score is 0 (and coverage None)."""
    per_series: list[ForecastMetrics] = []
    inside = 0
    scored = 0
    for index, (y, yhat) in enumerate(zip(actual, mean, strict=True)):
        lo = None if lower is None else lower[index]
        hi = None if upper is None else upper[index]
        mask = None if observed is None else observed[index]
        metrics = series_metrics(y, yhat, lo, hi, scales[index], mask)
        if metrics is None:
            continue
        per_series.append(metrics)
        if metrics["coverage"] is not None:
            count = int(np.sum((np.ones(len(y), bool) if mask is None else mask) & ~np.isnan(y)))
            inside += round(metrics["coverage"] * count)
            scored += count
    if not per_series:
        return {"mase": 0.0, "smape": 0.0, "rmse": 0.0, "coverage": None, "width": None}
    widths = [m["width"] for m in per_series if m["width"] is not None]
    return {
        "mase": float(np.mean([m["mase"] for m in per_series])),
        "smape": float(np.mean([m["smape"] for m in per_series])),
        "rmse": float(np.mean([m["rmse"] for m in per_series])),
        "coverage": inside / scored if scored else None,
        "width": float(np.mean(widths)) if widths else None,
    }


def horizon_errors(
    actual: Sequence[np.ndarray],
    mean: Sequence[np.ndarray],
    scales: Sequence[float],
    observed: Sequence[np.ndarray] | None,
    horizon: int,
) -> list[dict[str, float]]:
    """Per horizon step (index 0 = step 1): the mean scaled absolute error (MASE), sMAPE and RMSE
    over every series observed at that step (0 where none is)."""
    abs_sum = np.zeros(horizon)
    smape_sum = np.zeros(horizon)
    sq_sum = np.zeros(horizon)
    count = np.zeros(horizon)
    for index, (y, yhat) in enumerate(zip(actual, mean, strict=True)):
        y = np.asarray(y, dtype=np.float64)[:horizon]
        steps = y.shape[0]
        mask = ~np.isnan(y)
        if observed is not None:
            mask &= np.asarray(observed[index], bool)[:steps]
        errors = point_errors(np.where(mask, y, 0.0), np.asarray(yhat)[:steps], scales[index])
        abs_sum[:steps] += np.where(mask, errors["abs"], 0.0)
        smape_sum[:steps] += np.where(mask, errors["smape"], 0.0)
        sq_sum[:steps] += np.where(mask, errors["squared"], 0.0)
        count[:steps] += mask
    safe = np.maximum(count, 1)
    return [
        {
            "mase": float(abs_sum[i] / safe[i]),
            "smape": float(smape_sum[i] / safe[i]),
            "rmse": float(np.sqrt(sq_sum[i] / safe[i])),
        }
        for i in range(horizon)
    ]
