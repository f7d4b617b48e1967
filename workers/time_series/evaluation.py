"""A forecaster's report on a dataset version's test window (the last ``horizon`` steps of each
series) and the comparison of two reports.

The forecaster forecasts each series from its history before the window (``values[:test_start]``)
with the exported model (``Forecaster.forecast_arrays``: the ONNX learned members and the
statistical members re-run from their parameters); the statistical baselines (naive, seasonal
naive, ETS, ARIMA, theta) are fitted on the same histories and scored on the same window, next to
their validation scores from the training's backtest (``backtest.json`` beside the model). Scores:
``workers.time_series.metrics`` (MASE, sMAPE, RMSE, interval coverage and width)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from workers.contracts.forecasting import (
    FORECASTING_VERSION,
    BacktestWindow,
    BaselineScores,
    ForecastComparison,
    ForecastMetricPair,
    ForecastMetrics,
    ForecastModelName,
    ForecastPlot,
    ForecastReport,
    HorizonComparison,
    HorizonScores,
    SeriesComparison,
    SeriesScores,
    TimeSeriesManifest,
)
from workers.progress import Report, silent_report
from workers.shared.atomic_files import sha256_of
from workers.time_series import baselines
from workers.time_series.data import Series, load_series
from workers.time_series.frequency import format_timestamp
from workers.time_series.metrics import forecast_metrics, horizon_errors, mase_scale, series_metrics

#: Per-series scores kept in a report (worst first) and series plotted.
MAX_PER_SERIES = 1000
MAX_PLOTS = 100
#: Plots start with this many of the worst, the best and the longest series.
PLOT_GROUP = 10
#: Series forecast per call to the model.
BATCH = 256


class _Window:
    """The scored series of one split: for each, the history end ``start`` and the window's
    length ``steps`` (up to the horizon)."""

    def __init__(self, series: list[Series], split: str, horizon: int, min_history: int) -> None:
        self.series: list[Series] = []
        self.starts: list[int] = []
        self.steps: list[int] = []
        for s in series:
            start, end = (s.val_start, s.test_start) if split == "validation" else (s.test_start, len(s))
            end = min(end, start + horizon)
            if end <= start or start < max(min_history, 1) or not s.observed[start:end].any():
                continue
            self.series.append(s)
            self.starts.append(start)
            self.steps.append(end - start)


def _known_until(s: Series, start: int, horizon: int) -> dict[str, np.ndarray]:
    """Each known covariate over the history and ``horizon`` steps after it (the last value
    repeated past the series' end)."""
    out: dict[str, np.ndarray] = {}
    for name, values in s.known.items():
        part = values[: start + horizon]
        if part.shape[0] < start + horizon:
            pad = part[-1] if part.shape[0] else 0.0
            part = np.concatenate([part, np.full(start + horizon - part.shape[0], pad)])
        out[name] = part
    return out


def _interval_quantiles(offered: Sequence[float], level: float) -> tuple[float, float]:
    """The model's quantiles nearest the interval's bounds ((1 - level) / 2 and its mirror)."""
    low, high = (1 - level) / 2, 1 - (1 - level) / 2
    return (
        min(offered, key=lambda q: abs(float(q) - low)),
        min(offered, key=lambda q: abs(float(q) - high)),
    )


def _model_name(members: Sequence[Mapping[str, Any]]) -> str:
    if len(members) == 1:
        return str(members[0]["model"])
    return "ensemble (" + ", ".join(f"{m['model']} {float(m['weight']):.2f}" for m in members) + ")"


def _read_backtest(model_path: Path) -> dict[str, Any]:
    path = (
        model_path.parent / "backtest.json" if model_path.suffix == ".onnx" else model_path / "backtest.json"
    )
    if not path.exists():
        return {"windows": [], "candidates": {}}
    loaded = json.loads(path.read_text())
    return {"windows": list(loaded.get("windows") or []), "candidates": dict(loaded.get("candidates") or {})}


def _finite(values: np.ndarray) -> np.ndarray:
    return np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)


def _plot_order(scores: list[SeriesScores], lengths: dict[str, int]) -> list[str]:
    """The worst, the best and the longest series first, then the rest worst first."""
    worst = [s["series"] for s in scores]
    best = worst[::-1]
    longest = sorted(worst, key=lambda name: -lengths[name])
    order: list[str] = []
    for group in (worst[:PLOT_GROUP], best[:PLOT_GROUP], longest[:PLOT_GROUP], worst):
        for name in group:
            if name not in order:
                order.append(name)
    return order[:MAX_PLOTS]


