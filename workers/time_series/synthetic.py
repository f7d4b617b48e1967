"""Synthetic multi-series data for tests and benchmarks (NumPy only, deterministic per seed).

:func:`multi_series` makes a long-format table of store sales: one row per store and timestamp
(``{"date", "store", "sales", "price", "holiday", "region"}``) with

- a seasonal pattern of the frequency's season (weekly for daily data, daily for hourly data,
  yearly for monthly data) whose shape and strength differ by store;
- a trend that changes slope once or twice per series;
- known covariates that move sales: ``price`` (promotions cut it by 15-30% for a few steps; sales
  respond with an elasticity of about -2) and ``holiday`` (0/1; sales rise by 40-80% that step);
- a static covariate ``region`` (``north``/``south``/``east``/``west``) that scales the level;
- ``intermittent`` stores (the last ones) with sparse demand: mostly zeros, integer counts.

:func:`manifest` turns such rows (or any long table) into a ``TimeSeriesManifest`` split by time
(test: the last ``horizon`` steps, validation: the ``horizon`` before), for tests and benchmarks
that skip the platform.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from workers.contracts.forecasting import FillRule, TimeSeriesEntry, TimeSeriesManifest

REGIONS = ("north", "south", "east", "west")
_REGION_LEVEL = {"north": 1.0, "south": 1.3, "east": 0.8, "west": 1.1}

#: Steps per season for the frequencies the generator supports.
SEASONS = {"min": 60, "5min": 288, "15min": 96, "30min": 48, "h": 24, "D": 7, "W": 52, "MS": 12, "QS": 4}
_FIXED_STEPS = {"min": 60, "5min": 300, "15min": 900, "30min": 1800, "h": 3600, "D": 86400, "W": 7 * 86400}


def timestamps(freq: str, n: int, start: str = "2023-01-02") -> list[str]:
    """``n`` ISO timestamps on ``freq``'s grid from ``start`` (dates alone when at midnight)."""
    first = np.datetime64(start, "s")
    if freq in _FIXED_STEPS:
        grid = first + np.arange(n) * np.timedelta64(_FIXED_STEPS[freq], "s")
    elif freq in ("MS", "QS"):
        months = np.datetime64(start, "M") + np.arange(n) * (1 if freq == "MS" else 3)
        grid = months.astype("datetime64[s]")
    else:
        raise ValueError(f"synthetic data supports the frequencies {', '.join(SEASONS)}; got {freq!r}")
    return [_iso(ts) for ts in grid]


def _iso(ts: np.datetime64) -> str:
    text = str(ts.astype("datetime64[s]"))
    return text[:10] if text.endswith("T00:00:00") else text


