"""A forecasting dataset's profile (``workers.contracts.forecasting.TimeSeriesProfile``): per-series
length, gaps, level, spread, intermittency, and seasonal and trend strength from a moving-average
decomposition. NumPy only: the web process computes it after every import.

Strengths follow the STL convention (Wang, Smith & Hyndman 2006; Hyndman & Athanasopoulos, *FPP3*
4.3): with trend ``T``, seasonal component ``S`` and remainder ``R``,
``trend_strength = max(0, 1 - var(R) / var(T + R))`` and
``seasonal_strength = max(0, 1 - var(R) / var(S + R))``. The decomposition is the classical one: a
centred moving average of the season's length (a 2xm average for an even ``m``) is the trend, the
mean of the detrended values at each phase (centred to sum to 0) the seasonal component.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from workers.contracts.forecasting import FORECASTING_VERSION, SeriesProfile, TimeSeriesProfile

if TYPE_CHECKING:
    from workers.time_series.data import Series
    from workers.time_series.frequency import Frequency

#: Per-series summaries kept in a profile (the longest series first); ``series_count`` counts all.
PROFILE_MAX_SERIES = 200
#: Only the last points of a very long series are decomposed (the strengths describe recent behaviour).
DECOMPOSE_MAX_POINTS = 20_000
#: The trend's window when the frequency has no season (yearly data): a short centred average.
NON_SEASONAL_WINDOW = 3


def _moving_average(y: np.ndarray, window: int) -> np.ndarray:
    """Centred moving average; NaN where the window does not fit. An even window is a 2 x window
    average (the classical decomposition's centring), so the result is aligned with ``y``."""
    n = len(y)
    out = np.full(n, np.nan)
    if window <= 1:
        return y.astype(np.float64).copy()
    csum = np.concatenate(([0.0], np.cumsum(y, dtype=np.float64)))
    if window % 2:
        if n < window:
            return out
        half = window // 2
        out[half : n - half] = (csum[window:] - csum[:-window]) / window
        return out
    if n < window + 1:
        return out
    plain = (csum[window:] - csum[:-window]) / window  # plain[i] averages y[i : i + window]
    centred = (plain[:-1] + plain[1:]) / 2.0  # centred[i] is centred on y[i + window // 2]
    half = window // 2
    out[half : half + len(centred)] = centred
    return out


def _strength(remainder: np.ndarray, component: np.ndarray) -> float | None:
    total = np.var(component + remainder)
    if not np.isfinite(total) or total <= 1e-12:
        return None
    return float(min(1.0, max(0.0, 1.0 - np.var(remainder) / total)))


def decompose_strengths(y: np.ndarray, season_length: int) -> tuple[float | None, float | None]:
    """(seasonal strength, trend strength) of a gap-free series, each in [0, 1]; None when the
    series is too short for it (seasonal: fewer than two full seasons or no season at all; trend:
    fewer points than the trend window plus 2) or constant."""
    y = np.asarray(y, dtype=np.float64)[-DECOMPOSE_MAX_POINTS:]
    m = int(season_length)
    seasonal_possible = m > 1 and len(y) >= 2 * m
    window = m if seasonal_possible else NON_SEASONAL_WINDOW
    if len(y) < window + 2:
        return None, None
    trend = _moving_average(y, window)
    valid = np.isfinite(trend)
    if valid.sum() < 3:
        return None, None
    detrended = y - trend
    seasonal = np.zeros(len(y))
    if seasonal_possible:
        phases = np.arange(len(y)) % m
        means = np.zeros(m)
        for phase in range(m):
            picked = detrended[valid & (phases == phase)]
            means[phase] = picked.mean() if len(picked) else 0.0
        means -= means.mean()
        seasonal = means[phases]
    remainder = (detrended - seasonal)[valid]
    trend_strength = _strength(remainder, trend[valid])
    seasonal_strength = _strength(remainder, seasonal[valid]) if seasonal_possible else None
    return seasonal_strength, trend_strength


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def series_profile(frequency: Frequency, series: Series) -> SeriesProfile:
    """One series' summary (statistics over its observed values; the decomposition over the filled ones)."""
    from workers.time_series.frequency import format_timestamp

    values = np.asarray(series.values, dtype=np.float64)
    observed = np.asarray(series.observed, dtype=bool)
    length = len(values)
    seen = values[observed & np.isfinite(values)]
    missing = int(length - observed.sum())
    seasonal, trend = (None, None)
    if length and np.isfinite(values).all():
        seasonal, trend = decompose_strengths(values, frequency.season_length)
    return {
        "id": series.id,
        "item": series.item,
        "target": series.target,
        "start": format_timestamp(series.timestamps[0]) if length else "",
        "end": format_timestamp(series.timestamps[-1]) if length else "",
        "length": length,
        "missing": missing,
        "missing_share": missing / length if length else 0.0,
        "mean": _number(seen.mean()) if len(seen) else None,
        "std": _number(seen.std()) if len(seen) else None,
        "minimum": _number(seen.min()) if len(seen) else None,
        "maximum": _number(seen.max()) if len(seen) else None,
        "season_length": frequency.season_length,
        "seasonal_strength": seasonal,
        "trend_strength": trend,
        "zero_share": float((seen == 0).mean()) if len(seen) else 0.0,
    }


def profile_series(
    frequency: Frequency, series: Sequence[Series], frequency_inferred: str | None
) -> TimeSeriesProfile:
    """The dataset's profile: counts over every series, summaries of the longest
    ``PROFILE_MAX_SERIES`` (ties by id).

    e.g. ``profile_series(parse_frequency("MS"), load_series(manifest)[1], "MS")["series"][0]
    ["seasonal_strength"]`` -> ``0.98`` for the CO2 record."""
    lengths = [len(s.values) for s in series]
    total = sum(lengths)
    missing = sum(int(len(s.values) - np.asarray(s.observed, dtype=bool).sum()) for s in series)
    chosen = sorted(series, key=lambda s: (-len(s.values), s.id))[:PROFILE_MAX_SERIES]
    return {
        "kind": "time_series_profile",
        "version": FORECASTING_VERSION,
        "frequency": frequency.alias,
        "frequency_inferred": frequency_inferred,
        "season_length": frequency.season_length,
        "series_count": len(series),
        "observations": total - missing,
        "missing_share": missing / total if total else 0.0,
        "shortest": min(lengths) if lengths else 0,
        "longest": max(lengths) if lengths else 0,
        "series": [series_profile(frequency, s) for s in chosen],
    }
