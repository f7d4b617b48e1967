"""The SDK's forecasting path against a live platform (gunicorn + a Celery worker on PostgreSQL and
Redis): a wide DataFrame with a DatetimeIndex (statsmodels' Nile) imports as one series, a long CSV
file with a bad row imports the rest and names the row, the series come back as a DataFrame, a
version is split by time, the fast preset trains, the evaluation is a ForecastReport, and the
deployment forecasts a pandas Series (and a long DataFrame) into a DataFrame; a NaN in the history is
a BadRequest naming the series and the position."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from workers.time_series import bundled, synthetic

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_nile_wide_dataframe_to_a_forecast_dataframe(sdk, project, tmp_path):
    import sampan

    _, points = bundled.real_series("nile")
    nile = pd.DataFrame(
        {"nile": [v for _, v in points]},
        index=pd.DatetimeIndex(pd.to_datetime([t for t, _ in points]), name="year"),
    )
    rivers = sdk.datasets.create("rivers", project=project, task_type="time_series_forecasting")
    with pytest.raises(ValueError, match="import_time_series"):
        rivers.upload(nile)
    imported = sdk.datasets.import_time_series(rivers.id, nile, progress=False)
    assert imported.imported == 100 and imported.problems == [], imported
    assert imported.batches[0]["status"] == "succeeded"
    rivers.refresh()
    assert rivers.data["schema"]["frequency"] == "YS" and rivers.data["schema"]["target_columns"] == ["nile"]
    assert rivers.series_ids() == ["nile"]
    series = rivers.series("nile")
    assert list(series.columns) == ["id", "timestamp", "value"] and len(series) == 100
    assert series["timestamp"].iloc[0] == pd.Timestamp("1871-01-01")
    assert series["value"].tolist() == nile["nile"].tolist()

    version = rivers.create_version(horizon=10)
    assert version.data["horizon"] == 10
    model = version.train("fast").wait(progress=False).model_version()
    report = model.evaluation()
    assert isinstance(report, sampan.ForecastReport)
    assert report.horizon == 10 and report.series_count == 1 and math.isfinite(report.mase)
    assert report.skill == pytest.approx(1 - report.mase / report.seasonal_naive_mase)
    assert report.per_series_frame()["series"].tolist() == ["nile"]
    assert len(report.by_horizon_frame()) == 10
    assert "seasonal_naive" in set(report.baselines_frame()["model"])

    deployment = model.deploy("nile")
    deployment.create_key("forecasts")
    contract = deployment.forecast_contract()
    assert contract["frequency"] == "YS" and contract["horizon"] == 10
    history = nile["nile"].iloc[-max(contract["min_history"], 30) :]
    forecast = deployment.forecast(history)
    assert list(forecast.columns) == ["id", "timestamp", "mean", "q0.1", "q0.9"]
    assert len(forecast) == 10 and set(forecast["id"]) == {"nile"}
    assert forecast["timestamp"].iloc[0] == pd.Timestamp("1971-01-01")
    assert (forecast["q0.1"] <= forecast["mean"]).all() and (forecast["mean"] <= forecast["q0.9"]).all()
    assert forecast["mean"].between(300, 1600).all(), forecast
    # predict(history=) is the same call; a long DataFrame with other column names too
    again = deployment.predict(history=history, horizon=4)
    assert again["mean"].tolist() == pytest.approx(forecast["mean"].iloc[:4].tolist())
    long = history.rename("volume").rename_axis("when").reset_index().assign(river="nile")
    by_names = deployment.forecast(long, id_column="river", timestamp_column="when", value_column="volume")
    assert by_names["mean"].tolist() == pytest.approx(forecast["mean"].tolist())

    # Try it before deploying: the model version's try route answers the same forecast
    tried = model.try_forecast(history)
    assert tried["mean"].tolist() == pytest.approx(forecast["mean"].tolist())
    compared = sdk.model_versions.compare_frame(model, model)
    assert list(compared.index) == ["mase", "smape", "rmse", "coverage", "skill"]
    assert compared.loc["mase", "delta"] == 0

    holed = history.copy()
    holed.iloc[4] = math.nan
    with pytest.raises(sampan.BadRequest) as refused:
        deployment.forecast(holed)
    assert refused.value.code == "history_not_numeric", refused.value
    assert refused.value.details["series"] == 0 and refused.value.details["position"] == 4
    assert "values[4]" in refused.value.message


def test_a_long_csv_file_imports_and_names_its_bad_rows(sdk, project, tmp_path):
    rows = synthetic.multi_series(n_series=3, length=40, seed=9, with_covariates=False)
    rows[5] = {**rows[5], "sales": "lots"}  # the 6th row under the header
    path = tmp_path / "sales.csv"
    path.write_text(synthetic.to_csv(rows))
    sales = sdk.datasets.create("sales", project=project, task_type="time_series_forecasting")
    imported = sales.import_time_series(
        path, timestamp="date", series="store", targets=["sales"], fill_rule="zero", progress=False
    )
    assert imported.imported == len(rows) - 1
    refused = [p for p in imported.problems if p.get("action") != "warning"]
    assert [(p["file"], p["code"]) for p in refused] == [("row 6", "non_numeric_target")], imported.problems
    assert "lots" in refused[0]["message"]
    # the refused row leaves a gap in s01, filled by the fill rule: a warning naming the series
    (gap,) = [p for p in imported.problems if p.get("action") == "warning"]
    assert "s01" in gap["file"] and "2023-01-07" in gap["message"], gap
    mapping = imported.batches[0]["mapping"]
    assert mapping["series_column"] == "store" and mapping["fill_rule"] == "zero"
    assert sales.refresh().data["schema"]["fill_rule"] == "zero"
    frame = sales.series(["s01", "s03"], max_points=20)
    assert set(frame["id"]) == {"s01", "s03"} and frame.groupby("id").size().max() <= 20


def test_the_cli_imports_trains_and_forecasts_a_csv(live_web, live_worker, tenants, token_for, tmp_path):
    import json

    from tests.sdk.test_sampan_cli import sampan_cli

    config = tmp_path / "config.json"
    sampan_cli("login", "--url", live_web, "--token", token_for(tenants["alice"]), config=config)
    rows = synthetic.multi_series(n_series=3, length=70, seed=3, with_covariates=False)
    (tmp_path / "sales.csv").write_text(synthetic.to_csv(rows))
    imported = json.loads(
        sampan_cli(
            "import-time-series",
            str(tmp_path / "sales.csv"),
            "--project",
            str(tenants["project_a"].pk),
            "--name",
            "cli sales",
            "--timestamp",
            "date",
            "--series",
            "store",
            "--target",
            "sales",
            "--quiet",
            config=config,
        ).stdout
    )
    assert imported["imported"] == 210, imported
    trained = json.loads(
        sampan_cli(
            "train",
            "--dataset",
            str(imported["dataset"]),
            "--horizon",
            "5",
            "--preset",
            "fast",
            "--wait",
            "--quiet",
            config=config,
        ).stdout
    )
    assert trained["status"] == "succeeded" and math.isfinite(trained["test"]["mase"]), trained
    deployed = json.loads(
        sampan_cli(
            "deploy", str(trained["model_version"]), "--name", "cli sales", "--key", config=config
        ).stdout
    )
    recent = pd.DataFrame(rows).groupby("store").tail(30)
    recent.to_csv(tmp_path / "recent.csv", index=False)
    out = tmp_path / "forecast.csv"
    answer = json.loads(
        sampan_cli(
            "forecast",
            str(deployed["deployment"]),
            str(tmp_path / "recent.csv"),
            "--id-column",
            "store",
            "--timestamp-column",
            "date",
            "--value-column",
            "sales",
            "--key",
            deployed["key"],
            "--out",
            str(out),
            config=config,
        ).stdout
    )
    assert answer["rows"] == 15
    forecast = pd.read_csv(out)
    assert list(forecast.columns) == ["id", "timestamp", "mean", "q0.1", "q0.9"]
    assert forecast["timestamp"].iloc[0] == "2023-03-13T00:00:00"  # the day after the 70th (2023-01-02 + 69)
    printed = json.loads(
        sampan_cli(
            "forecast",
            str(deployed["deployment"]),
            str(tmp_path / "recent.csv"),
            "--id-column",
            "store",
            "--timestamp-column",
            "date",
            "--value-column",
            "sales",
            "--key",
            deployed["key"],
            "--horizon",
            "2",
            config=config,
        ).stdout
    )
    assert [(r["id"], r["timestamp"]) for r in printed[:2]] == [
        ("s01", "2023-03-13T00:00:00"),
        ("s01", "2023-03-14T00:00:00"),
    ]
