"""The learned forecasters' input rows (workers.time_series.features): the same numbers whether a
row is built in training (many cutoffs of a long series) or at serving (the history up to the
cutoff), invariant to the series' level and unit, lags at the target's phase, calendar, covariates."""

from __future__ import annotations

import numpy as np

from workers.time_series import features as F
from workers.time_series.frequency import parse_frequency, parse_timestamp


def spec(**overrides):
    base = {
        "alias": "MS",
        "season_length": 12,
        "horizon": 6,
        "context_length": 0,
        "known_covariates": ["promo"],
        "statics": [
            {"name": "region", "type": "categorical", "categories": ["north", "south"]},
            {"name": "size", "type": "numeric", "categories": []},
        ],
    }
    return F.make_features(**{**base, **overrides})


def series(n=80, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    y = 100 + 0.5 * t + 10 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 1, n)
    freq = parse_frequency("MS")
    times = freq.grid(parse_timestamp("2000-01-01"), n + 6)
    promo = (rng.random(n + 6) < 0.2).astype(float)
    return y, times, promo


def test_width_matches_the_column_names():
    s = spec()
    names = F.column_names(s)
    assert s["width"] == len(names) == len(set(names))
    assert s["context_length"] == 24  # two seasons
    assert names[:2] == ["context_24", "context_23"] and names[23] == "context_1"
    assert "lag_12" in names and "month_of_year_sin" in names and "region=south" in names
    y, times, promo = series()
    x, loc, scale = F.rows(s, y, np.array([50]), np.arange(1, 7), times[50:56][None], {"promo": promo}, {})
    assert x.shape == (6, s["width"]) and x.dtype == np.float32


def test_training_rows_equal_serving_rows_from_the_truncated_history():
    s = spec()
    y, times, promo = series()
    cutoffs = np.array([30, 41, 60])
    steps = np.arange(1, 7)
    target_times = times[cutoffs[:, None] + steps[None, :] - 1]
    static = {"region": "south", "size": 3.5}
    x_train, loc, scale = F.rows(s, y, cutoffs, steps, target_times, {"promo": promo}, static)
    for j, t in enumerate(cutoffs):
        x_serve, loc1, scale1 = F.rows(
            s, y[:t], np.array([t]), steps, target_times[j][None], {"promo": promo[: t + 6]}, static
        )
        assert np.array_equal(x_serve, x_train[j * 6 : (j + 1) * 6])
        assert loc1[0] == loc[j] and scale1[0] == scale[j]
    # the targets of those rows, unscaled, are the series' values
    target = F.scaled_targets(y, cutoffs, steps, loc, scale)
    back = F.unscale(target.reshape(3, 6), loc, scale)
    assert np.allclose(back, y[cutoffs[:, None] + steps[None, :] - 1])


def test_rows_do_not_depend_on_the_level_or_unit():
    s = spec(known_covariates=[], statics=[])
    y, times, _ = series()
    names = F.column_names(s)
    shape_columns = [i for i, n in enumerate(names) if n not in ("level", "log_scale")]
    a, *_ = F.rows(s, y, np.array([60]), np.arange(1, 7), times[60:66][None])
    b, loc, scale = F.rows(s, 1000 * y + 5e5, np.array([60]), np.arange(1, 7), times[60:66][None])
    assert np.allclose(a[:, shape_columns], b[:, shape_columns], atol=1e-4)
    assert loc[0] > 5e5


def test_lags_rolling_means_calendar_covariates_and_statics():
    s = spec()
    names = F.column_names(s)
    y, times, promo = series()
    t, steps = 50, np.arange(1, 7)
    x, loc, scale = F.rows(
        s, y, np.array([t]), steps, times[t : t + 6][None], {"promo": promo}, {"region": "north", "size": 2}
    )
    col = names.index
    # lag 12 at step k is y[t + k - 1 - 12] (the seasonal naive forecast), scaled
    assert np.allclose(x[:, col("lag_12")] * scale[0] + loc[0], y[t + steps - 1 - 12], rtol=1e-5)
    # the last context value is y[t - 1]; the rolling mean of 12 is the last 12 values' mean
    assert np.isclose(x[0, col("context_1")] * scale[0] + loc[0], y[t - 1], rtol=1e-5)
    assert np.isclose(x[0, col("rolling_12")] * scale[0] + loc[0], y[t - 12 : t].mean(), rtol=1e-5)
    assert x[:, col("step")].tolist() == [1, 2, 3, 4, 5, 6]
    # calendar: the target's month (2000-01 + 50 months = 2004-03: month index 2)
    angle = 2 * np.pi * 2 / 12
    assert np.isclose(x[0, col("month_of_year_sin")], np.sin(angle), atol=1e-6)
    assert np.isclose(x[0, col("month_of_year_cos")], np.cos(angle), atol=1e-6)
    assert np.allclose(x[:, col("promo_at_step")], promo[t : t + 6])
    assert np.all(x[:, col("promo_last")] == promo[t - 1])
    assert x[0, col("region=north")] == 1 and x[0, col("region=south")] == 0 and x[0, col("size")] == 2
    # an unknown category is all zeros
    x2, *_ = F.rows(s, y, np.array([t]), steps, times[t : t + 6][None], {"promo": promo}, {"region": "east"})
    assert x2[0, col("region=north")] == 0 and x2[0, col("region=south")] == 0 and x2[0, col("size")] == 0


def test_a_history_shorter_than_the_context_is_padded_with_its_first_value():
    s = spec(known_covariates=[], statics=[])
    y = np.array([5.0, 7.0, 6.0])
    freq = parse_frequency("MS")
    times = freq.after(parse_timestamp("2000-03-01"), 6)
    x, loc, scale = F.rows(s, y, np.array([3]), np.arange(1, 7), times[None])
    context = x[0, : s["context_length"]] * scale[0] + loc[0]
    assert np.allclose(context, [5.0] * 21 + [5.0, 7.0, 6.0], rtol=1e-5)
    assert np.all(np.isfinite(x))


def test_calendar_of_daily_and_hourly_timestamps():
    ts = np.array(["2024-01-01T00:00", "2024-01-03T06:00"], dtype="datetime64[s]")  # a Monday, a Wednesday
    values = F.calendar_values(["day_of_week", "hour_of_day"], ts)
    monday, wednesday = 0, 2  # days after Monday
    assert not np.allclose(values[0, :2], values[1, :2])
    turned = np.arctan2(values[1, 0], values[1, 1]) - np.arctan2(values[0, 0], values[0, 1])
    assert np.isclose(np.mod(turned, 2 * np.pi), 2 * np.pi * (wednesday - monday) / 7)
    assert np.isclose(values[1, 2], np.sin(2 * np.pi * 6 / 24)) and np.isclose(values[0, 2], 0.0)
