"""The hosted prediction API serving a forecaster (a LightGBM forecaster trained with the real trainer
on the synthetic store sales) through a real gunicorn web process: a ForecastInstances body answers
``kind: forecast_prediction`` with the forecasts the platform's own forecaster makes; every bad
history is a 400 with its code, naming the series and the position; the deployment and the model
version say what a request must send (``forecast_contract``), typed in the OpenAPI schema; batch
prediction, shadow releases and capture refuse forecasters with ``template_not_supported``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import requests
from jsonschema import Draft4Validator

from tests.deploy.factories import deployment_with_key
from tests.openapi_conformance import _components, _strict

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

HORIZON = 7


@pytest.fixture(scope="module")
def forecaster(tmp_path_factory) -> dict[str, Any]:
    """A trained forecaster (model.onnx, preprocess.json) and the test series' histories."""
    from workers.packaging.forecast_package import histories_from_manifest
    from workers.time_series import synthetic
    from workers.time_series.predictor import Forecaster
    from workers.time_series.trainer import train

    work = tmp_path_factory.mktemp("forecaster")
    manifest = synthetic.manifest(synthetic.multi_series(n_series=4, length=100, seed=1), horizon=HORIZON)
    result = train({"preset": "fast", "model": "lightgbm", "n_estimators": 30}, manifest, work / "run")
    return {
        "onnx": Path(result["onnx"]),
        "preprocessing": result["preprocessing"],
        "histories": histories_from_manifest(manifest, limit=20),
        "local": Forecaster(result["onnx"], preprocessing=result["preprocessing"]),
    }


@pytest.fixture
def deployed(tenants, forecaster):
    from tests.training.factories import model_version

    mv = model_version(
        tenants["project_a"],
        template="time_series_forecasting",
        onnx=forecaster["onnx"].read_bytes(),
        classes=[],
        preprocessing=forecaster["preprocessing"],
        params={"model": "lightgbm"},
        metrics={"test": {}},
    )
    deployment, _, secret = deployment_with_key(tenants, mv, name="sales")
    return mv, deployment, secret


def post(live_web: str, deployment_id: int, secret: str, body: Any) -> requests.Response:
    return requests.post(
        f"{live_web}/api/v1/deployments/{deployment_id}/predict/",
        json=body,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=60,
    )


def stacked(predictions: list[dict[str, Any]]) -> np.ndarray:
    return np.array(
        [[p["mean"], *(p["quantiles"][q] for q in sorted(p["quantiles"]))] for p in predictions],
        dtype=np.float64,
    )


def schema_errors(component: str, value: Any) -> list[str]:
    components = _components()
    schema = {**components["schemas"][component], "components": components}
    return [error.message for error in Draft4Validator(_strict(schema)).iter_errors(value)]


def test_a_forecast_request_answers_the_platforms_forecasts(live_web, deployed, forecaster):
    mv, deployment, secret = deployed
    body = {"instances": forecaster["histories"], "horizon": 5, "quantiles": [0.1, 0.5, 0.9]}
    assert schema_errors("PredictRequestRequest", body) == []
    answer = post(live_web, deployment.pk, secret, body)
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert got["kind"] == "forecast_prediction" and got["version"] == 1
    assert got["model_version"] == {"id": mv.pk, "name": mv.name, "template": "time_series_forecasting"}
    assert schema_errors("PredictResponse", got) == []
    predictions = got["predictions"]
    assert [p["id"] for p in predictions] == [h["id"] for h in forecaster["histories"]]
    last = forecaster["histories"][0]["timestamps"][-1]
    assert predictions[0]["timestamps"][0] > last and len(predictions[0]["timestamps"]) == 5
    assert all(sorted(p["quantiles"]) == ["0.1", "0.5", "0.9"] for p in predictions)
    for p in predictions:
        assert np.all(np.asarray(p["quantiles"]["0.1"]) <= np.asarray(p["quantiles"]["0.9"]))
    local = forecaster["local"].forecast(forecaster["histories"], 5, [0.1, 0.5, 0.9])
    assert np.allclose(stacked(predictions), stacked(local), rtol=1e-5, atol=1e-6)

    default = post(live_web, deployment.pk, secret, {"instances": forecaster["histories"][:1]}).json()
    (only,) = default["predictions"]
    level = forecaster["preprocessing"]["interval_level"]
    assert len(only["mean"]) == HORIZON
    assert sorted(float(q) for q in only["quantiles"]) == pytest.approx([(1 - level) / 2, (1 + level) / 2])


