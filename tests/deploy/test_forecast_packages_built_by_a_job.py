"""Forecasters' packages through the REST API and a live worker: store sales imported with the
time-series mapping, a version with a horizon, a forecaster trained on its manifest; the
deploy.build_package job builds the server package and the device SDK with test vectors taken from
the version (each series' history before its test window, its known covariates over the horizon)
and the forecasts the hosted API gives for them."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.datasets.factories import upload
from tests.deploy.factories import deployment_with_key
from tests.deploy.test_packages_are_built_by_a_job import built
from workers.time_series import synthetic

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

HORIZON = 7


def forecasting_version(client, tenants):
    from datasets.models import DatasetVersion

    created = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": "Sales", "task_type": "time_series_forecasting"},
        format="json",
    )
    assert created.status_code == 201, created.content
    dataset_id = created.json()["id"]
    rows = synthetic.multi_series(n_series=4, length=80, freq="D", seed=5)
    imported = client.post(
        f"/api/v1/datasets/{dataset_id}/imports/",
        {
            "file": upload("sales.csv", synthetic.to_csv(rows).encode()),
            "timestamp_column": "date",
            "series_column": "store",
            "target_columns": ["sales"],
            "known_covariates": ["price", "holiday"],
            "static_covariates": ["region"],
        },
        format="multipart",
    )
    assert imported.status_code == 201, imported.content

    assert imported.json()["imported"] == len(rows)  # a table import is done when it answers
    version = client.post(f"/api/v1/datasets/{dataset_id}/versions/", {"horizon": HORIZON}, format="json")
    assert version.status_code == 201, version.content
    return DatasetVersion.objects.get(pk=version.json()["id"])


def test_forecaster_packages_carry_the_versions_test_histories_and_the_hosted_forecasts(
    live_worker, live_web, tenants, api_client, tmp_path
):
    import requests
    from datasets.services import dataset_version_manifest

    from tests.training.factories import model_version
    from workers.time_series.trainer import train

    alice = api_client(tenants["alice"])
    version = forecasting_version(alice, tenants)
    manifest = dataset_version_manifest(version=version)
    result = train({"preset": "fast", "model": "lightgbm", "n_estimators": 30}, manifest, tmp_path / "run")
    mv = model_version(
        tenants["project_a"],
        template="time_series_forecasting",
        onnx=Path(result["onnx"]).read_bytes(),
        dataset_version=version,
        classes=[],
        preprocessing=result["preprocessing"],
        params={"model": "lightgbm"},
        metrics={"test": {}},
    )
    created = {
        kind: alice.post("/api/v1/packages/", {"model_version": mv.pk, "kind": kind}, format="json")
        for kind in ("server", "device")
    }
    archives = {}
    for kind, response in created.items():
        assert response.status_code == 201, response.content
        package = built(alice, response.json()["id"])
        data = b"".join(alice.get(package["download_url"]).streaming_content)
        archives[kind] = zipfile.ZipFile(io.BytesIO(data))

    def vectors(kind: str, name: str) -> list[dict]:
        archive = archives[kind]
        (path,) = [n for n in archive.namelist() if n.endswith(f"test_vectors/{name}")]
        expected = json.loads(archive.read(path))
        assert expected["task"] == "forecast" and expected["data_kind"] == "time_series"
        return expected["vectors"]

    server, device = vectors("server", "expected.json"), vectors("device", "expected.fp32.json")
    assert [v["instance"]["id"] for v in server] == [s["id"] for s in manifest["series"]]
    for vector, entry in zip(server, manifest["series"], strict=True):
        history = vector["instance"]
        assert len(history["values"]) == entry["test_start"]  # the history before the test window
        assert len(history["known"]["price"]) == entry["test_start"] + HORIZON
        assert vector["prediction"]["timestamps"][0] > history["timestamps"][-1]
    assert [v["prediction"] for v in device] == [v["prediction"] for v in server]
    assert any(n.endswith("python/forecast.py") for n in archives["device"].namelist())

    deployment, _, secret = deployment_with_key(tenants, mv, name="sales")
    hosted = requests.post(
        f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
        json={"instances": [v["instance"] for v in server]},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=60,
    )
    assert hosted.status_code == 200, hosted.text
    for answer, vector in zip(hosted.json()["predictions"], server, strict=True):
        wanted = vector["prediction"]
        assert answer["timestamps"] == wanted["timestamps"]
        assert np.allclose(answer["mean"], wanted["mean"], rtol=1e-5, atol=1e-6)
        for level, values in wanted["quantiles"].items():
            assert np.allclose(answer["quantiles"][level], values, rtol=1e-5, atol=1e-6)
