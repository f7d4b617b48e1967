"""The profile's decomposition (workers.time_series.profile, NumPy): seasonal and trend strength
near 1 for a series made of that component, near 0 for noise; None where the series is too short
or has no season; counts over every series, summaries of the longest."""

from __future__ import annotations

import numpy as np
import pytest

from workers.time_series.data import Series
from workers.time_series.frequency import parse_frequency
from workers.time_series.profile import PROFILE_MAX_SERIES, decompose_strengths, profile_series

rng = np.random.default_rng(7)
t = np.arange(240, dtype=np.float64)


def test_strengths_tell_season_trend_and_noise_apart():
    seasonal, trend = decompose_strengths(5 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 0.3, 240), 12)
    assert seasonal is not None and seasonal > 0.95 and trend is not None and trend < 0.3
    seasonal, trend = decompose_strengths(0.2 * t + rng.normal(0, 0.5, 240), 12)
    assert seasonal is not None and seasonal < 0.3 and trend is not None and trend > 0.95
    seasonal, trend = decompose_strengths(rng.normal(0, 1, 240), 12)
    assert seasonal is not None and seasonal < 0.3 and trend is not None and trend < 0.3
    # an even season (12) and an odd one (7) are both centred: a pure seasonal pattern has no trend
    for m in (7, 12):
        seasonal, trend = decompose_strengths(np.tile(rng.normal(0, 1, m), 20), m)
        assert seasonal == pytest.approx(1.0)
        assert trend is None or trend == pytest.approx(0.0, abs=1e-6)  # a flat trend explains nothing


def test_too_short_or_without_season():
    assert decompose_strengths(np.arange(20.0), 12) == (None, pytest.approx(1.0))  # < 2 seasons
    seasonal, trend = decompose_strengths(np.cumsum(rng.normal(0, 1, 50)), 1)  # yearly: no season
    assert seasonal is None and trend is not None
    assert decompose_strengths(np.array([1.0, 2.0]), 12) == (None, None)
    assert decompose_strengths(np.full(40, 3.0), 4) == (None, None)  # constant: nothing to explain


def make(name: str, n: int, missing: int = 0) -> Series:
    frequency = parse_frequency("MS")
    values = 10 + np.sin(2 * np.pi * np.arange(n) / 12)
    observed = np.ones(n, dtype=bool)
    observed[1 : 1 + missing] = False
    values[~observed] = 0.0
    return Series(
        id=name,
        item=name,
        target="y",
        timestamps=frequency.grid(np.datetime64("2020-01-01"), n),
        values=values,
        observed=observed,
    )


def test_profile_counts_every_series_and_summarises_the_longest():
    series = [make(f"s{i:03d}", 30 + i, missing=1 if i == 0 else 0) for i in range(PROFILE_MAX_SERIES + 5)]
    profile = profile_series(parse_frequency("MS"), series, "MS")
    assert profile["series_count"] == PROFILE_MAX_SERIES + 5 and len(profile["series"]) == PROFILE_MAX_SERIES
    assert profile["series"][0]["id"] == f"s{PROFILE_MAX_SERIES + 4:03d}"  # the longest first
    assert profile["shortest"] == 30 and profile["season_length"] == 12
    assert profile["observations"] == sum(30 + i for i in range(PROFILE_MAX_SERIES + 5)) - 1
    one = profile_series(parse_frequency("MS"), [series[0]], None)["series"][0]
    assert one["missing"] == 1 and one["zero_share"] == 0.0  # the filled 0 is not an observed zero
    assert one["start"] == "2020-01-01" and one["end"] == "2022-06-01" and one["length"] == 30
