"""Time-series forecasting through the REST API against PostgreSQL, Redis and a live worker: a
project's forecasting dataset imports a multi-series store-sales CSV (long format, known and static
covariates) and a real series (statsmodels' Nile, wide format); versions split by time with a
horizon; the fast preset trains on the worker; the model version's evaluation is a forecast report
scored against seasonal naive; the deployment forecasts posted histories with intervals, and a bad
history is a 400 naming the series and the position."""

from __future__ import annotations

import math
from collections import defaultdict

import pytest
from jobs.models import Job
from rest_framework.test import APIClient

from tests.datasets.factories import upload
from tests.harness import wait_for
from workers.time_series import bundled, synthetic

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

HORIZON = 7


def finished(job_id: int, timeout: float = 900) -> Job:
    def done():
        job = Job.objects.get(pk=job_id)
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    job = wait_for(done, timeout=timeout, interval=1, what=f"job {job_id}")
    assert job.status == "succeeded", f"{job.status}: {job.error}"
    return job


def forecasting_dataset(client, tenants, name: str) -> int:
    created = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": name, "task_type": "time_series_forecasting"},
        format="json",
    )
    assert created.status_code == 201, created.content
    return created.json()["id"]


def imported(client, dataset: int, filename: str, text: str, **mapping) -> dict:
    answer = client.post(
        f"/api/v1/datasets/{dataset}/imports/",
        {"file": upload(filename, text.encode()), **mapping},
        format="multipart",
    )
    assert answer.status_code in (201, 202), answer.content
    batch = answer.json()
    if answer.status_code == 202:
        finished(batch["job"], timeout=300)
        batch = client.get(f"/api/v1/datasets/{dataset}/imports/{batch['id']}/").json()
    assert batch["status"] == "succeeded", batch
    return batch


def trained(client, version: dict, preset: str = "fast") -> dict:
    started = client.post(
        "/api/v1/training-jobs/", {"dataset_version": version["id"], "preset": preset}, format="json"
    )
    assert started.status_code == 201, started.content
    job = finished(started.json()["id"])
    return client.get(f"/api/v1/model-versions/{job.result['model_version']}/").json()


def deployed(client, tenants, model: dict, name: str) -> tuple[dict, str]:
    deployment = client.post(
        "/api/v1/deployments/",
        {"project": tenants["project_a"].pk, "model_version": model["id"], "name": name},
        format="json",
    )
    assert deployment.status_code == 201, deployment.content
    key = client.post(
        f"/api/v1/deployments/{deployment.json()['id']}/keys/", {"name": "k"}, format="json"
    ).json()["key"]
    return client.get(f"/api/v1/deployments/{deployment.json()['id']}/").json(), key


def assert_forecast_report(report: dict, *, series: int, horizon: int) -> None:
    assert report["kind"] == "forecast_report", report.get("kind")
    assert report["horizon"] == horizon and report["series_count"] == series
    for name in ("mase", "smape", "rmse"):
        assert math.isfinite(report["headline"][name]) and math.isfinite(report["seasonal_naive"][name])
    assert report["skill"] == pytest.approx(1 - report["headline"]["mase"] / report["seasonal_naive"]["mase"])
    assert len(report["per_series"]) == series
    mases = [row["mase"] for row in report["per_series"]]
    assert mases == sorted(mases, reverse=True), "per-series table is worst first"
    assert [row["step"] for row in report["by_horizon"]] == list(range(1, horizon + 1))
    assert "seasonal_naive" in {b["model"] for b in report["baselines"]}
    assert report["plots"] and len(report["plots"][0]["mean"]) == horizon
    assert any(window["role"] == "validation" for window in report["backtest"])


