"""The input rows of the learned forecasters (LightGBM, the neural network): NumPy only, shared by
training and serving (packages vendor this file).

A row is one (series, cutoff, step): it forecasts the value ``step`` steps after the history's last
point (the direct strategy; the recursive one uses step 1 and feeds each forecast back). Its columns,
in this order (``ForecastFeatures.width`` of them):

1. the last ``context_length`` values of the history, scaled: ``(y - loc) / scale`` where ``loc``
   and ``scale`` are the context's mean and standard deviation (``scaling`` ``"std"``), 0 and its
   mean absolute value (``"mean_abs"``) or 0 and 1 (``"none"``); a history shorter than the context
   is padded on the left with its first value;
2. per lag ``L`` of ``lags``: the scaled value ``L * ceil(step / L)`` steps before the target (the
   latest value at the target's phase of an ``L``-cycle; ``L`` = the season length is the seasonal
   naive forecast);
3. per window ``w`` of ``rolling_windows``: the mean of the last ``w`` scaled values;
4. the step (1-based); the level (``sign(loc) * log1p(|loc|)``) and ``log(scale)``;
5. per ``calendar`` feature of the target's timestamp: its sine and cosine;
6. per known covariate: its value at the target's step and at the history's last point;
7. per static covariate: a number (``type`` ``"numeric"``, 0 when missing) or one column per
   category (``"categorical"``, one-hot; an unknown category is all zeros).

The model predicts the scaled target ``(y - loc) / scale``; :func:`unscale` maps it back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from workers.contracts.forecasting import ForecastFeatures

#: Calendar features per frequency (each gives a sine and a cosine column).
CALENDAR: dict[str, list[str]] = {
    "min": ["minute_of_hour", "hour_of_day", "day_of_week"],
    "5min": ["minute_of_hour", "hour_of_day", "day_of_week"],
    "15min": ["minute_of_hour", "hour_of_day", "day_of_week"],
    "30min": ["hour_of_day", "day_of_week"],
    "h": ["hour_of_day", "day_of_week"],
    "D": ["day_of_week", "day_of_year", "month_of_year"],
    "W": ["week_of_year", "month_of_year"],
    "MS": ["month_of_year"],
    "ME": ["month_of_year"],
    "QS": ["quarter_of_year"],
    "QE": ["quarter_of_year"],
    "YS": [],
    "YE": [],
}

MAX_CONTEXT = 192


def auto_context(season_length: int, horizon: int) -> int:
    """The default context: two seasons, at least the horizon and 8 points, at most
    :data:`MAX_CONTEXT`."""
    return int(min(max(2 * season_length, horizon, 8), MAX_CONTEXT))


def make_features(
    *,
    alias: str,
    season_length: int,
    horizon: int,
    context_length: int,
    known_covariates: Sequence[str],
    statics: Sequence[Mapping[str, Any]],
    scaling: str = "std",
) -> ForecastFeatures:
    """The feature spec: ``statics`` are ``{"name", "type", "categories"}`` (see
    :func:`static_columns`)."""
    context = int(context_length) or auto_context(season_length, horizon)
    lags = sorted({lag for lag in (season_length, 2 * season_length) if 1 < lag <= 4 * MAX_CONTEXT})
    windows = sorted({w for w in (season_length, 2 * season_length, 4) if 1 < w <= context})
    spec: ForecastFeatures = {
        "context_length": context,
        "lags": lags,
        "rolling_windows": windows,
        "calendar": list(CALENDAR.get(alias, [])),
        "scaling": scaling,  # type: ignore[typeddict-item]
        "known_covariates": list(known_covariates),
        "static_covariates": [dict(s) for s in statics],
        "width": 0,
    }
    spec["width"] = len(column_names(spec))
    return spec


def static_columns(values: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[dict[str, Any]]:
    """Each static covariate's description from the training series' values: numeric when every
    present value is a number, else categorical over the values seen (sorted, up to 50)."""
    out: list[dict[str, Any]] = []
    for name in names:
        seen = [v.get(name) for v in values if v.get(name) is not None]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in seen):
            out.append({"name": name, "type": "numeric", "categories": []})
        else:
            categories = sorted({str(v) for v in seen})[:50]
            out.append({"name": name, "type": "categorical", "categories": categories})
    return out


def column_names(spec: ForecastFeatures) -> list[str]:
    names = [f"context_{i}" for i in range(spec["context_length"], 0, -1)]
    names += [f"lag_{lag}" for lag in spec["lags"]]
    names += [f"rolling_{w}" for w in spec["rolling_windows"]]
    names += ["step", "level", "log_scale"]
    for cal in spec["calendar"]:
        names += [f"{cal}_sin", f"{cal}_cos"]
    for cov in spec["known_covariates"]:
        names += [f"{cov}_at_step", f"{cov}_last"]
    for static in spec["static_covariates"]:
        if static["type"] == "numeric":
            names.append(str(static["name"]))
        else:
            names += [f"{static['name']}={c}" for c in static["categories"]]
    return names


def anchor_column(spec: ForecastFeatures, season_length: int) -> int:
    """The column a learned member's output is added to (its forecast is a correction of it): the
    seasonal lag when the season is longer than 1 step, else the last value."""
    names = column_names(spec)
    if season_length > 1 and f"lag_{season_length}" in names:
        return names.index(f"lag_{season_length}")
    return names.index("context_1")


def calendar_values(names: Sequence[str], timestamps: np.ndarray) -> np.ndarray:
    """(len(timestamps), 2 * len(names)): the sine and cosine of each calendar feature."""
    ts = np.asarray(timestamps).astype("datetime64[s]")
    out = np.zeros(ts.shape + (2 * len(names),), dtype=np.float64)
    if not names:
        return out
    day = ts.astype("datetime64[D]")
    seconds = (ts - day).astype(np.int64)
    month = day.astype("datetime64[M]")
    year = day.astype("datetime64[Y]")
    for i, name in enumerate(names):
        if name == "minute_of_hour":
            phase, period = (seconds // 60) % 60, 60.0
        elif name == "hour_of_day":
            phase, period = seconds / 3600.0, 24.0
        elif name == "day_of_week":
            phase, period = (day.astype(np.int64) + 3) % 7, 7.0  # 1970-01-01 was a Thursday
        elif name == "day_of_year":
            phase, period = (day - year.astype("datetime64[D]")).astype(np.int64), 365.25
        elif name == "week_of_year":
            phase, period = (day - year.astype("datetime64[D]")).astype(np.int64) / 7.0, 52.18
        elif name == "month_of_year":
            phase, period = month.astype(np.int64) % 12, 12.0
        elif name == "quarter_of_year":
            phase, period = (month.astype(np.int64) % 12) // 3, 4.0
        else:
            raise ValueError(f"unknown calendar feature {name!r}")
        angle = 2 * math.pi * np.asarray(phase, dtype=np.float64) / period
        out[..., 2 * i] = np.sin(angle)
        out[..., 2 * i + 1] = np.cos(angle)
    return out


def _loc_scale(context: np.ndarray, scaling: str) -> tuple[np.ndarray, np.ndarray]:
    mean_abs = np.mean(np.abs(context), axis=-1)
    if scaling == "none":
        return np.zeros(context.shape[0]), np.ones(context.shape[0])
    if scaling == "mean_abs":
        loc = np.zeros(context.shape[0])
        scale = mean_abs
    else:
        loc = np.mean(context, axis=-1)
        scale = np.maximum(np.std(context, axis=-1), 1e-3 * mean_abs)
    scale = np.where(scale > 1e-8, scale, 1.0)
    return loc, scale


def history_depth(spec: ForecastFeatures) -> int:
    """How many past points the rows read (shorter histories are padded)."""
    return max([spec["context_length"], *spec["lags"], *spec["rolling_windows"]])


def rows(
    spec: ForecastFeatures,
    y: np.ndarray,
    cutoffs: np.ndarray,
    steps: np.ndarray,
    target_times: np.ndarray,
    known: Mapping[str, np.ndarray] | None = None,
    static: Mapping[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of one series: for each cutoff ``t`` (the history is ``y[:t]``, ``t >= 1``) and each
    step ``k`` of ``steps``, in that order (cutoff-major). ``target_times`` is (len(cutoffs),
    len(steps)), the timestamps of the targets ``y[t + k - 1]``; ``known[name]`` covers positions up
    to ``max(t) + max(k) - 1``. Returns ``(x float32 (len(cutoffs) * len(steps), width), loc,
    scale)`` with loc and scale per cutoff."""
    y = np.asarray(y, dtype=np.float64)
    cutoffs = np.asarray(cutoffs, dtype=np.int64)
    steps = np.asarray(steps, dtype=np.int64)
    n_c, n_s = cutoffs.shape[0], steps.shape[0]
    depth = history_depth(spec)
    pad = np.concatenate([np.full(depth, y[0] if y.size else 0.0), y])
    c = spec["context_length"]
    # context of cutoff t: pad[t + depth - c : t + depth]
    index = cutoffs[:, None] + depth - c + np.arange(c)[None, :]
    context = pad[index]
    loc, scale = _loc_scale(context, spec["scaling"])
    scaled_context = (context - loc[:, None]) / scale[:, None]
    columns: list[np.ndarray] = [np.repeat(scaled_context, n_s, axis=0)]
    k = np.tile(steps, n_c)
    t = np.repeat(cutoffs, n_s)
    loc_r, scale_r = np.repeat(loc, n_s), np.repeat(scale, n_s)
    for lag in spec["lags"]:
        back = lag * -(-k // lag)
        value = pad[t + k - 1 - back + depth]
        columns.append(((value - loc_r) / scale_r)[:, None])
    for w in spec["rolling_windows"]:
        columns.append(np.repeat(scaled_context[:, c - w :].mean(axis=1), n_s)[:, None])
    columns.append(k[:, None].astype(np.float64))
    columns.append((np.sign(loc_r) * np.log1p(np.abs(loc_r)))[:, None])
    columns.append(np.log(scale_r)[:, None])
    if spec["calendar"]:
        columns.append(
            calendar_values(spec["calendar"], np.asarray(target_times).reshape(-1)).reshape(n_c * n_s, -1)
        )
    known = known or {}
    for name in spec["known_covariates"]:
        series = np.asarray(known[name], dtype=np.float64)
        at = np.clip(t + k - 1, 0, series.shape[0] - 1)
        last = np.clip(t - 1, 0, series.shape[0] - 1)
        columns.append(np.stack([series[at], series[last]], axis=1))
    static = static or {}
    for desc in spec["static_covariates"]:
        value = static.get(str(desc["name"]))
        if desc["type"] == "numeric":
            number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
            columns.append(np.full((n_c * n_s, 1), number if math.isfinite(number) else 0.0))
        else:
            one_hot = np.array([1.0 if str(value) == cat else 0.0 for cat in desc["categories"]])
            columns.append(np.tile(one_hot, (n_c * n_s, 1)))
    x = np.concatenate(columns, axis=1).astype(np.float32)
    return x, loc, scale


def scaled_targets(
    y: np.ndarray, cutoffs: np.ndarray, steps: np.ndarray, loc: np.ndarray, scale: np.ndarray
) -> np.ndarray:
    """The training targets of :func:`rows`: ``(y[t + k - 1] - loc) / scale`` per row."""
    t = np.repeat(np.asarray(cutoffs, dtype=np.int64), len(steps))
    k = np.tile(np.asarray(steps, dtype=np.int64), len(cutoffs))
    return np.asarray((y[t + k - 1] - np.repeat(loc, len(steps))) / np.repeat(scale, len(steps)))


def unscale(values: np.ndarray, loc: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Scaled model outputs (n, ...) back to the series' units with each series' loc and scale (n,)."""
    shape = (-1,) + (1,) * (values.ndim - 1)
    return np.asarray(values * np.asarray(scale).reshape(shape) + np.asarray(loc).reshape(shape))
