"""Tabular classification and regression through the REST API against PostgreSQL, Redis and a live
worker: import real sklearn data (a background import job), version, train LightGBM and the MLP,
read the evaluation, and serve the exported ONNX with the predictor taking original column names."""

from __future__ import annotations

from pathlib import Path

import pytest
from datasets.models import ImportBatch
from jobs.models import Job

from tests.datasets.factories import upload
from tests.harness import wait_for
from tests.templates_tabular.tables import csv_bytes, frame, parquet_bytes
from workers.tabular.predictor import TabularPredictor

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def finished(job_id: int, timeout: float = 600) -> Job:
    def done():
        job = Job.objects.get(pk=job_id)
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    job = wait_for(done, timeout=timeout, interval=1, what=f"job {job_id}")
    assert job.status == "succeeded", f"{job.status}: {job.error}"
    return job


def built_package(client, model_version: int, kind: str) -> dict:
    created = client.post("/api/v1/packages/", {"model_version": model_version, "kind": kind}, format="json")
    assert created.status_code == 201, created.content
    finished(created.json()["job"])
    package = client.get(f"/api/v1/packages/{created.json()['id']}/").json()
    assert package["status"] == "succeeded", package["error"]
    return package


def package_files(client, package: dict) -> list[str]:
    import io
    import zipfile

    download = client.get(package["download_url"])
    assert download.status_code == 200
    # the archive holds one folder (e.g. sampan-server-v1/); the paths inside it
    return [
        name.split("/", 1)[1]
        for name in zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))).namelist()
    ]


def table_version(client, tenants, *, task_type: str, name: str, filename: str, data: bytes) -> dict:
    dataset = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": name, "task_type": task_type},
        format="json",
    ).json()["id"]
    imported = client.post(
        f"/api/v1/datasets/{dataset}/imports/",
        {"file": upload(filename, data), "target_column": "target", "background": True},
        format="multipart",
    )
    assert imported.status_code == 202, imported.content
    finished(imported.json()["job"], timeout=300)
    assert ImportBatch.objects.get(pk=imported.json()["id"]).status == "succeeded"
    version = client.post(f"/api/v1/datasets/{dataset}/versions/", {"seed": 11}, format="json")
    assert version.status_code == 201, version.content
    return version.json()


def assert_holds(payload: dict, component: str) -> None:
    """The payload is its contract as the OpenAPI schema describes it (no key more, none missing)."""
    from tests.openapi_conformance import _validate

    _validate(payload, {"$ref": f"#/components/schemas/{component}"}, component)


def train(client, version: dict, **body) -> dict:
    started = client.post("/api/v1/training-jobs/", {"dataset_version": version["id"], **body}, format="json")
    assert started.status_code == 201, started.content
    job = finished(started.json()["id"])
    model = client.get(f"/api/v1/model-versions/{job.result['model_version']}/").json()
    return model


def onnx_of(client, model: dict, tmp_path) -> str:
    response = client.get(f"/api/v1/model-versions/{model['id']}/onnx/")
    assert response.status_code == 200
    path = tmp_path / f"model-{model['id']}.onnx"
    path.write_bytes(b"".join(response.streaming_content))
    return str(path)


def test_wine_gradient_boosted_trees_then_serving_rows(live_worker, tenants, api_client, tmp_path):
    client = api_client(tenants["alice"])
    version = table_version(
        client,
        tenants,
        task_type="tabular_classification",
        name="Wine",
        filename="wine.csv",
        data=csv_bytes("wine"),
    )
    model = train(client, version, preset="fast")
    assert model["template"] == "tabular_classification" and model["params"]["model"] == "gbdt"
    assert model["metrics"]["test"]["accuracy"] >= 0.85, model["metrics"]
    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert (
        sum(map(sum, report["confusion_matrix"]["counts"]))
        == report["samples"]
        == sum(version["counts"]["test"].values())
    )
    assert {f["feature"] for f in report["feature_importance"]} == set(frame("wine").columns) - {"target"}
    assert_holds(report, "ClassificationReport")

    predictor = TabularPredictor(onnx_of(client, model, tmp_path))
    rows = frame("wine").drop(columns="target").to_dict("records")
    answers = predictor.predict([rows[0], rows[-1], {**rows[0], "alcohol": None}], top_k=2)
    assert [a[0]["label"] for a in answers[:2]] == ["class_0", "class_2"]
    assert abs(sum(x["score"] for x in predictor.predict([rows[5]], top_k=3)[0]) - 1.0) < 1e-4
    with pytest.raises(ValueError, match="none of the model's columns"):
        predictor.predict([{"colour": "red"}])

    # the hosted deployment answers JSON rows with the original column names
    deployment = client.post(
        "/api/v1/deployments/",
        {"project": tenants["project_a"].pk, "model_version": model["id"], "name": "wine"},
        format="json",
    )
    assert deployment.status_code == 201, deployment.content
    key = client.post(
        f"/api/v1/deployments/{deployment.json()['id']}/keys/", {"name": "k"}, format="json"
    ).json()["key"]
    from rest_framework.test import APIClient

    caller = APIClient()
    url = f"/api/v1/deployments/{deployment.json()['id']}/predict/"
    answer = caller.post(
        url, {"instances": [rows[0], rows[-1]], "top_k": 1}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )
    assert answer.status_code == 200, answer.content
    assert [p["top_k"][0]["label"] for p in answer.json()["predictions"]] == ["class_0", "class_2"]
    assert answer.json()["model_version"]["template"] == "tabular_classification"
    # a row the model cannot read is the caller's mistake: a 400 naming it, never a 500
    unreadable = caller.post(
        url, {"instances": [{"colour": "red"}]}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )
    assert unreadable.status_code == 400, unreadable.content
    assert "none of the model's columns" in unreadable.json()["error"]["message"]

    # the on-prem server package is built by the job from the version's own test rows
    package = built_package(client, model["id"], "server")
    names = set(package_files(client, package))
    assert {"model.onnx", "preprocess.json", "labels.json", "manifest.json", "requirements.txt"} <= names, (
        names
    )
    assert any(name.startswith("test_vectors/") for name in names), names


