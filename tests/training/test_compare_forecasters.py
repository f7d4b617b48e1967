"""Two forecasters compared through the REST API: their stored forecast reports (real reports of
an ETS and a seasonal-naive forecaster on the same version) side by side by MASE, sMAPE, RMSE,
coverage and skill, per series and per horizon step, every answer matching the OpenAPI schema;
the evaluation endpoint serves a forecast report; a forecaster and a classifier are refused."""

from __future__ import annotations

import pytest

from tests.training.factories import model_version
from workers.time_series import synthetic, trainer
from workers.time_series.evaluation import evaluate

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    rows = synthetic.multi_series(n_series=3, length=100, seed=3, intermittent=0)
    manifest = synthetic.manifest(rows, horizon=7)
    out = {}
    for model in ("seasonal_naive", "ets"):
        result = trainer.train({"preset": "fast", "model": model}, manifest, tmp_path_factory.mktemp(model))
        out[model] = dict(evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"]))
    return out


@pytest.mark.openapi_conformance  # every answer below must match the schema
def test_forecasters_compare_side_by_side(tenants, api_client, isolated_storage, reports):
    project = tenants["project_a"]
    naive = model_version(project, template="time_series_forecasting", evaluation=reports["seasonal_naive"])
    ets = model_version(project, template="time_series_forecasting", evaluation=reports["ets"])
    client = api_client(tenants["alice"])

    shown = client.get(f"/api/v1/model-versions/{ets.pk}/evaluation/")
    assert shown.status_code == 200, shown.content
    assert shown.json()["evaluation"]["kind"] == "forecast_report"
    assert shown.json()["evaluation"]["headline"] == pytest.approx(reports["ets"]["headline"])

    compared = client.get(f"/api/v1/model-versions/compare/?a={naive.pk}&b={ets.pk}")
    assert compared.status_code == 200, compared.content
    body = compared.json()
    assert body["kind"] == "forecast_comparison"
    assert (body["a"], body["b"], body["a_name"], body["b_name"]) == (naive.pk, ets.pk, naive.name, ets.name)
    a_mase, b_mase = reports["seasonal_naive"]["headline"]["mase"], reports["ets"]["headline"]["mase"]
    assert body["mase"] == pytest.approx({"a": a_mase, "b": b_mase, "delta": b_mase - a_mase})
    assert (
        body["skill"]["a"] == pytest.approx(0.0, abs=1e-9) and body["skill"]["b"] == reports["ets"]["skill"]
    )
    assert {row["series"] for row in body["per_series"]} == {"s01", "s02", "s03"}
    assert [row["step"] for row in body["by_horizon"]] == list(range(1, 8))


def test_a_forecaster_and_a_classifier_cannot_be_compared(tenants, api_client, isolated_storage, reports):
    project = tenants["project_a"]
    ets = model_version(project, template="time_series_forecasting", evaluation=reports["ets"])
    classifier = model_version(project, evaluation={"kind": "classification_report"})
    refused = api_client(tenants["alice"]).get(
        f"/api/v1/model-versions/compare/?a={ets.pk}&b={classifier.pk}"
    )
    assert refused.status_code == 400
    assert "cannot be compared" in refused.json()["error"]["message"]
    assert "forecasting" in refused.json()["error"]["message"]
