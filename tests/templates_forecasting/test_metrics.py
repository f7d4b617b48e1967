"""Forecast scores: MASE against the training part's seasonal-naive error, sMAPE, RMSE, interval
coverage and width, filled positions never scored, per-series means and per-step errors."""

from __future__ import annotations

import numpy as np
import pytest

from workers.time_series.metrics import forecast_metrics, horizon_errors, mase_scale, point_errors


def test_mase_scale_is_the_in_sample_seasonal_naive_error() -> None:
    y = np.array([1.0, 5.0, 2.0, 6.0, 4.0, 8.0])
    assert mase_scale(y, 2) == pytest.approx(np.mean([1.0, 1.0, 2.0, 2.0]))
    assert mase_scale(y, 1) == pytest.approx(np.mean(np.abs(np.diff(y))))
    # a series no longer than a season falls back to lag 1; a constant one to its level
    assert mase_scale(y[:2], 12) == pytest.approx(4.0)
    assert mase_scale(np.full(10, 3.0), 1) == pytest.approx(3.0)
    assert mase_scale(np.zeros(10), 1) == 1.0


def test_point_errors() -> None:
    errors = point_errors(np.array([10.0, 0.0, -4.0]), np.array([12.0, 0.0, 4.0]), 2.0)
    assert errors["abs"].tolist() == [1.0, 0.0, 4.0]
    assert errors["smape"].tolist() == pytest.approx([200 * 2 / 22, 0.0, 200.0])
    assert errors["squared"].tolist() == [4.0, 0.0, 64.0]


def test_series_count_once_and_filled_positions_are_not_scored() -> None:
    actual = [np.array([10.0, 10.0, 10.0, 10.0]), np.array([100.0, 100.0])]
    mean = [np.array([11.0, 11.0, 11.0, 50.0]), np.array([90.0, 90.0])]
    observed = [np.array([True, True, True, False]), np.array([True, True])]
    lower = [a - 5 for a in mean]
    upper = [a + 5 for a in mean]
    metrics = forecast_metrics(actual, mean, lower, upper, [1.0, 10.0], observed)
    # series 1: |e| = 1 (the filled 4th position, off by 40, is skipped); series 2: 10 / 10
    assert metrics["mase"] == pytest.approx(1.0)
    assert metrics["rmse"] == pytest.approx((1.0 + 10.0) / 2)
    assert metrics["smape"] == pytest.approx((200 / 21 + 200 * 10 / 190) / 2)
    # series 1's three scored values are inside their intervals, series 2's two are outside
    assert metrics["coverage"] == pytest.approx(3 / 5)
    assert metrics["width"] == pytest.approx((10 / 10 + 10 / 100) / 2)
    no_interval = forecast_metrics(actual, mean, None, None, [1.0, 10.0], observed)
    assert no_interval["coverage"] is None and no_interval["width"] is None
    nothing = forecast_metrics([np.array([1.0])], [np.array([2.0])], None, None, [1.0], [np.array([False])])
    assert nothing["mase"] == 0.0


def test_horizon_errors_per_step() -> None:
    actual = [np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])]
    mean = [np.array([1.0, 3.0, 6.0]), np.array([1.0, 2.0, 4.0])]
    steps = horizon_errors(
        actual, mean, [1.0, 1.0], [np.array([True, True, True]), np.array([True, False, True])], 3
    )
    assert [s["mase"] for s in steps] == pytest.approx([0.0, 1.0, 2.0])
    assert steps[2]["rmse"] == pytest.approx(np.sqrt((9 + 1) / 2))