def _nan(h: dict) -> tuple[dict, str, dict]:
    h["values"][4] = "NaN"
    return h, "history_not_numeric", {"position": 4, "field": "values"}


def _gap(h: dict) -> tuple[dict, str, dict]:
    del h["timestamps"][20], h["values"][20]
    for values in h["known"].values():
        del values[20]
    return h, "history_gap", {"position": 20, "field": "timestamps"}


def _hourly(h: dict) -> tuple[dict, str, dict]:
    h["timestamps"][3] = h["timestamps"][2] + "T06:00:00"
    return h, "wrong_frequency", {"position": 3, "field": "timestamps"}


def _short(h: dict) -> tuple[dict, str, dict]:
    h["timestamps"], h["values"] = h["timestamps"][:2], h["values"][:2]
    h["known"] = {name: values[: 2 + HORIZON] for name, values in h["known"].items()}
    return h, "history_too_short", {"field": "values"}


def _no_covariate(h: dict) -> tuple[dict, str, dict]:
    name = sorted(h["known"])[0]
    del h["known"][name]
    return h, "missing_covariate", {"field": f"known.{name}"}


def _short_covariate(h: dict) -> tuple[dict, str, dict]:
    name = sorted(h["known"])[0]
    h["known"][name] = h["known"][name][:-3]
    return h, "covariate_length", {"field": f"known.{name}"}


def _unsorted(h: dict) -> tuple[dict, str, dict]:
    h["timestamps"][7], h["timestamps"][8] = h["timestamps"][8], h["timestamps"][7]
    return h, "invalid_history", {"position": 8, "field": "timestamps"}


BAD_HISTORIES = {
    f.__name__.strip("_"): f
    for f in (_nan, _gap, _hourly, _short, _no_covariate, _short_covariate, _unsorted)
}


@pytest.mark.parametrize("problem", sorted(BAD_HISTORIES))
def test_a_bad_history_is_a_400_naming_the_series_and_position(live_web, deployed, forecaster, problem):
    _, deployment, secret = deployed
    histories = copy.deepcopy(forecaster["histories"][:3])
    bad, code, details = BAD_HISTORIES[problem](histories[2])
    histories[2] = bad
    answer = post(live_web, deployment.pk, secret, {"instances": histories})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == code, error
    assert error["details"] == {"series": 2, "id": bad["id"], **details}
    assert error["message"].startswith(f"instances[2] (id {bad['id']!r})"), error["message"]
    if "position" in details:
        assert f"[{details['position']}]" in error["message"]


@pytest.mark.parametrize(
    ("options", "code"),
    [({"horizon": HORIZON + 1}, "horizon_out_of_range"), ({"quantiles": [0.37]}, "unknown_quantile")],
)
def test_options_beyond_the_model_are_refused(live_web, deployed, forecaster, options, code):
    _, deployment, secret = deployed
    answer = post(live_web, deployment.pk, secret, {"instances": forecaster["histories"][:1], **options})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code, answer.text


def test_forecasters_take_json_only(live_web, deployed):
    _, deployment, secret = deployed
    answer = requests.post(
        f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
        data=b"2024-01-01,3\n",
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "text/csv"},
        timeout=30,
    )
    assert answer.status_code == 415 and answer.json()["error"]["code"] == "unsupported_media_type"
    empty = post(live_web, deployment.pk, secret, {"instances": []})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "empty_input"


