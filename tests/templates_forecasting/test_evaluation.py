"""The forecast report: a trained forecaster scored on each series' test window next to the
statistical baselines fitted on the same histories; filled positions unscored; the backtest's
validation windows and candidates read from backtest.json; plots, per-series and per-step scores;
and the comparison of two reports."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workers.contracts.forecasting import ForecastReport, TimeSeriesManifest
from workers.time_series import synthetic, trainer
from workers.time_series.data import load_series
from workers.time_series.evaluation import compare, evaluate
from workers.time_series.metrics import mase_scale

HORIZON = 14


@pytest.fixture(scope="module")
def manifest() -> TimeSeriesManifest:
    rows = synthetic.multi_series(n_series=4, length=120, seed=1, intermittent=1)
    made = synthetic.manifest(rows, horizon=HORIZON)
    # one missing actual value inside s01's test window: filled, never scored
    entry = made["series"][0]
    entry["values"][entry["test_start"] + 3] = None
    return made


def _train(manifest: TimeSeriesManifest, model: str, out: Path) -> dict[str, Any]:
    return trainer.train({"preset": "fast", "model": model}, manifest, out)


@pytest.fixture(scope="module")
def ets_report(manifest: TimeSeriesManifest, tmp_path_factory: pytest.TempPathFactory) -> ForecastReport:
    result = _train(manifest, "ets", tmp_path_factory.mktemp("ets"))
    return evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"])


@pytest.fixture(scope="module")
def naive_report(manifest: TimeSeriesManifest, tmp_path_factory: pytest.TempPathFactory) -> ForecastReport:
    result = _train(manifest, "seasonal_naive", tmp_path_factory.mktemp("snaive"))
    return evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"])


def test_the_report_is_complete_json(ets_report: ForecastReport) -> None:
    text = json.dumps(ets_report, allow_nan=False)
    assert set(json.loads(text)) == set(ForecastReport.__annotations__)
    assert ets_report["kind"] == "forecast_report" and ets_report["split"] == "test"
    assert (
        ets_report["horizon"] == HORIZON
        and ets_report["frequency"] == "D"
        and ets_report["season_length"] == 7
    )
    assert ets_report["model_name"] == "ets" and ets_report["series_count"] == 4
    # 4 series x 14 steps, one of them filled
    assert ets_report["observations"] == 4 * HORIZON - 1
    assert Path(ets_report["model"]["path"]).name == "model.onnx" and len(ets_report["model"]["sha256"]) == 64


def test_seasonal_naive_scores_match_a_hand_computation(
    ets_report: ForecastReport, manifest: TimeSeriesManifest
) -> None:
    _, series = load_series(manifest)
    per_series = []
    for s in series:
        start = s.test_start
        forecast = s.values[start - 7 : start][np.arange(HORIZON) % 7]
        keep = s.observed[start:]
        error = np.abs(s.values[start:] - forecast)[keep]
        per_series.append(float(np.mean(error)) / mase_scale(s.values[:start], 7))
    assert ets_report["seasonal_naive"]["mase"] == pytest.approx(np.mean(per_series))
    by_series = {row["series"]: row["seasonal_naive_mase"] for row in ets_report["per_series"]}
    assert [by_series[s.id] for s in series] == pytest.approx(per_series)
    expected_skill = 1 - ets_report["headline"]["mase"] / ets_report["seasonal_naive"]["mase"]
    assert ets_report["skill"] == pytest.approx(expected_skill)


def test_baselines_are_scored_on_the_same_window(
    ets_report: ForecastReport, naive_report: ForecastReport
) -> None:
    baselines = {b["model"]: b for b in ets_report["baselines"]}
    assert list(baselines) == ["naive", "seasonal_naive", "ets", "arima", "theta"]
    # the model is ETS refitted on the same histories: its baseline twin scores the same points
    assert baselines["ets"]["test"]["mase"] == pytest.approx(ets_report["headline"]["mase"])
    assert baselines["ets"]["chosen_weight"] == 1.0 and baselines["theta"]["chosen_weight"] == 0.0
    # validation scores come from the training's backtest (only the fitted candidate has one)
    assert baselines["ets"]["validation"] is not None and baselines["arima"]["validation"] is None
    assert baselines["seasonal_naive"]["test"]["mase"] == pytest.approx(ets_report["seasonal_naive"]["mase"])
    assert naive_report["headline"]["mase"] == pytest.approx(ets_report["seasonal_naive"]["mase"])
    assert naive_report["skill"] == pytest.approx(0.0, abs=1e-9)


def test_per_series_worst_first_by_horizon_and_backtest(ets_report: ForecastReport) -> None:
    mases = [row["mase"] for row in ets_report["per_series"]]
    assert mases == sorted(mases, reverse=True) and len(mases) == 4
    assert ets_report["headline"]["mase"] == pytest.approx(np.mean(mases))
    assert [row["step"] for row in ets_report["by_horizon"]] == list(range(1, HORIZON + 1))
    roles = [w["role"] for w in ets_report["backtest"]]
    assert roles[-1] == "test" and roles[:-1] and set(roles[:-1]) == {"validation"}
    test_window = ets_report["backtest"][-1]
    assert test_window["metrics"] == ets_report["headline"]
    assert all(w["cutoff"] < test_window["cutoff"] for w in ets_report["backtest"][:-1])


def test_plots_show_history_and_window_with_the_filled_value_missing(ets_report: ForecastReport) -> None:
    plots = {p["series"]: p for p in ets_report["plots"]}
    assert len(plots) == 4
    # the worst series comes first
    assert ets_report["plots"][0]["series"] == ets_report["per_series"][0]["series"]
    plot = plots["s01"]
    start = plot["forecast_start"]
    assert len(plot["timestamps"]) == start + HORIZON == len(plot["actual"])
    assert (
        len(plot["mean"])
        == len(plot["lower"])
        == len(plot["upper"])
        == len(plot["seasonal_naive"])
        == HORIZON
    )
    assert plot["actual"][start + 3] is None and plot["actual"][start + 2] is not None
    assert all(
        lo <= mid <= hi for lo, mid, hi in zip(plot["lower"], plot["mean"], plot["upper"], strict=True)
    )


def test_validation_split(manifest: TimeSeriesManifest, tmp_path: Path) -> None:
    result = _train(manifest, "seasonal_naive", tmp_path)
    report = evaluate(Path(result["onnx"]).parent, manifest, split="validation")
    assert report["split"] == "validation" and report["observations"] == 4 * HORIZON
    assert report["backtest"][-1]["role"] == "validation"


def test_no_window_to_forecast_is_an_error(manifest: TimeSeriesManifest, tmp_path: Path) -> None:
    result = _train(manifest, "seasonal_naive", tmp_path)
    short = copy.deepcopy(manifest)
    for entry in short["series"]:
        entry["val_start"] = entry["test_start"] = len(entry["values"])
    with pytest.raises(ValueError, match="no series"):
        evaluate(result["onnx"], short)


def test_compare_pairs_headline_series_and_steps(
    ets_report: ForecastReport, naive_report: ForecastReport
) -> None:
    comparison = compare(naive_report, ets_report)
    assert comparison["kind"] == "forecast_comparison"
    assert comparison["mase"]["a"] == naive_report["headline"]["mase"]
    assert comparison["mase"]["delta"] == pytest.approx(
        ets_report["headline"]["mase"] - naive_report["headline"]["mase"]
    )
    assert comparison["skill"]["b"] == ets_report["skill"]
    assert len(comparison["per_series"]) == 4 and len(comparison["by_horizon"]) == HORIZON
    deltas = [abs(row["mase"]["delta"] or 0.0) for row in comparison["per_series"]]
    assert deltas == sorted(deltas, reverse=True)
    fewer = copy.deepcopy(ets_report)
    fewer["per_series"] = fewer["per_series"][:1]
    fewer["headline"]["coverage"] = None
    partial = compare(naive_report, fewer)
    assert len(partial["per_series"]) == 1 and partial["coverage"]["delta"] is None


def test_a_learned_forecasters_report_shows_what_serving_answers(
    manifest: TimeSeriesManifest, tmp_path: Path
) -> None:
    from workers.time_series.frequency import format_timestamp
    from workers.time_series.predictor import Forecaster

    result = trainer.train({"preset": "fast", "model": "lightgbm", "n_estimators": 60}, manifest, tmp_path)
    report = evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"])
    assert report["model_name"] == "lightgbm"
    learned = report["baselines"][-1]
    assert learned["model"] == "lightgbm" and learned["chosen_weight"] == 1.0
    assert learned["test"] == report["headline"] and learned["validation"] is not None
    assert all(b["chosen_weight"] == 0.0 for b in report["baselines"][:-1])

    # the plotted forecast of a series is the hosted answer to a request with its history
    _, series = load_series(manifest)
    s = series[1]
    start = s.test_start
    instance = {
        "id": s.id,
        "timestamps": [format_timestamp(t) for t in s.timestamps[:start]],
        "values": s.values[:start].tolist(),
        "known": {name: values[: start + HORIZON].tolist() for name, values in s.known.items()},
    }
    (answer,) = Forecaster(tmp_path).forecast([instance])
    plot = next(p for p in report["plots"] if p["series"] == s.id)
    assert answer["timestamps"] == plot["timestamps"][plot["forecast_start"] :]
    assert answer["mean"] == pytest.approx(plot["mean"], rel=1e-5)