def test_diabetes_regression_with_the_mlp(live_worker, tenants, api_client, tmp_path):
    client = api_client(tenants["alice"])
    version = table_version(
        client,
        tenants,
        task_type="tabular_regression",
        name="Diabetes",
        filename="diabetes.parquet",
        data=parquet_bytes("diabetes"),
    )
    # holdout: one MLP training as before cross-validation (k-fold would train it 6 times; CI time)
    model = train(client, version, preset="neural", params={"epochs": 40, "validation": "holdout"})
    assert model["template"] == "tabular_regression" and model["params"]["model"] == "mlp"
    test = model["metrics"]["test"]
    assert set(test) == {"mae", "rmse", "r2"} and test["r2"] > 0.2, test
    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert len(report["residuals"]["points"]) == report["samples"] and report["feature_importance"]
    assert_holds(report, "RegressionReport")
    # Two regression versions compare by MAE, RMSE and R2 (deltas b minus a; here a version with itself).
    compared = client.get(f"/api/v1/model-versions/compare/?a={model['id']}&b={model['id']}")
    assert compared.status_code == 200, compared.content
    assert compared.json()["kind"] == "regression_comparison"
    assert compared.json()["rmse"] == {"a": test["rmse"], "b": test["rmse"], "delta": 0.0}
    assert_holds(compared.json(), "ModelVersionRegressionComparison")
    predictor = TabularPredictor(onnx_of(client, model, tmp_path))
    row = frame("diabetes").drop(columns="target").iloc[0].to_dict()
    (answer,) = predictor.predict([row])
    assert set(answer[0]) == {"value"} and 25 < answer[0]["value"] < 350

    # the device SDK of a regression MLP: fp32 and dynamically quantized int8, no calibration images
    package = built_package(client, model["id"], "device")
    names = set(package_files(client, package))
    assert {"model.fp32.onnx", "model.int8.onnx", "preprocess.json", "manifest.json"} <= names, names


def test_the_serving_protocol_loads_a_tabular_model_directory(tmp_path):
    """workers.serving's load_predictor + parse_request serve rows with the original column names."""
    import json

    from workers.serving.predictors import load_predictor
    from workers.serving.protocol import PredictionInputError, parse_request
    from workers.tabular.trainer import train as train_tabular

    data = frame("breast_cancer", rows=120)
    columns = [c for c in data.columns if c != "target"]
    classes = sorted(data["target"].unique())
    samples = [
        {
            "id": i,
            "split": "test" if i % 5 == 0 else "train",
            "values": {c: float(row[c]) for c in columns},
            "label": classes.index(row["target"]),
        }
        for i, row in data.iterrows()
    ]
    result = train_tabular(
        {"preset": "fast"},
        {
            "kind": "tabular",
            "task": "classification",
            "target": "target",
            "columns": [{"name": c, "type": "numeric"} for c in columns],
            "classes": classes,
            "samples": samples,
        },
        tmp_path / "run",
    )
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "model.onnx").write_bytes(Path(result["onnx"]).read_bytes())
    (model_dir / "preprocess.json").write_text(json.dumps(result["preprocessing"]))
    (model_dir / "labels.json").write_text(json.dumps(classes))
    (model_dir / "manifest.json").write_text(json.dumps({"template": "tabular_classification"}))
    predictor = load_predictor(model_dir)
    assert predictor.data_kind == "tabular" and predictor.classes == classes
    rows = data.drop(columns="target").head(3).to_dict("records")
    parsed = parse_request(
        content_type="application/json",
        body=json.dumps({"instances": rows, "top_k": 1}).encode(),
        data_kind="tabular",
        max_batch=8,
    )
    answers = predictor.predict(parsed.instances, parsed.top_k)
    assert [a[0]["label"] for a in answers] == list(data["target"].head(3))
    with pytest.raises(PredictionInputError) as refused:
        predictor.predict([{"unknown": 1}], 1)
    assert refused.value.status == 400 and "instance 0" in refused.value.message