def multi_series(
    n_series: int = 12,
    length: int = 200,
    freq: str = "D",
    seed: int = 0,
    *,
    intermittent: int = 2,
    with_covariates: bool = True,
) -> list[dict[str, Any]]:
    """Long-format rows ``{"date", "store", "sales", "price", "holiday", "region"}``, ``length``
    timestamps per store, ordered by store then date. Without covariates the rows are
    ``{"date", "store", "sales"}`` (and sales are not moved by price or holidays)."""
    if n_series < 1 or length < 1:
        raise ValueError("n_series and length must be positive")
    intermittent = max(0, min(intermittent, n_series))
    rng = np.random.default_rng(seed)
    dates = timestamps(freq, length)
    m = SEASONS[freq]
    t = np.arange(length, dtype=np.float64)
    width = max(2, len(str(n_series)))
    # Holidays are shared by every store (a calendar), about one step in 25, never two in a row.
    holiday = np.zeros(length, dtype=np.int64)
    holiday[rng.choice(length, size=max(1, length // 25), replace=False)] = 1
    rows: list[dict[str, Any]] = []
    for s in range(n_series):
        store = f"s{s + 1:0{width}d}"
        region = REGIONS[s % len(REGIONS)]
        sparse = s >= n_series - intermittent
        # seasonal shape: two harmonics with store-specific phases, strength 15-45% of the level
        phase = rng.uniform(0, 2 * np.pi, size=2)
        shape = np.sin(2 * np.pi * t / m + phase[0]) + 0.5 * np.sin(4 * np.pi * t / m + phase[1])
        seasonal = 1.0 + rng.uniform(0.15, 0.45) * shape / 1.5
        # trend: piecewise linear, slopes change at one or two random points
        level0 = rng.uniform(40, 200) * _REGION_LEVEL[region]
        slopes = rng.uniform(-0.4, 0.8, size=3) / max(length, 1) * 2.0
        cuts = np.sort(rng.choice(np.arange(length // 5, max(length // 5 + 1, 4 * length // 5)), size=2))
        slope = np.where(t < cuts[0], slopes[0], np.where(t < cuts[1], slopes[1], slopes[2]))
        trend = np.maximum(0.2, 1.0 + np.cumsum(slope))
        base_price = round(float(rng.uniform(2.0, 20.0)), 2)
        price = np.full(length, base_price)
        effect = np.ones(length)
        if with_covariates:
            for start in rng.choice(length, size=max(1, length // 30), replace=False):
                price[start : start + int(rng.integers(3, 8))] = round(base_price * rng.uniform(0.7, 0.85), 2)
            effect = (price / base_price) ** -2.0 * (1.0 + holiday * rng.uniform(0.4, 0.8))
        mean = level0 * trend * seasonal * effect
        if sparse:
            sales = rng.poisson(mean / level0 * rng.uniform(0.3, 1.2)).astype(np.float64)
        else:
            sales = np.round(np.maximum(0.0, mean * (1.0 + rng.normal(0.0, 0.06, size=length))), 2)
        for i in range(length):
            row: dict[str, Any] = {"date": dates[i], "store": store, "sales": float(sales[i])}
            if with_covariates:
                row["price"] = float(price[i])
                row["holiday"] = int(holiday[i])
                row["region"] = region
            rows.append(row)
    return rows


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as CSV text (the first row's keys as the header; None as an empty cell)."""
    out = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def split_points(n: int, horizon: int) -> tuple[int, int]:
    """``(val_start, test_start)`` for a series of ``n`` values: test the last ``horizon``, validation
    the ``horizon`` before; a series shorter than ``3 * horizon`` is train only (both ``n``)."""
    if n < 3 * horizon:
        return n, n
    return n - 2 * horizon, n - horizon


def manifest(
    rows: Sequence[Mapping[str, Any]],
    horizon: int,
    freq: str = "D",
    *,
    timestamp_column: str = "date",
    series_column: str | None = "store",
    target_columns: Sequence[str] = ("sales",),
    known_covariates: Sequence[str] | None = None,
    static_covariates: Sequence[str] | None = None,
    fill_rule: FillRule = "interpolate",
) -> TimeSeriesManifest:
    """A ``TimeSeriesManifest`` of long-format rows already on a regular, complete grid (as
    :func:`multi_series` makes them). Covariates default to ``price``/``holiday`` (known) and
    ``region`` (static) when the rows have them."""
    first = rows[0] if rows else {}
    if known_covariates is None:
        known_covariates = [c for c in ("price", "holiday") if c in first]
    if static_covariates is None:
        static_covariates = [c for c in ("region",) if c in first]
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row[series_column]) if series_column else "", []).append(row)
    series: list[TimeSeriesEntry] = []
    for item, group in groups.items():
        group = sorted(group, key=lambda r: str(r[timestamp_column]))
        for target in target_columns:
            values = [None if r.get(target) in (None, "") else float(r[target]) for r in group]
            val_start, test_start = split_points(len(values), horizon)
            ident = item if len(target_columns) == 1 and item else (f"{item}/{target}" if item else target)
            series.append(
                {
                    "id": ident,
                    "item": item,
                    "target": target,
                    "start": str(group[0][timestamp_column]),
                    "values": values,
                    "known": {c: [float(r[c]) for r in group] for c in known_covariates},
                    "static": {c: group[0][c] for c in static_covariates},
                    "val_start": val_start,
                    "test_start": test_start,
                }
            )
    return {
        "kind": "time_series",
        "version": 1,
        "frequency": freq,
        "horizon": horizon,
        "fill_rule": fill_rule,
        "timestamp_column": timestamp_column,
        "series_column": series_column,
        "target_columns": list(target_columns),
        "known_covariates": list(known_covariates),
        "static_covariates": list(static_covariates),
        "series": series,
    }