def test_store_sales_and_nile_import_version_train_deploy_and_forecast(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])

    # --- a long table of 6 stores, 120 days each, with price/holiday (known) and region (static)
    rows = synthetic.multi_series(n_series=6, length=120, seed=4)
    sales = forecasting_dataset(client, tenants, "Store sales")
    batch = imported(
        client,
        sales,
        "sales.csv",
        synthetic.to_csv(rows),
        timestamp_column="date",
        series_column="store",
        target_columns=["sales"],
        known_covariates=["price", "holiday"],
        static_covariates=["region"],
    )
    assert batch["imported"] == len(rows) and batch["failed"] == 0, batch
    dataset = client.get(f"/api/v1/datasets/{sales}/").json()
    assert dataset["schema"]["kind"] == "time_series" and dataset["schema"]["frequency"] == "D"
    assert dataset["schema"]["series_column"] == "store"
    assert dataset["schema"]["known_covariates"] == ["price", "holiday"]
    profile = client.get(f"/api/v1/datasets/{sales}/profile/").json()
    assert profile["kind"] == "time_series_profile" and profile["series_count"] == 6
    assert profile["frequency"] == "D" and profile["season_length"] == 7
    assert {s["length"] for s in profile["series"]} == {120}

    points = client.get(f"/api/v1/datasets/{sales}/series/", {"id": "s01", "max_points": 30})
    assert points.status_code == 200, points.content
    (s1,) = points.json()
    assert s1["id"] == "s01" and s1["total_points"] == 120 and len(s1["timestamps"]) <= 30
    assert s1["timestamps"][0] == rows[0]["date"]

    # --- versions split by time: the last h steps of each series are the test window
    too_long = client.post(f"/api/v1/datasets/{sales}/versions/", {"horizon": 100}, format="json")
    assert too_long.status_code == 400, too_long.content
    assert too_long.json()["error"]["code"] == "horizon_too_long"
    version = client.post(f"/api/v1/datasets/{sales}/versions/", {"horizon": HORIZON}, format="json")
    assert version.status_code == 201, version.content
    version = version.json()
    assert version["horizon"] == HORIZON

    # --- the fast preset on the worker; its evaluation is a forecast report against seasonal naive
    model = trained(client, version)
    assert model["template"] == "time_series_forecasting"
    assert math.isfinite(model["metrics"]["training"]["val_mase"]), model["metrics"]
    assert math.isfinite(model["metrics"]["test"]["mase"]), model["metrics"]
    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert_forecast_report(report, series=6, horizon=HORIZON)
    # weekly seasonality with covariates that move sales: the model beats seasonal naive overall
    assert report["skill"] > 0, (report["headline"], report["seasonal_naive"], report["model_name"])

    # --- deploy and forecast two stores' recent history with their known future covariates
    deployment, key = deployed(client, tenants, model, "sales")
    contract = deployment["forecast_contract"]
    assert contract["frequency"] == "D" and contract["horizon"] == HORIZON
    assert contract["known_covariates"] == ["price", "holiday"] and contract["static_covariates"] == [
        "region"
    ]
    by_store: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_store[row["store"]].append(row)
    n = max(contract["min_history"], 4 * 7)
    instances = []
    for store in ("s02", "s05"):
        history, future = by_store[store][-(n + HORIZON) : -HORIZON], by_store[store][-HORIZON:]
        instances.append(
            {
                "id": store,
                "timestamps": [r["date"] for r in history],
                "values": [r["sales"] for r in history],
                "known": {c: [float(r[c]) for r in history + future] for c in ("price", "holiday")},
                "static": {"region": history[0]["region"]},
            }
        )
    caller = APIClient()
    url = f"/api/v1/deployments/{deployment['id']}/predict/"
    answer = caller.post(url, {"instances": instances}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["kind"] == "forecast_prediction" and body["model_version"]["id"] == model["id"]
    assert [p["id"] for p in body["predictions"]] == ["s02", "s05"]
    for prediction, store in zip(body["predictions"], ("s02", "s05"), strict=True):
        assert prediction["timestamps"] == [r["date"] for r in by_store[store][-HORIZON:]]
        assert len(prediction["mean"]) == HORIZON and all(math.isfinite(v) for v in prediction["mean"])
        levels = sorted(prediction["quantiles"], key=float)
        assert len(levels) == 2 and float(levels[0]) < 0.5 < float(levels[1])
        low, high = prediction["quantiles"][levels[0]], prediction["quantiles"][levels[1]]
        assert all(lo <= m <= hi for lo, m, hi in zip(low, prediction["mean"], high, strict=True))

    # a shorter horizon and other quantiles on request
    shorter = caller.post(
        url,
        {"instances": instances[:1], "horizon": 3, "quantiles": contract["quantiles"][:1]},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert shorter.status_code == 200, shorter.content
    assert len(shorter.json()["predictions"][0]["mean"]) == 3

    # --- a bad history is a 400 naming the series and the position
    holed = [
        instances[0],
        {**instances[1], "values": [*instances[1]["values"][:5], None, *instances[1]["values"][6:]]},
    ]
    bad = caller.post(url, {"instances": holed}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert bad.status_code == 400, bad.content
    error = bad.json()["error"]
    assert error["code"] in ("history_not_numeric", "invalid_history"), error
    assert error["details"]["series"] == 1 and error["details"]["position"] == 5, error
    assert "s05" in error["message"] and "values[5]" in error["message"], error["message"]
    short = caller.post(
        url,
        {
            "instances": [
                {
                    **instances[0],
                    "timestamps": instances[0]["timestamps"][-2:],
                    "values": instances[0]["values"][-2:],
                }
            ]
        },
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert short.status_code == 400 and short.json()["error"]["code"] == "history_too_short", short.content

    # --- a real series in a wide table: the Nile's yearly volume (100 years)
    frequency, nile_points = bundled.real_series("nile")
    nile = forecasting_dataset(client, tenants, "Nile")
    batch = imported(
        client,
        nile,
        "nile.csv",
        bundled.to_csv("nile"),
        timestamp_column="timestamp",
        target_columns=["value"],
    )
    assert batch["imported"] == len(nile_points) == 100, batch
    schema = client.get(f"/api/v1/datasets/{nile}/").json()["schema"]
    assert schema["frequency"] == frequency == "YS" and schema["series_column"] is None
    version = client.post(f"/api/v1/datasets/{nile}/versions/", {"horizon": 10}, format="json")
    assert version.status_code == 201, version.content
    model = trained(client, version.json())
    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert_forecast_report(report, series=1, horizon=10)
    deployment, key = deployed(client, tenants, model, "nile")
    history = nile_points[-40:]
    answer = caller.post(
        f"/api/v1/deployments/{deployment['id']}/predict/",
        {"instances": [{"timestamps": [t for t, _ in history], "values": [v for _, v in history]}]},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert answer.status_code == 200, answer.content
    (prediction,) = answer.json()["predictions"]
    assert prediction["timestamps"][0] == "1971-01-01" and len(prediction["mean"]) == 10
    # the Nile's volume stays within its historical range (roughly 450-1400)
    assert all(300 < v < 1600 for v in prediction["mean"]), prediction["mean"]
