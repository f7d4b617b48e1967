"""Serving forecasters (workers.time_series.predictor): the serving class answers a request body,
refuses bad histories with the request checks' codes, falls back for series it was not trained on,
and runs without pandas, scipy, statsmodels, torch or LightGBM."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from workers.time_series import synthetic
from workers.time_series.data import load_series
from workers.time_series.frequency import format_timestamp
from workers.time_series.predictor import Forecaster, ForecastInputError, ForecastServingPredictor
from workers.time_series.trainer import train


@pytest.fixture(scope="module")
def sales():
    return synthetic.manifest(synthetic.multi_series(n_series=4, length=120, seed=2), 7)


@pytest.fixture(scope="module")
def lightgbm_dir(sales, tmp_path_factory):
    out = tmp_path_factory.mktemp("lgb")
    train({"preset": "fast", "model": "lightgbm", "n_estimators": 40, "strategy": "recursive"}, sales, out)
    return out


@pytest.fixture(scope="module")
def ets_dir(sales, tmp_path_factory):
    out = tmp_path_factory.mktemp("ets")
    train({"preset": "fast", "model": "ets"}, sales, out)
    return out


def instance(s, cut, horizon=7, **extra):
    return {
        "id": s.id,
        "timestamps": [format_timestamp(t) for t in s.timestamps[:cut]],
        "values": s.values[:cut].tolist(),
        "known": {k: v[: cut + horizon].tolist() for k, v in s.known.items()},
        **extra,
    }


def test_serving_class_answers_a_request_body(lightgbm_dir, sales):
    predictor = ForecastServingPredictor(lightgbm_dir / "model.onnx")
    assert (
        predictor.template == "time_series_forecasting" and predictor.prediction_kind == "forecast_prediction"
    )
    assert predictor.classes == [] and predictor.data_kind == "time_series"
    contract = predictor.contract()
    assert contract["frequency"] == "D" and contract["horizon"] == 7
    assert contract["known_covariates"] == ["price", "holiday"] and contract["static_covariates"] == [
        "region"
    ]
    assert contract["series_ids"] == ["s01", "s02", "s03", "s04"]
    assert json.loads(json.dumps(contract)) == contract
    _, series = load_series(sales)
    body = {"instances": [instance(s, s.test_start) for s in series], "quantiles": [0.1, 0.5, 0.9]}
    answers = predictor.forecast(body)
    assert [a["id"] for a in answers] == ["s01", "s02", "s03", "s04"]
    for s, a in zip(series, answers, strict=True):
        assert a["timestamps"] == [format_timestamp(t) for t in s.timestamps[s.test_start :]]
        low, mid, high = (np.array(a["quantiles"][k]) for k in ("0.1", "0.5", "0.9"))
        assert np.all(low <= mid) and np.all(mid <= high)
        assert np.allclose(a["mean"], mid)  # the learned member's point forecast is its median
        # sales are positive and of the series' size
        assert 0.2 * s.values.mean() < np.mean(a["mean"]) < 5 * s.values.mean()


def test_bad_requests_name_the_series_and_position(lightgbm_dir, sales):
    predictor = ForecastServingPredictor(lightgbm_dir / "model.onnx")
    _, series = load_series(sales)
    good = instance(series[0], 60)
    bad = instance(series[1], 60)
    bad["values"][5] = None
    with pytest.raises(ForecastInputError) as caught:
        predictor.forecast({"instances": [good, bad]})
    assert caught.value.code == "history_not_numeric"
    assert caught.value.details["series"] == 1 and caught.value.details["position"] == 5
    with pytest.raises(ForecastInputError) as caught:
        predictor.forecast({"instances": [good], "horizon": 8})
    assert caught.value.code == "horizon_out_of_range"
    with pytest.raises(ForecastInputError) as caught:
        predictor.forecast({"instances": [good], "quantiles": [0.3]})
    assert caught.value.code == "unknown_quantile"
    no_known = {k: v for k, v in good.items() if k != "known"}
    with pytest.raises(ForecastInputError) as caught:
        predictor.forecast({"instances": [no_known]})
    assert caught.value.code == "missing_covariate"
    with pytest.raises(ForecastInputError):
        predictor.forecast({"series": []})


def test_recursive_strategy_runs_one_step_at_a_time(lightgbm_dir, sales):
    forecaster = Forecaster(lightgbm_dir)
    assert forecaster.preprocessing["members"][0]["params"]["strategy"] == "recursive"
    _, series = load_series(sales)
    s = series[0]
    one = forecaster.forecast([instance(s, 80, horizon=1)], horizon=1)[0]["mean"]
    seven = forecaster.forecast([instance(s, 80)])[0]["mean"]
    assert np.isclose(one[0], seven[0])
    # step 2 of a 7-step forecast is the one-step forecast from the history plus step 1's forecast
    extended = {
        **instance(s, 80, horizon=1),
        "timestamps": [format_timestamp(t) for t in s.timestamps[:81]],
        "values": [*s.values[:80].tolist(), seven[0]],
        "known": {k: v[:82].tolist() for k, v in s.known.items()},
    }
    step2 = forecaster.forecast([extended], horizon=1)[0]["mean"]
    assert np.isclose(step2[0], seven[1], rtol=1e-5)


def test_statistical_members_use_each_series_parameters_and_fall_back_for_new_ones(ets_dir, sales):
    forecaster = Forecaster(ets_dir)
    (member,) = forecaster.preprocessing["members"]
    assert member["model"] == "ets" and any(k.startswith("s03.") for k in member["params"])
    _, series = load_series(sales)
    s = series[2]
    known = instance(s, s.test_start)
    renamed = {**known, "id": "a-new-store", "static": {"region": "north"}}
    fitted, fallback = forecaster.forecast([known, renamed], quantiles=[0.5])
    assert fallback["id"] == "a-new-store"
    # a series the model has not seen: seasonal naive (the last week repeated)
    assert np.allclose(fallback["mean"], s.values[s.test_start - 7 : s.test_start])
    assert not np.allclose(fitted["mean"], fallback["mean"])


def test_serving_imports_no_training_libraries(lightgbm_dir, sales):
    _, series = load_series(sales)
    body = json.dumps({"instances": [instance(series[0], 90)]})
    code = f"""
import json, sys
from workers.time_series.predictor import ForecastServingPredictor
p = ForecastServingPredictor({str(lightgbm_dir / "model.onnx")!r})
print(len(p.forecast(json.loads({body!r}))[0]["mean"]))
heavy = [m for m in ("pandas", "scipy", "statsmodels", "torch", "lightgbm", "sklearn") if m in sys.modules]
print(heavy)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["7", "[]"], out.stdout + out.stderr


def test_statistical_members_read_a_bounded_recent_history(ets_dir):
    from workers.time_series.predictor import STAT_HISTORY

    forecaster = Forecaster(ets_dir)
    rng = np.random.default_rng(0)
    long = (
        100
        + np.cumsum(rng.normal(size=4 * STAT_HISTORY))
        + 5 * np.sin(np.arange(4 * STAT_HISTORY) * 2 * np.pi / 7)
    )
    last = np.datetime64("2030-01-01T00:00:00")
    full, _ = forecaster.forecast_arrays([long], [last], [{}], [{}], ["s01"], 7, [0.1])
    recent, _ = forecaster.forecast_arrays([long[-STAT_HISTORY:]], [last], [{}], [{}], ["s01"], 7, [0.1])
    assert np.array_equal(full, recent)
