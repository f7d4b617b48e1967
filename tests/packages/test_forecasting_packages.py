"""Forecasters' server package and device SDK (a LightGBM forecaster, whose trees run in ONNX, and
an ETS one, served from its fitted parameters in NumPy), trained with the real trainer on the
synthetic store sales, installed in fresh virtualenvs with only their requirements (no torch,
LightGBM, statsmodels or scipy): in process and over HTTP they answer the series' histories as the
platform's forecaster does, within rtol=1e-4, atol=1e-5, and refuse a bad history with the hosted
API's code, naming the series and the position."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import requests

from tests.harness import free_port, wait_for
from tests.packages.packaging_support import clean_env, fresh_venv, run_in, unzip_package
from workers.packaging import ModelArtifacts, build_device_sdk, build_server_package
from workers.packaging.forecast_package import histories_from_manifest
from workers.serving.predictors import load_predictor

REPO = Path(__file__).resolve().parents[2]
KEY = "test-key-forecasting"
RTOL, ATOL = 1e-4, 1e-5
HORIZON = 7
MODELS = {"lightgbm": {"model": "lightgbm", "n_estimators": 30}, "ets": {"model": "ets"}}
REFUSED = {"torch", "lightgbm", "statsmodels", "scipy", "pandas", "scikit-learn", "django"}


VENVS: dict[str, Path] = {}


def venv_for(requirements: Path, into: Path) -> Path:
    text = requirements.read_text()
    if text not in VENVS:
        VENVS[text] = fresh_venv(into, requirements)
    return VENVS[text]


@pytest.fixture(scope="module", params=sorted(MODELS))
def package(request, tmp_path_factory):
    from workers.time_series import synthetic
    from workers.time_series.trainer import train

    work = tmp_path_factory.mktemp(f"forecast-{request.param}")
    manifest = synthetic.manifest(synthetic.multi_series(n_series=4, length=100, seed=0), horizon=HORIZON)
    result = train({"preset": "fast", **MODELS[request.param]}, manifest, work / "run")
    histories = histories_from_manifest(manifest, limit=20)
    assert len(histories) == 4 and all(
        len(h["known"]["price"]) == len(h["values"]) + HORIZON for h in histories
    )
    artifacts = ModelArtifacts(
        result["onnx"],
        result["preprocessing"],
        [],
        "time_series_forecasting",
        {"id": 11, "name": "V3", "template": "time_series_forecasting"},
        test_instances=histories,
    )
    report = build_server_package(artifacts=artifacts, out_path=work / "server.zip")
    root = unzip_package(work / "server.zip", work / "server")
    platform_dir = work / "platform"  # the model as the hosted API serves it (deploy.serving.materialize)
    platform_dir.mkdir()
    (platform_dir / "model.onnx").write_bytes(Path(result["onnx"]).read_bytes())
    (platform_dir / "preprocess.json").write_text(json.dumps(result["preprocessing"]))
    (platform_dir / "labels.json").write_text("[]")
    (platform_dir / "manifest.json").write_text(json.dumps({"template": "time_series_forecasting"}))
    return {
        "model": request.param,
        "work": work,
        "report": report,
        "root": root,
        "artifacts": artifacts,
        "histories": histories,
        "python": venv_for(root / "requirements.txt", work / "venv"),
        "platform": load_predictor(platform_dir),
    }


@pytest.fixture(scope="module")
def server(package):
    port = free_port()
    log_path = package["work"] / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [str(package["python"]), "serve.py", "--port", str(port)],
        cwd=package["root"],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=clean_env(package["python"].parent.parent, SAMPAN_SERVER_API_KEY=KEY),
    )
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return requests.get(f"{url}/healthz", timeout=2).status_code == 200
        except requests.ConnectionError:
            assert process.poll() is None, log_path.read_text()
            return False

    wait_for(healthy, timeout=60, what="the forecasting package's server")
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)
    log.close()


def stacked(predictions: list[dict[str, Any]]) -> np.ndarray:
    """Each forecast's mean and quantiles (by level) as one array."""
    return np.array(
        [[p["mean"], *(p["quantiles"][q] for q in sorted(p["quantiles"]))] for p in predictions],
        dtype=np.float64,
    )


