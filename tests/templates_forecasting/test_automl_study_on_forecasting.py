"""AutoML on the forecasting template: a study of a forecasting dataset version takes the template's
objective (validation MASE, minimized) and its default search space (the global LightGBM's trees,
learning rate, leaves, rows per leaf, context length and multi-step strategy); on a live worker two
quick trials complete, the best is the lowest validation MASE, each records its test MASE, and the
best trial is promoted to a model version with a forecast report."""

from __future__ import annotations

import math

import pytest

from tests.datasets.factories import upload
from tests.harness import wait_for
from workers.time_series import synthetic

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_a_forecast_report_gives_a_trial_its_test_mase_and_the_lift_report_names_it():
    from automl.services import test_headline, test_metric_name, test_metric_value

    report = {
        "kind": "forecast_report",
        "headline": {"mase": 0.7, "smape": 9.5, "rmse": 3.0, "coverage": 0.8, "width": 0.2},
        "seasonal_naive": {"mase": 1.0, "smape": 12.0, "rmse": 4.0, "coverage": None, "width": None},
        "skill": 0.3,
    }
    assert test_metric_name("time_series_forecasting") == "mase"
    assert test_headline(report) == {"mase": 0.7, "smape": 9.5, "skill": 0.3}
    assert test_metric_value("time_series_forecasting", report) == 0.7
    # the other templates keep theirs
    assert (
        test_metric_value("image_classification", {"kind": "classification_report", "accuracy": 0.9}) == 0.9
    )
    assert test_metric_value("object_detection", {"kind": "detection_report", "map50": 0.4}) == 0.4


@pytest.mark.integration
def test_a_study_minimizes_validation_mase_over_the_templates_space(live_worker, tenants, api_client):
    from workers.templates import registry

    client = api_client(tenants["alice"])
    dataset = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": "Sales", "task_type": "time_series_forecasting"},
        format="json",
    ).json()["id"]
    rows = synthetic.multi_series(n_series=4, length=90, seed=2, with_covariates=False)
    answer = client.post(
        f"/api/v1/datasets/{dataset}/imports/",
        {
            "file": upload("sales.csv", synthetic.to_csv(rows).encode()),
            "timestamp_column": "date",
            "series_column": "store",
            "target_columns": ["sales"],
        },
        format="multipart",
    )
    assert answer.status_code == 201, answer.content
    version = client.post(f"/api/v1/datasets/{dataset}/versions/", {"horizon": 7}, format="json")
    assert version.status_code == 201, version.content

    created = client.post(
        "/api/v1/studies/",
        {
            "dataset_version": version.json()["id"],
            "n_trials": 2,
            "parallelism": 1,
            "report_seeds": 0,
            "preset": "fast",
            "fixed_params": {"n_estimators": 50},
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    study = created.json()
    assert study["template"] == "time_series_forecasting"
    assert study["objective"] == {"metric": "val_mase", "direction": "minimize"}
    template_space = [d["name"] for d in registry.get("time_series_forecasting").as_dict()["search_space"]]
    assert [d["name"] for d in study["search_space"]] == [n for n in template_space if n != "n_estimators"]

    url = f"/api/v1/studies/{study['id']}/"
    done = wait_for(
        lambda: (s := client.get(url).json())["status"] in ("completed", "failed") and s,
        timeout=900,
        interval=2,
        what="the study",
    )
    trials = client.get(f"/api/v1/studies/{study['id']}/trials/").json()
    trials = trials["results"] if isinstance(trials, dict) else trials
    assert done["status"] == "completed" and done["trials"]["failed"] == 0, (
        done,
        [t.get("error") for t in trials],
    )
    assert len(trials) == 2
    for trial in trials:
        assert trial["state"] == "complete", trial
        assert math.isfinite(trial["value"]) and trial["value"] > 0
        assert math.isfinite(trial["test_metrics"]["mase"]), trial["test_metrics"]
        assert set(trial["params"]) == {d["name"] for d in study["search_space"]}
    assert done["best_trial"]["value"] == min(t["value"] for t in trials)
    lift = client.get(f"{url}results/").json()["lift"]
    assert lift["metric"] == "test MASE"

    promoted = client.post(f"{url}promote/", {}, format="json")
    assert promoted.status_code == 201, promoted.content
    model = promoted.json()
    assert model["template"] == "time_series_forecasting"
    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert report["kind"] == "forecast_report"
    best = next(t for t in trials if t["number"] == done["best_trial"]["number"])
    assert report["headline"]["mase"] == pytest.approx(best["test_metrics"]["mase"])
