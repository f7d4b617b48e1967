"""The on-prem server package, built from a trained digits model, installed in a fresh virtualenv with
only its requirements.txt (no torch, no platform code), answers its test vectors and HTTP requests
exactly as the platform's predictor does, and refuses bad requests with the hosted API's errors."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import requests
from PIL import Image

from tests.harness import free_port, wait_for
from tests.packages.packaging_support import clean_env, digits_artifacts, fresh_venv, run_in, unzip_package
from workers.packaging import build_server_package
from workers.serving.predictors import load_predictor
from workers.serving.protocol import decode_image

REPO = Path(__file__).resolve().parents[2]
KEY = "test-key-0123456789"
RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    artifacts, _, run_dir = digits_artifacts()
    work = tmp_path_factory.mktemp("server-package")
    calls = []
    report = build_server_package(
        artifacts=artifacts,
        out_path=work / "server.zip",
        report=lambda message="", **kw: calls.append((message, kw)),
    )
    root = unzip_package(work / "server.zip", work / "unzipped")
    python = fresh_venv(work / "venv", root / "requirements.txt")
    return {
        "report": report,
        "root": root,
        "python": python,
        "run_dir": run_dir,
        "artifacts": artifacts,
        "calls": calls,
        "archive": work / "server.zip",
    }


@pytest.fixture(scope="module")
def server(package):
    """serve.py running from the fresh venv, body limit lowered to test the 413."""
    port = free_port()
    log = (package["root"].parent / "server.log").open("wb")
    process = subprocess.Popen(
        [str(package["python"]), "serve.py", "--port", str(port)],
        cwd=package["root"],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=clean_env(
            package["python"].parent.parent,
            SAMPAN_SERVER_API_KEY=KEY,
            SAMPAN_SERVER_MAX_BODY_BYTES="300000",
            SAMPAN_SERVER_MAX_BATCH="16",
        ),
    )
    url = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return requests.get(f"{url}/healthz", timeout=2).status_code == 200
        except requests.ConnectionError:
            assert process.poll() is None, (package["root"].parent / "server.log").read_text()
            return False

    wait_for(healthy, timeout=60, what="the package's server")
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)
    log.close()


def vectors(package) -> tuple[list[Path], dict]:
    expected = json.loads((package["root"] / "test_vectors" / "expected.json").read_text())
    return [package["root"] / "test_vectors" / v["file"] for v in expected["vectors"]], expected


def platform_scores(package, files: list[Path]) -> np.ndarray:
    """The platform's predictor (the one the hosted API runs) on the training run's own files."""
    predictor = load_predictor(package["run_dir"])
    ranked = predictor.predict([decode_image(f.read_bytes()) for f in files], 10)
    return as_scores(ranked)


def as_scores(ranked: list[list[dict]]) -> np.ndarray:
    scores = np.zeros((len(ranked), 10))
    for row, answer in enumerate(ranked):
        assert [e["score"] for e in answer] == sorted((e["score"] for e in answer), reverse=True)
        for entry in answer:
            scores[row, entry["index"]] = entry["score"]
            assert entry["label"] == str(entry["index"])
    return scores


def test_archive_holds_a_self_contained_model_a_manifest_with_every_sha256_and_no_torch(package):
    root, report = package["root"], package["report"]
    manifest = json.loads((root / "manifest.json").read_text())
    with zipfile.ZipFile(package["archive"]) as archive:  # the archive itself, not what running it added
        contents = {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()}
    files = set(contents)
    assert {e["path"] for e in manifest["files"]} == files - {"manifest.json"}
    for entry in manifest["files"]:
        data = contents[entry["path"]]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"], entry[
            "path"
        ]
    assert {
        "model.onnx",
        "preprocess.json",
        "labels.json",
        "requirements.txt",
        "Dockerfile",
        "README.md",
        "serve.py",
        "test_vectors/expected.json",
        "workers/serving/standalone.py",
        "workers/serving/protocol.py",
        "workers/serving/predictors.py",
        "workers/image_classification/predictor.py",
    } <= files
    assert manifest["model_version"] == {"id": 41, "name": "V7", "template": "image_classification"}
    assert manifest["model"]["inputs"] == [
        {"name": "input", "shape": ["batch", 3, 32, 32], "dtype": "float32"}
    ]
    assert manifest["model"]["outputs"] == [{"name": "logits", "shape": ["batch", 10], "dtype": "float32"}]
    assert manifest["model"]["opset"]["ai.onnx"] >= 17 and manifest["sampan_version"]
    from workers.shared.onnx_model import check_onnx_self_contained

    check_onnx_self_contained(root / "model.onnx")
    # the vendored code is the platform's, byte for byte
    for relative in manifest["runtime"]["vendored_files"]:
        assert (root / relative).read_bytes() == (REPO / relative).read_bytes(), relative
    requirements = (root / "requirements.txt").read_text().split()
    assert {r.split("==")[0].lower() for r in requirements} == {"numpy", "onnx", "onnxruntime", "pillow"}
    assert all("==" in r for r in requirements) and not any("torch" in r for r in requirements)
    dockerfile = (root / "Dockerfile").read_text()
    user = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert user and user[-1].split(":")[0] not in ("root", "0")
    # the base image runs the Python these pins were installed with below; the server listens outside
    assert f"FROM python:{sys.version_info.major}.{sys.version_info.minor}-slim" in dockerfile
    assert "SAMPAN_SERVER_HOST=0.0.0.0" in dockerfile and 'CMD ["python", "serve.py"]' in dockerfile
    assert "pip install --no-cache-dir -r requirements.txt" in dockerfile
    assert json.loads((root / "labels.json").read_text()) == [str(d) for d in range(10)]
    assert report["sha256"] == hashlib.sha256(package["archive"].read_bytes()).hexdigest()
    assert report["size_bytes"] == package["archive"].stat().st_size and report["test_vectors"] == 20
    assert package["calls"][-1][1]["fraction"] == 1.0
    print(
        json.dumps(
            {
                "server_package_bytes": report["size_bytes"],
                "model_bytes": (root / "model.onnx").stat().st_size,
            }
        )
    )


def test_fresh_venv_has_no_torch_and_runs_the_packaged_code(package):
    out = run_in(
        package["python"],
        [
            "-c",
            "import importlib.util, json, workers; print(json.dumps("
            "[importlib.util.find_spec('torch') is None, workers.__file__]))",
        ],
        cwd=package["root"],
    )
    no_torch, workers_file = json.loads(out)
    assert (
        no_torch and Path(workers_file).resolve() == (package["root"] / "workers" / "__init__.py").resolve()
    )


def test_packaged_predictor_matches_the_platform_on_the_test_vectors(package):
    out = run_in(package["python"], ["check_test_vectors.py", "--out", "answers.json"], cwd=package["root"])
    assert json.loads(out)["allclose"] is True
    files, expected = vectors(package)
    answers = json.loads((package["root"] / "answers.json").read_text())
    platform = platform_scores(package, files)
    np.testing.assert_allclose(np.array(answers["scores"]), platform, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(
        np.array([v["scores"] for v in expected["vectors"]]), platform, rtol=RTOL, atol=ATOL
    )
    labels = [v["label"] for v in expected["vectors"]]
    assert sorted(set(labels)) == list(range(10))  # the vectors cover every class
    assert (platform.argmax(axis=1) == np.array(labels)).mean() >= 0.8


def test_server_answers_json_multipart_and_raw_images_like_the_platform(package, server):
    files, _ = vectors(package)
    platform = platform_scores(package, files)
    headers = {"Authorization": f"Bearer {KEY}"}
    body = {
        "instances": [{"image": base64.b64encode(f.read_bytes()).decode()} for f in files[:12]],
        "top_k": 10,
    }
    answer = requests.post(f"{server}/predict", json=body, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    payload = answer.json()
    assert payload["model_version"] == {"id": 41, "name": "V7", "template": "image_classification"}
    assert payload["latency_ms"] >= 0
    np.testing.assert_allclose(
        as_scores([p["top_k"] for p in payload["predictions"]]), platform[:12], rtol=RTOL, atol=ATOL
    )
    multipart = requests.post(
        f"{server}/predict",
        headers={"X-Sampan-Key": KEY},
        timeout=30,
        files=[("file", (f.name, f.read_bytes(), "image/png")) for f in files[12:]],
        data={"top_k": "10"},
    )
    assert multipart.status_code == 200, multipart.text
    np.testing.assert_allclose(
        as_scores([p["top_k"] for p in multipart.json()["predictions"]]), platform[12:], rtol=RTOL, atol=ATOL
    )
    raw = requests.post(
        f"{server}/predict?top_k=3",
        data=files[0].read_bytes(),
        timeout=30,
        headers={**headers, "Content-Type": "image/png"},
    )
    assert raw.status_code == 200, raw.text
    (prediction,) = raw.json()["predictions"]
    assert [e["index"] for e in prediction["top_k"]] == list(np.argsort(-platform[0], kind="stable")[:3])
    # the package's own HTTP check, run from the fresh venv
    out = run_in(
        package["python"],
        ["check_test_vectors.py", "--url", server],
        cwd=package["root"],
        SAMPAN_SERVER_API_KEY=KEY,
    )
    assert json.loads(out)["allclose"] is True and json.loads(out)["top1_agreement"] == 1.0
    health = requests.get(f"{server}/healthz", timeout=5).json()
    assert health["status"] == "ok" and health["model_version"]["name"] == "V7"
    assert requests.head(f"{server}/healthz", timeout=5).status_code == 200


def _png(size=(40, 40)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer wrong-key"}, 401),
        ({"X-Sampan-Key": KEY[:-1]}, 401),
        ({"Authorization": f"Basic {KEY}"}, 401),
    ],
)
def test_server_refuses_missing_and_wrong_keys(server, headers, status):
    answer = requests.post(
        f"{server}/predict", data=_png(), headers={**headers, "Content-Type": "image/png"}, timeout=10
    )
    assert answer.status_code == status
    assert (
        answer.json()["error"]["code"] == "invalid_api_key" and "API key" in answer.json()["error"]["message"]
    )


def test_server_names_the_problem_of_bad_bodies(server):
    headers = {"Authorization": f"Bearer {KEY}"}

    def post(**kwargs):
        answer = requests.post(f"{server}/predict", timeout=30, **kwargs)
        return answer.status_code, answer.json()["error"]

    status, error = post(
        data=b"\x89PNG\r\n\x1a\nnot really", headers={**headers, "Content-Type": "image/png"}
    )
    assert status == 400 and error["code"] == "invalid_image" and "image" in error["message"]
    status, error = post(data=b"", headers={**headers, "Content-Type": "image/png"})
    assert status == 400 and error["code"] == "empty_input"
    status, error = post(json={"instances": []}, headers=headers)
    assert status == 400 and error["code"] == "empty_input"
    status, error = post(data=os.urandom(400_000), headers={**headers, "Content-Type": "image/png"})
    assert status == 413 and error["code"] == "body_too_large" and error["details"]["limit_bytes"] == 300_000
    instance = {"image": base64.b64encode(_png((8, 8))).decode()}
    status, error = post(json={"instances": [instance] * 17}, headers=headers)
    assert status == 413 and error["code"] == "batch_too_large" and "16" in error["message"]
    status, error = post(data=b"hello", headers={**headers, "Content-Type": "text/plain"})
    assert status == 415 and error["code"] == "unsupported_media_type"
    status, error = post(json={"instances": [{"image": "***"}]}, headers=headers)
    assert status == 400 and error["code"] == "invalid_base64"
    answer = requests.get(f"{server}/nothing-here", timeout=10)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    answer = requests.get(f"{server}/predict", timeout=10)
    assert answer.status_code == 405 and answer.json()["error"]["code"] == "method_not_allowed"
    answer = requests.request("TRACE", f"{server}/predict", timeout=10)
    assert answer.status_code == 501 and answer.json()["error"]["code"] == "http_501"
    # the server is still healthy and answering after the refusals
    ok = requests.post(
        f"{server}/predict", data=_png(), headers={**headers, "Content-Type": "image/png"}, timeout=10
    )
    assert ok.status_code == 200 and len(ok.json()["predictions"]) == 1


def test_server_refuses_to_start_without_an_api_key(package):
    started = time.monotonic()
    out = subprocess.run(
        [str(package["python"]), "serve.py", "--port", str(free_port())],
        cwd=package["root"],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_env(package["python"].parent.parent),
    )
    assert out.returncode == 2 and "SAMPAN_SERVER_API_KEY" in out.stderr
    assert time.monotonic() - started < 60


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_package_server_answers_like_the_hosted_api_for_the_same_model(package, server, live_web, tenants):
    """The same model version deployed on the platform (gunicorn, deployment key) and in the package."""
    from tests.deploy.factories import deployment_with_key, model_version_from

    model_version = model_version_from(tenants, package["run_dir"])
    deployment, _, secret = deployment_with_key(tenants, model_version)
    files, _ = vectors(package)
    body = {
        "instances": [{"image": base64.b64encode(f.read_bytes()).decode()} for f in files[:10]],
        "top_k": 10,
    }
    hosted = requests.post(
        f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
        json=body,
        timeout=60,
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert hosted.status_code == 200, hosted.text
    local = requests.post(
        f"{server}/predict", json=body, headers={"Authorization": f"Bearer {KEY}"}, timeout=60
    )
    assert local.status_code == 200, local.text
    hosted_scores = as_scores([p["top_k"] for p in hosted.json()["predictions"]])
    np.testing.assert_allclose(
        as_scores([p["top_k"] for p in local.json()["predictions"]]), hosted_scores, rtol=RTOL, atol=ATOL
    )
    assert (
        set(hosted.json())
        == set(local.json())
        == {
            "kind",
            "version",
            "model_version",
            "predictions",
            "latency_ms",
        }
    )
    assert hosted.json()["kind"] == local.json()["kind"] == "classification_prediction"
    assert hosted.json()["model_version"]["template"] == local.json()["model_version"]["template"]
    # and the same refusal for the same bad input
    corrupt = {"instances": [{"image": base64.b64encode(b"\x89PNG\r\n\x1a\ngarbage").decode()}]}
    hosted_error = requests.post(
        f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
        json=corrupt,
        timeout=30,
        headers={"Authorization": f"Bearer {secret}"},
    )
    local_error = requests.post(
        f"{server}/predict", json=corrupt, headers={"Authorization": f"Bearer {KEY}"}, timeout=30
    )
    assert hosted_error.status_code == local_error.status_code == 400
    assert hosted_error.json()["error"]["code"] == local_error.json()["error"]["code"] == "invalid_image"