def test_package_vendors_the_forecaster_and_needs_no_training_libraries(package):
    root = package["root"]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["template"] == "time_series_forecasting"
    vendored = set(manifest["runtime"]["vendored_files"])
    assert {
        "workers/time_series/predictor.py",
        "workers/time_series/history.py",
        "workers/time_series/frequency.py",
        "workers/time_series/features.py",
        "workers/time_series/baselines.py",
        "workers/contracts/forecasting.py",
        "workers/serving/standalone.py",
    } <= vendored
    for relative in vendored:
        assert (root / relative).read_bytes() == (REPO / relative).read_bytes(), relative
    training_code = {
        f"workers/time_series/{name}.py" for name in ("trainer", "learned", "neural", "evaluation")
    }
    assert not vendored & training_code
    pins = {r.split("==")[0].lower() for r in (root / "requirements.txt").read_text().split()}
    assert {"numpy", "onnxruntime"} <= pins and not pins & REFUSED
    readme = (root / "README.md").read_text()
    assert "{{" not in readme and "forecast_prediction" in readme and "history_gap" in readme
    member = package["model"]
    assert f"{member} (1.00)" in readme
    assert ("serve from their fitted parameters" in readme) == (member == "ets")
    expected = json.loads((root / "test_vectors" / "expected.json").read_text())
    assert expected["task"] == "forecast" and expected["data_kind"] == "time_series"
    assert len(expected["vectors"]) == package["report"]["test_vectors"] == len(package["histories"])


def test_packaged_check_matches_the_platform_in_process(package):
    out = run_in(package["python"], ["check_test_vectors.py", "--out", "answers.json"], cwd=package["root"])
    assert json.loads(out)["allclose"] is True, out
    answers = json.loads((package["root"] / "answers.json").read_text())["predictions"]
    platform = package["platform"].forecast({"instances": package["histories"]})
    assert [a["timestamps"] for a in answers] == [p["timestamps"] for p in platform]
    assert np.allclose(stacked(answers), stacked(platform), rtol=RTOL, atol=ATOL)


def test_server_answers_like_the_platform_and_refuses_bad_histories(package, server):
    headers = {"Authorization": f"Bearer {KEY}"}
    body = {"instances": package["histories"], "horizon": 3, "quantiles": [0.9, 0.1]}
    answer = requests.post(f"{server}/predict", json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert got["kind"] == "forecast_prediction" and got["model_version"]["name"] == "V3"
    platform = package["platform"].forecast(body)
    assert [p["id"] for p in got["predictions"]] == [h["id"] for h in package["histories"]]
    assert all(len(p["mean"]) == 3 and sorted(p["quantiles"]) == ["0.1", "0.9"] for p in got["predictions"])
    assert np.allclose(stacked(got["predictions"]), stacked(platform), rtol=RTOL, atol=ATOL)
    out = run_in(
        package["python"],
        ["check_test_vectors.py", "--url", server],
        cwd=package["root"],
        SAMPAN_SERVER_API_KEY=KEY,
    )
    assert json.loads(out)["allclose"] is True, out

    readme_body = re.search(r"-d '(.*?)'", (package["root"] / "README.md").read_text())
    assert readme_body is not None
    example = requests.post(
        f"{server}/predict",
        data=readme_body.group(1),
        headers={**headers, "Content-Type": "application/json"},
        timeout=60,
    )
    assert example.status_code == 200 and len(example.json()["predictions"][0]["mean"]) == HORIZON, (
        example.text
    )

    gap = json.loads(json.dumps(package["histories"][1]))
    del gap["timestamps"][10], gap["values"][10]
    for known in gap["known"].values():
        del known[10]
    refused = requests.post(
        f"{server}/predict", json={"instances": [package["histories"][0], gap]}, headers=headers, timeout=60
    )
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "history_gap"
    assert error["details"] == {"series": 1, "id": gap["id"], "position": 10, "field": "timestamps"}
    assert "instances[1]" in error["message"] and "timestamps[10]" in error["message"]


def test_device_sdk_python_sample_forecasts_like_the_platform(package):
    work = package["work"]
    build_device_sdk(artifacts=package["artifacts"], out_path=work / "sdk.zip", calibration_images=[])
    root = unzip_package(work / "sdk.zip", work / "sdk")
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["samples"] == {"python": "python/forecast.py"} and manifest["models"].keys() == {"fp32"}
    readme = (root / "README.md").read_text()
    assert "{{" not in readme and ("serve from their fitted parameters" in readme) == (
        package["model"] == "ets"
    )
    pins = {r.split("==")[0].lower() for r in (root / "python" / "requirements.txt").read_text().split()}
    assert not pins & REFUSED
    python = venv_for(root / "python" / "requirements.txt", work / "sdk-venv")
    out = run_in(python, ["python/forecast.py", "--test-vectors"], cwd=root)
    assert json.loads(out)["allclose"] is True, out
    (root / "history.json").write_text(json.dumps(package["histories"][2]))
    out = run_in(python, ["python/forecast.py", "history.json", "--horizon", "2"], cwd=root)
    (answer,) = json.loads(out)
    platform = package["platform"].forecast({"instances": [package["histories"][2]], "horizon": 2})
    assert answer["timestamps"] == platform[0]["timestamps"]
    assert np.allclose(stacked([answer]), stacked(platform), rtol=RTOL, atol=ATOL)
