"""The SDK's forecasting DataFrames without a server: a long or wide DataFrame becomes the table
import's file and mapping; a history (long, wide, one Series, with known-future covariates) becomes
the forecast request's instances; the answer and the series endpoint's points become DataFrames;
a forecast report reads its headline, skill and tables."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest
from sampan.forecasting import (
    ForecastReport,
    forecast_frame,
    forecast_instances,
    series_frame,
    time_series_upload,
)

from workers.time_series import synthetic


def test_a_long_dataframe_goes_up_as_csv_with_its_mapping():
    rows = synthetic.multi_series(n_series=3, length=20, seed=1)
    frame = pd.DataFrame(rows)
    frame["date"] = pd.to_datetime(frame["date"])
    name, content, form = time_series_upload(
        frame,
        timestamp="date",
        targets="sales",
        series="store",
        known=["price", "holiday"],
        static=["region"],
        frequency="D",
    )
    assert name.endswith(".csv")
    assert form == {
        "timestamp_column": "date",
        "target_columns": ["sales"],
        "fill_rule": "interpolate",
        "series_column": "store",
        "known_covariates": ["price", "holiday"],
        "static_covariates": ["region"],
        "frequency": "D",
    }
    sent = pd.read_csv(io.BytesIO(content))
    assert list(sent.columns) == ["date", "store", "sales", "price", "holiday", "region"]
    assert len(sent) == 60
    assert sent["date"].iloc[0] == rows[0]["date"]  # ISO dates, no time part at midnight


def test_a_wide_dataframe_with_a_datetime_index_makes_each_numeric_column_a_series():
    index = pd.date_range("2024-01-01", periods=5, freq="h", name="when")
    wide = pd.DataFrame(
        {"north": [1.0, 2.0, math.nan, 4.0, 5.0], "south": [5, 4, 3, 2, 1], "note": list("abcde")},
        index=index,
    )
    _, content, form = time_series_upload(wide, timestamp=None, targets=None)
    assert form["timestamp_column"] == "when" and form["target_columns"] == ["north", "south"]
    assert "series_column" not in form
    text = content.decode()
    assert text.splitlines()[0] == "when,north,south"
    assert "2024-01-01T02:00:00,," in text  # a missing value is an empty cell; hours keep their time


def test_bad_mappings_are_refused_before_anything_is_sent():
    frame = pd.DataFrame({"date": ["2024-01-01"], "y": [1.0]})
    with pytest.raises(ValueError, match="No column 'store'"):
        time_series_upload(frame, timestamp="date", targets="y", series="store")
    with pytest.raises(ValueError, match="fill_rule must be one of"):
        time_series_upload(frame, timestamp="date", targets="y", fill_rule="mean")
    with pytest.raises(ValueError, match="frequency must be one of"):
        time_series_upload(frame, timestamp="date", targets="y", frequency="M")
    with pytest.raises(ValueError, match="long table"):
        time_series_upload(frame, timestamp="date", targets="y", static=["region"])
    with pytest.raises(ValueError, match="Name the timestamp column"):
        time_series_upload(frame, timestamp=None, targets="y")


def test_a_long_history_with_known_covariates_becomes_one_instance_per_series():
    history = pd.DataFrame(
        {
            "id": ["b", "a", "a", "b", "a", "b"],
            "timestamp": pd.to_datetime(
                ["2024-01-01", "2024-01-03", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03"]
            ),
            "value": [10.0, 3.0, 1.0, 11.0, 2.0, 12.0],
            "price": [5.0, 6.0, 4.0, 5.0, 5.0, 5.0],
            "region": ["n", "s", "s", "n", "s", "n"],
        }
    )
    future = pd.DataFrame(
        {
            "id": ["a", "a", "b", "b", "a"],
            "timestamp": pd.to_datetime(
                ["2024-01-04", "2024-01-05", "2024-01-04", "2024-01-05", "2024-01-06"]
            ),
            "price": [7.0, 8.0, 9.0, 9.5, 1.0],
        }
    )
    instances = forecast_instances(
        history, horizon=2, known_covariates=["price"], static_covariates=["region"], known_future=future
    )
    assert [i["id"] for i in instances] == ["b", "a"]
    a = instances[1]
    assert a["timestamps"] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    assert a["values"] == [1.0, 2.0, 3.0]
    assert a["known"] == {"price": [4.0, 5.0, 6.0, 7.0, 8.0]}  # the history's, then 2 future steps
    assert a["static"] == {"region": "s"}
    with pytest.raises(ValueError, match="known_future has 1 rows after 2024-01-03"):
        forecast_instances(history, horizon=2, known_covariates=["price"], known_future=future.iloc[[0, 2]])
    with pytest.raises(ValueError, match="give known_future"):
        forecast_instances(history, horizon=2, known_covariates=["price"])


def test_a_series_a_wide_frame_and_nan_values():
    index = pd.date_range("2024-01-01", periods=3, freq="MS")
    one = forecast_instances(pd.Series([1.0, math.nan, 3.0], index=index, name="co2"), horizon=2)
    assert one == [
        {"timestamps": ["2024-01-01", "2024-02-01", "2024-03-01"], "values": [1.0, None, 3.0], "id": "co2"}
    ]
    wide = pd.DataFrame({"x": [1, 2, 3], "y": [4.0, 5.0, 6.0]}, index=index)
    assert [(i["id"], i["values"]) for i in forecast_instances(wide, horizon=1)] == [
        ("x", [1.0, 2.0, 3.0]),
        ("y", [4.0, 5.0, 6.0]),
    ]
    long = wide.reset_index(names="ts").melt(id_vars="ts", var_name="id")
    assert forecast_instances(long, horizon=1, timestamp_column="ts")[1]["values"] == [4.0, 5.0, 6.0]
    with pytest.raises(TypeError, match="pandas DataFrame"):
        forecast_instances([1, 2, 3], horizon=1)


def test_the_answer_and_the_series_points_become_long_dataframes():
    frame = forecast_frame(
        [
            {
                "id": "a",
                "timestamps": ["2024-01-04", "2024-01-05"],
                "mean": [1.0, 2.0],
                "quantiles": {"0.9": [2.0, 3.0], "0.1": [0.0, 1.0]},
            },
            {
                "id": "b",
                "timestamps": ["2024-01-04T06:00:00"],
                "mean": [5.0],
                "quantiles": {"0.1": [4.0], "0.9": [6.0]},
            },
        ]
    )
    assert list(frame.columns) == ["id", "timestamp", "mean", "q0.1", "q0.9"]
    assert frame["timestamp"].iloc[2] == pd.Timestamp("2024-01-04 06:00")
    assert frame["q0.1"].tolist() == [0.0, 1.0, 4.0]
    points = series_frame(
        [
            {
                "id": "s1",
                "timestamps": ["2024-01-01", "2024-01-02"],
                "values": [1.5, None],
                "total_points": 2,
                "step": 1,
            }
        ]
    )
    assert points["id"].tolist() == ["s1", "s1"] and math.isnan(points["value"].iloc[1])
    assert str(points["timestamp"].dtype).startswith("datetime64")


def test_a_forecast_report_reads_its_headline_and_tables():
    metrics = {"mase": 0.8, "smape": 10.0, "rmse": 2.0, "coverage": 0.79, "width": 0.3}
    naive = {"mase": 1.0, "smape": 12.0, "rmse": 2.5, "coverage": None, "width": None}
    report = ForecastReport(
        5,
        "V1",
        {
            "kind": "forecast_report",
            "split": "test",
            "horizon": 2,
            "frequency": "D",
            "interval_level": 0.8,
            "model_name": "ets",
            "series_count": 1,
            "observations": 2,
            "headline": metrics,
            "seasonal_naive": naive,
            "skill": 0.2,
            "baselines": [{"model": "ets", "test": metrics, "validation": naive, "chosen_weight": 1.0}],
            "per_series": [{"series": "a", **metrics, "seasonal_naive_mase": 1.0, "skill": 0.2}],
            "by_horizon": [{"step": 1, "mase": 0.7, "smape": 9.0, "rmse": 1.5, "seasonal_naive_mase": 0.9}],
            "backtest": [],
            "plots": [],
        },
    )
    assert report.skill == pytest.approx(1 - report.mase / report.seasonal_naive_mase)
    assert report.per_series_frame()["series"].tolist() == ["a"]
    assert report.baselines_frame().loc[0, "val_mase"] == 1.0
    assert "skill=0.200" in repr(report)
    with pytest.raises(ValueError, match="no plotted series"):
        report.plot()


def test_integer_years_are_that_years_first_day():
    history = pd.DataFrame({"timestamp": [2001, 2002, 2003], "value": [1.0, 2.0, 3.0], "rain": [5, 6, 7]})
    future = pd.DataFrame({"timestamp": [2004, 2005], "rain": [8, 9]})
    (one,) = forecast_instances(history, horizon=2, known_covariates=["rain"], known_future=future)
    assert one["timestamps"] == ["2001-01-01", "2002-01-01", "2003-01-01"]
    assert one["known"] == {"rain": [5.0, 6.0, 7.0, 8.0, 9.0]}