def evaluate(
    model_path: str | os.PathLike[str],
    manifest: TimeSeriesManifest,
    *,
    preprocessing: Mapping[str, Any] | None = None,
    split: str = "test",
    report: Report = silent_report,
    **_: Any,
) -> ForecastReport:
    """The :class:`ForecastReport` of the forecaster ``model_path`` (its ``model.onnx``, or the
    directory holding it) on ``split`` (``test``: each series' last window; ``validation``: the
    window before it) of ``manifest``."""
    from workers.time_series.predictor import Forecaster

    path = Path(model_path)
    forecaster = Forecaster(path, preprocessing=preprocessing)
    spec = forecaster.preprocessing
    frequency, series = load_series(manifest)
    horizon = min(int(manifest["horizon"]), int(spec["horizon"]))
    m = int(spec.get("season_length") or frequency.season_length)
    level = float(spec["interval_level"])
    low_q, high_q = _interval_quantiles(forecaster.quantiles, level)
    window = _Window(series, split, horizon, int(spec.get("min_history", 1)))
    if not window.series:
        raise ValueError(f"no series has a {split} window to forecast; nothing to evaluate")
    count = len(window.series)
    report(f"forecasting {count} series, horizon {horizon}", fraction=0.0, milestone=True)

    # the model
    means: list[np.ndarray] = []
    lows: list[np.ndarray] = []
    highs: list[np.ndarray] = []
    for first in range(0, count, BATCH):
        chunk = range(first, min(first + BATCH, count))
        mean, quantiles = forecaster.forecast_arrays(
            [window.series[i].values[: window.starts[i]] for i in chunk],
            [window.series[i].timestamps[window.starts[i] - 1] for i in chunk],
            [_known_until(window.series[i], window.starts[i], horizon) for i in chunk],
            [dict(window.series[i].static) for i in chunk],
            [window.series[i].id for i in chunk],
            horizon,
            [low_q, high_q],
        )
        for row, i in enumerate(chunk):
            steps = window.steps[i]
            means.append(_finite(mean[row, :steps]))
            lows.append(_finite(quantiles[row, 0, :steps]))
            highs.append(_finite(quantiles[row, 1, :steps]))
        report(
            f"forecast {min(first + BATCH, count)} of {count} series",
            fraction=0.3 * min(first + BATCH, count) / count,
            evaluated=min(first + BATCH, count),
            total=count,
        )
    actual = [
        s.values[start : start + steps]
        for s, start, steps in zip(window.series, window.starts, window.steps, strict=True)
    ]
    observed = [
        s.observed[start : start + steps]
        for s, start, steps in zip(window.series, window.starts, window.steps, strict=True)
    ]
    scales = [mase_scale(s.values[:start], m) for s, start in zip(window.series, window.starts, strict=True)]
    headline = forecast_metrics(actual, means, lows, highs, scales, observed)

    # the statistical baselines on the same histories
    baseline_forecasts: dict[str, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
    for index, model in enumerate(baselines.STATISTICAL):
        b_mean, b_low, b_high = [], [], []
        for s, start, steps in zip(window.series, window.starts, window.steps, strict=True):
            history = s.values[:start]
            try:
                params = baselines.fit(model, history, m, horizon)
                f_mean, f_q = baselines.forecast(model, params, history, m, horizon, [low_q, high_q])
            except (ValueError, np.linalg.LinAlgError, FloatingPointError):
                f_mean, f_q = baselines.forecast("naive", {}, history, m, horizon, [low_q, high_q])
            b_mean.append(_finite(f_mean[:steps]))
            b_low.append(_finite(f_q[0, :steps]))
            b_high.append(_finite(f_q[1, :steps]))
        baseline_forecasts[model] = (b_mean, b_low, b_high)
        report(f"baseline {model} fitted", fraction=0.3 + 0.6 * (index + 1) / len(baselines.STATISTICAL))
    naive_mean, naive_low, naive_high = baseline_forecasts["seasonal_naive"]
    seasonal_naive = forecast_metrics(actual, naive_mean, naive_low, naive_high, scales, observed)
    skill = 1 - headline["mase"] / seasonal_naive["mase"] if seasonal_naive["mase"] > 0 else None

    backtest = _read_backtest(path)
    candidates: dict[str, ForecastMetrics] = backtest["candidates"]
    weights = {str(member["model"]): float(member["weight"]) for member in spec["members"]}
    scored_baselines: list[BaselineScores] = []
    for model in baselines.STATISTICAL:
        b_mean, b_low, b_high = baseline_forecasts[model]
        scored_baselines.append(
            {
                "model": cast(ForecastModelName, model),
                "test": forecast_metrics(actual, b_mean, b_low, b_high, scales, observed),
                "validation": candidates.get(model),
                "chosen_weight": weights.get(model, 0.0),
            }
        )
    if len(spec["members"]) == 1 and spec["members"][0]["model"] not in baselines.STATISTICAL:
        only = str(spec["members"][0]["model"])
        scored_baselines.append(
            {
                "model": cast(ForecastModelName, only),
                "test": headline,
                "validation": candidates.get(only),
                "chosen_weight": 1.0,
            }
        )

    # per series, worst first
    per_series: list[SeriesScores] = []
    for i, s in enumerate(window.series):
        mine = series_metrics(actual[i], means[i], lows[i], highs[i], scales[i], observed[i])
        naive = series_metrics(actual[i], naive_mean[i], None, None, scales[i], observed[i])
        if mine is None or naive is None:
            continue
        per_series.append(
            {
                "series": s.id,
                "mase": mine["mase"],
                "smape": mine["smape"],
                "rmse": mine["rmse"],
                "coverage": mine["coverage"],
                "width": mine["width"],
                "seasonal_naive_mase": naive["mase"],
                "skill": 1 - mine["mase"] / naive["mase"] if naive["mase"] > 0 else None,
            }
        )
    per_series.sort(key=lambda row: -row["mase"])

    model_steps = horizon_errors(actual, means, scales, observed, horizon)
    naive_steps = horizon_errors(actual, naive_mean, scales, observed, horizon)
    reached = max(window.steps)
    by_horizon: list[HorizonScores] = [
        {
            "step": step + 1,
            "mase": model_steps[step]["mase"],
            "smape": model_steps[step]["smape"],
            "rmse": model_steps[step]["rmse"],
            "seasonal_naive_mase": naive_steps[step]["mase"],
        }
        for step in range(reached)
    ]

    windows: list[BacktestWindow] = [cast(BacktestWindow, w) for w in backtest["windows"]]
    cutoff = max(s.timestamps[start - 1] for s, start in zip(window.series, window.starts, strict=True))
    windows.append(
        {
            "index": 0,
            "role": "test" if split == "test" else "validation",
            "cutoff": format_timestamp(cutoff),
            "metrics": headline,
            "seasonal_naive": seasonal_naive,
        }
    )

    # plots: the last history points and the window
    position = {s.id: i for i, s in enumerate(window.series)}
    context = max(2 * horizon, 2 * m if m > 1 else 0, 24)
    plots: list[ForecastPlot] = []
    for name in _plot_order(per_series, {s.id: len(s) for s in window.series}):
        i = position[name]
        s, start, steps = window.series[i], window.starts[i], window.steps[i]
        first = max(0, start - context)
        stamps = s.timestamps[first : start + steps]
        values = s.values[first : start + steps]
        seen = s.observed[first : start + steps]
        plots.append(
            {
                "series": s.id,
                "timestamps": [format_timestamp(t) for t in stamps],
                "actual": [float(v) if ok else None for v, ok in zip(values, seen, strict=True)],
                "forecast_start": start - first,
                "mean": means[i].tolist(),
                "lower": lows[i].tolist(),
                "upper": highs[i].tolist(),
                "seasonal_naive": naive_mean[i].tolist(),
            }
        )
    report(f"evaluated {count} series", fraction=1.0, milestone=True, evaluated=count, total=count)
    onnx_path = path / "model.onnx" if path.is_dir() else path
    return {
        "kind": "forecast_report",
        "version": FORECASTING_VERSION,
        "split": split,
        "horizon": horizon,
        "frequency": frequency.alias,
        "season_length": m,
        "interval_level": level,
        "model_name": _model_name(spec["members"]),
        "series_count": count,
        "observations": int(sum(int(o.sum()) for o in observed)),
        "headline": headline,
        "seasonal_naive": seasonal_naive,
        "skill": skill,
        "baselines": scored_baselines,
        "per_series": per_series[:MAX_PER_SERIES],
        "by_horizon": by_horizon,
        "backtest": windows,
        "plots": plots,
        "model": {"path": os.fspath(onnx_path), "sha256": sha256_of(onnx_path)},
    }


def _pair(a: float | None, b: float | None) -> ForecastMetricPair:
    return {"a": a, "b": b, "delta": None if a is None or b is None else b - a}


def compare(a: ForecastReport, b: ForecastReport) -> ForecastComparison:
    """Two forecast reports side by side (deltas are b minus a; lower MASE is better): the headline
    scores, the skill over seasonal naive, the series both reports scored (by MASE, the largest
    change first) and the horizon steps both reached."""
    b_series = {row["series"]: row for row in b["per_series"]}
    per_series: list[SeriesComparison] = [
        {"series": row["series"], "mase": _pair(row["mase"], b_series[row["series"]]["mase"])}
        for row in a["per_series"]
        if row["series"] in b_series
    ]
    per_series.sort(key=lambda row: -abs(row["mase"]["delta"] or 0.0))
    b_steps = {row["step"]: row for row in b["by_horizon"]}
    by_horizon: list[HorizonComparison] = [
        {"step": row["step"], "mase": _pair(row["mase"], b_steps[row["step"]]["mase"])}
        for row in a["by_horizon"]
        if row["step"] in b_steps
    ]
    return {
        "kind": "forecast_comparison",
        "version": FORECASTING_VERSION,
        "mase": _pair(a["headline"]["mase"], b["headline"]["mase"]),
        "smape": _pair(a["headline"]["smape"], b["headline"]["smape"]),
        "rmse": _pair(a["headline"]["rmse"], b["headline"]["rmse"]),
        "coverage": _pair(a["headline"]["coverage"], b["headline"]["coverage"]),
        "skill": _pair(a["skill"], b["skill"]),
        "per_series": per_series,
        "by_horizon": by_horizon,
    }