def test_deployment_and_model_version_give_the_forecast_contract(tenants, api_client, deployed, forecaster):
    mv, deployment, _ = deployed
    alice = api_client(tenants["alice"])
    spec = forecaster["preprocessing"]
    expected = {
        "frequency": "D",
        "min_history": spec["min_history"],
        "horizon": HORIZON,
        "quantiles": spec["quantiles"],
        "interval_level": spec["interval_level"],
        "known_covariates": ["price", "holiday"],
        "static_covariates": ["region"],
        "series_ids": [h["id"] for h in forecaster["histories"]],
    }
    detail = alice.get(f"/api/v1/deployments/{deployment.pk}/").json()
    assert detail["forecast_contract"] == expected
    assert schema_errors("Deployment", detail) == []
    version = alice.get(f"/api/v1/model-versions/{mv.pk}/").json()
    assert version["forecast_contract"] == expected
    assert schema_errors("ForecastContract", expected) == []
    assert json.loads(json.dumps(expected)) == expected


def test_batch_prediction_shadow_and_capture_refuse_forecasters(tenants, api_client, deployed):
    from config.exceptions import DomainError
    from deploy.batch import batch_prediction_create

    from tests.training.factories import model_version

    mv, deployment, _ = deployed
    with pytest.raises(DomainError) as refused:
        batch_prediction_create(user=tenants["alice"], model_version=mv, source="dataset")
    assert (refused.value.status, refused.value.code) == (400, "template_not_supported")
    assert "batch prediction" in refused.value.message

    alice = api_client(tenants["alice"])
    other = model_version(
        tenants["project_a"], template="time_series_forecasting", onnx=b"x", preprocessing=mv.preprocessing
    )
    shadow = alice.post(
        f"/api/v1/deployments/{deployment.pk}/shadow/", {"model_version": other.pk}, format="json"
    )
    assert shadow.status_code == 400 and shadow.json()["error"]["code"] == "template_not_supported", (
        shadow.content
    )
    capture = alice.put(f"/api/v1/deployments/{deployment.pk}/capture/", {"enabled": True}, format="json")
    assert capture.status_code == 400, capture.content
    assert capture.json()["error"]["code"] == "template_not_supported"
    assert alice.get(f"/api/v1/deployments/{deployment.pk}/capture/").json()["enabled"] is False


def test_the_preloader_warms_a_forecaster_with_a_history_it_takes(forecaster):
    from deploy.warm import forecast_warm_up_instance

    from workers.time_series.predictor import ForecastServingPredictor

    predictor = ForecastServingPredictor(forecaster["onnx"], preprocessing=forecaster["preprocessing"])
    instance = forecast_warm_up_instance(predictor.preprocessing)
    assert instance["id"] in forecaster["preprocessing"]["series_ids"]  # its static covariates are known
    (answer,) = predictor.forecast({"instances": [instance]})  # no ForecastInputError: warm_up would skip it
    assert len(answer["mean"]) == HORIZON and np.isfinite(answer["mean"]).all()


def test_the_try_routes_take_a_forecast_request(tenants, api_client, deployed, forecaster):
    mv, deployment, _ = deployed
    alice = api_client(tenants["alice"])
    body = {"instances": forecaster["histories"][:2], "horizon": 3}
    local = forecaster["local"].forecast(forecaster["histories"][:2], 3)
    for route in (f"/api/v1/model-versions/{mv.pk}/try/", f"/api/v1/deployments/{deployment.pk}/try/"):
        answer = alice.post(route, body, format="json")
        assert answer.status_code == 200, answer.content
        assert answer.json()["kind"] == "forecast_prediction"
        assert np.allclose(stacked(answer.json()["predictions"]), stacked(local), rtol=1e-5, atol=1e-6)
    bad = copy.deepcopy(body)
    bad["instances"][1]["values"][0] = None
    refused = alice.post(f"/api/v1/model-versions/{mv.pk}/try/", bad, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["details"]["series"] == 1


def test_a_history_beyond_the_models_arithmetic_is_a_422_never_nan_in_json(live_web, deployed, forecaster):
    _, deployment, secret = deployed
    huge = copy.deepcopy(forecaster["histories"][1])
    huge["values"] = [1e308] * len(huge["values"])
    answer = post(live_web, deployment.pk, secret, {"instances": [forecaster["histories"][0], huge]})
    assert answer.status_code == 422, answer.text
    error = json.loads(answer.text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))["error"]
    assert error["code"] == "model_rejected_input"
    assert error["details"] == {"series": 1, "id": huge["id"], "field": "values"}
