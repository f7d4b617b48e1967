"""A bring-your-own ONNX model with a fixed batch dimension (1, as torch.onnx.export(dynamo=True)
writes it, or 2) is recorded with its batch size at upload and answers batches of any size: in the
hosted API (live gunicorn), the on-prem server package and the device SDK's Python sample, which run
chunks of the fixed size. An ONNX Runtime failure at predict time is a 422 naming the input, not a 500.

The models are built here with onnx.helper."""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import requests
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

from tests.deploy.factories import deployment_with_key
from tests.harness import free_port, wait_for
from tests.packages.packaging_support import unzip_package

CLASSES = ["red", "green", "blue"]
SIZE = 16
PLAIN = {
    "image_size": [SIZE, SIZE],
    "mean": [0.0, 0.0, 0.0],
    "std": [1.0, 1.0, 1.0],
    "resize_mode": "stretch",
}
KEY = "fixed-batch-key"


def colour_classifier(path: Path, *, batch: int | str, reshape_to_one: bool = False) -> Path:
    """float32 [batch, 3, 16, 16] -> [batch, 3] scores: each channel's mean, scaled (the strongest
    colour wins). ``reshape_to_one``: a bad export that reshapes to [1, 3] whatever the batch."""
    weights = numpy_helper.from_array(np.diag([4.0, 4.0, 4.0]).astype(np.float32), "w")
    nodes = [
        helper.make_node("GlobalAveragePool", ["pixels"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
    ]
    initializers = [weights]
    if reshape_to_one:
        initializers.append(numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "one_row"))
        nodes.append(helper.make_node("Reshape", ["flat", "one_row"], ["rows"]))
        nodes.append(helper.make_node("MatMul", ["rows", "w"], ["scores"]))
    else:
        nodes.append(helper.make_node("MatMul", ["flat", "w"], ["scores"]))
    graph = helper.make_graph(
        nodes,
        "colours",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [batch, 3, SIZE, SIZE])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [batch, 3])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


def png(rgb: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (SIZE, SIZE), rgb).save(out, "PNG")
    return out.getvalue()


IMAGES = [png(c) for c in ((200, 10, 10), (10, 200, 10), (10, 10, 200), (150, 120, 10), (30, 60, 90))]
WANTED = ["red", "green", "blue", "red", "blue"]


def upload(client, project, path: Path) -> dict:
    with path.open("rb") as fh:
        answer = client.post(
            "/api/v1/model-versions/upload/",
            {
                "project": project.pk,
                "format": "onnx",
                "file": fh,
                "classes": json.dumps(CLASSES),
                "preprocessing": json.dumps(PLAIN),
            },
            format="multipart",
        )
    assert answer.status_code == 201, answer.content
    return answer.json()


def predict(url: str, secret: str, images: list[bytes]) -> requests.Response:
    body = {"instances": [{"image": base64.b64encode(i).decode()} for i in images], "top_k": 3}
    return requests.post(url, json=body, headers={"Authorization": f"Bearer {secret}"}, timeout=30)


def scores_of(prediction: dict) -> list[float]:
    by_index = {entry["index"]: entry["score"] for entry in prediction["top_k"]}
    return [by_index[i] for i in range(len(CLASSES))]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_upload_records_the_batch_and_the_hosted_api_serves_any_batch(
    live_web, tenants, api_client, tmp_path
):
    from training.models import ModelVersion

    client = api_client(tenants["alice"])
    project = tenants["project_a"]
    for batch, recorded in ((1, 1), (2, 2), ("batch", None)):
        model = upload(client, project, colour_classifier(tmp_path / f"b{batch}.onnx", batch=batch))
        assert model["params"]["batch_size"] == recorded, model["params"]
        version = ModelVersion.objects.get(pk=model["id"])
        deployment, _, secret = deployment_with_key(tenants, version, name=f"fixed {batch}")
        url = f"{live_web}/api/v1/deployments/{deployment.pk}/predict/"
        many = predict(url, secret, IMAGES)  # 5 images: 5 runs of 1, or 3 of 2 (the last one padded)
        assert many.status_code == 200, many.text
        answers = many.json()["predictions"]
        assert [p["top_k"][0]["label"] for p in answers] == WANTED
        singles = [predict(url, secret, [image]).json()["predictions"][0] for image in IMAGES]
        np.testing.assert_allclose(
            [scores_of(p) for p in answers], [scores_of(p) for p in singles], rtol=1e-6
        )


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_an_onnx_runtime_failure_at_predict_time_is_a_422_naming_the_input(
    live_web, tenants, api_client, tmp_path
):
    from training.models import ModelVersion

    client = api_client(tenants["alice"])
    model = upload(
        client,
        tenants["project_a"],
        colour_classifier(tmp_path / "bad.onnx", batch="batch", reshape_to_one=True),
    )
    assert model["params"]["batch_size"] is None  # declared dynamic; it runs on one image at upload
    deployment, _, secret = deployment_with_key(tenants, ModelVersion.objects.get(pk=model["id"]))
    url = f"{live_web}/api/v1/deployments/{deployment.pk}/predict/"
    assert predict(url, secret, IMAGES[:1]).status_code == 200
    refused = predict(url, secret, IMAGES[:2])
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert error["code"] == "model_rejected_input" and "instances[0..1]" in error["message"]
    assert "Reshape" in error["message"] or "reshape" in error["message"], error
    assert error["details"]["field"] == "instances" and error["details"]["count"] == 2


@pytest.fixture(scope="module")
def fixed_batch_artifacts(tmp_path_factory):
    from workers.image_classification.preprocessing import make_spec, validate_spec
    from workers.packaging import ModelArtifacts

    work = tmp_path_factory.mktemp("fixed-batch")
    model = colour_classifier(work / "model.onnx", batch=2)
    files = []
    for i, data in enumerate(IMAGES):
        (work / f"{i}.png").write_bytes(data)
        files.append(work / f"{i}.png")
    spec = validate_spec(make_spec([SIZE, SIZE]) | PLAIN)
    artifacts = ModelArtifacts(
        model,
        spec,
        CLASSES,
        "image_classification",
        {"id": 5, "name": "V5"},
        test_images=files,
        test_labels=[CLASSES.index(w) for w in WANTED],
    )
    return work, artifacts


def test_server_package_of_a_fixed_batch_model_answers_any_batch(fixed_batch_artifacts):
    from workers.packaging import build_server_package

    work, artifacts = fixed_batch_artifacts
    build_server_package(artifacts=artifacts, out_path=work / "server.zip")
    root = unzip_package(work / "server.zip", work / "server")
    expected = json.loads((root / "test_vectors" / "expected.json").read_text())
    assert [v["top_k"][0]["label"] for v in expected["vectors"]] == WANTED
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "DJANGO"))}
    process = subprocess.Popen(
        [sys.executable, "serve.py", "--port", str(port)],
        cwd=root,
        env={**env, "SAMPAN_SERVER_API_KEY": KEY},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> bool:
            try:
                return requests.get(f"{url}/healthz", timeout=2).status_code == 200
            except requests.ConnectionError:
                assert process.poll() is None, process.stderr.read().decode()
                return False

        wait_for(healthy, timeout=60, what="the package's server")
        answer = predict(f"{url}/predict", KEY, IMAGES)
        assert answer.status_code == 200, answer.text
        assert [p["top_k"][0]["label"] for p in answer.json()["predictions"]] == WANTED
        checked = subprocess.run(
            [sys.executable, "check_test_vectors.py", "--url", url],
            cwd=root,
            env={**env, "SAMPAN_SERVER_API_KEY": KEY},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert json.loads(checked.stdout.strip().splitlines()[-1])["allclose"] is True, (
            checked.stdout + checked.stderr
        )
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


def test_device_sdk_python_sample_runs_a_fixed_batch_model_in_chunks(fixed_batch_artifacts):
    from workers.packaging import build_device_sdk

    work, artifacts = fixed_batch_artifacts
    build_device_sdk(
        artifacts=artifacts, out_path=work / "device.zip", calibration_images=artifacts.test_images
    )
    root = unzip_package(work / "device.zip", work / "device")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "DJANGO"))}
    for model in ("../model.fp32.onnx", "../model.int8.onnx"):
        checked = subprocess.run(
            [sys.executable, "classify.py", "--test-vectors", "--model", model],
            cwd=root / "python",
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert json.loads(checked.stdout.strip().splitlines()[-1])["vectors"] == len(IMAGES)
    files = [str(p) for p in artifacts.test_images]
    classified = subprocess.run(
        [sys.executable, "classify.py", *files, "--model", "../model.fp32.onnx", "--top-k", "1"],
        cwd=root / "python",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert classified.returncode == 0, classified.stderr
    assert [json.loads(line)["top_k"][0]["label"] for line in classified.stdout.splitlines()] == WANTED


def test_device_sdk_javascript_and_cpp_samples_fill_the_fixed_batch(fixed_batch_artifacts):
    """The JS (Node) and C++ samples run one image per call: in a batch of 2 here, the rest zeros."""
    from tests.packages.packaging_support import clean_env, onnxruntime_headers, onnxruntime_library
    from workers.packaging import build_device_sdk

    work, artifacts = fixed_batch_artifacts
    build_device_sdk(
        artifacts=artifacts, out_path=work / "device-native.zip", calibration_images=artifacts.test_images
    )
    root = unzip_package(work / "device-native.zip", work / "device-native")
    javascript = root / "javascript"
    installed = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefer-offline"],
        cwd=javascript,
        capture_output=True,
        text=True,
        timeout=600,
        env=clean_env(),
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    for model in ("fp32", "int8"):
        out = subprocess.run(
            ["node", "run_test_vectors.mjs", "--model", f"../model.{model}.onnx"],
            cwd=javascript,
            capture_output=True,
            text=True,
            timeout=300,
            env=clean_env(),
        )
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
        summary = json.loads(out.stdout.strip().splitlines()[-1])
        assert summary["vectors"] == len(IMAGES) and summary["allclose"] is True, summary
    cpp = root / "cpp"
    library = onnxruntime_library(Path(sys.executable), work / "lib")
    built = subprocess.run(
        ["make", f"ONNXRUNTIME_INCLUDE={onnxruntime_headers()}", f"ONNXRUNTIME_LIB={library}"],
        cwd=cpp,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    files = [str(p) for p in artifacts.test_images]
    out = subprocess.run(
        [str(cpp / "classify"), "../model.fp32.onnx", *files, "--top-k", "1"],
        cwd=cpp,
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert [json.loads(line)["top_k"][0]["label"] for line in out.stdout.splitlines()] == WANTED


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_torch_dynamo_export_with_its_default_batch_of_one_serves_a_batch(
    live_web, tenants, api_client, tmp_path
):
    """The case as users meet it: ``torch.onnx.export(dynamo=True)`` fixes the batch at the example's 1."""
    import torch
    from training.models import ModelVersion

    class ChannelMeans(torch.nn.Module):
        def forward(self, pixels):  # (N, 3, H, W) -> (N, 3): the strongest colour wins
            return pixels.mean(dim=(2, 3)) * 4.0

    path = tmp_path / "dynamo.onnx"
    torch.onnx.export(
        ChannelMeans().eval(), (torch.zeros(1, 3, SIZE, SIZE),), str(path), dynamo=True, external_data=False
    )
    model = upload(api_client(tenants["alice"]), tenants["project_a"], path)
    assert model["params"]["batch_size"] == 1
    deployment, _, secret = deployment_with_key(
        tenants, ModelVersion.objects.get(pk=model["id"]), name="dynamo"
    )
    answer = predict(f"{live_web}/api/v1/deployments/{deployment.pk}/predict/", secret, IMAGES)
    assert answer.status_code == 200, answer.text
    assert [p["top_k"][0]["label"] for p in answer.json()["predictions"]] == WANTED


def test_the_server_packages_service_answers_an_onnx_runtime_failure_with_422(tmp_path):
    """workers.serving.standalone (the server package's code) through the same predict_instances."""
    from workers.image_classification.preprocessing import make_spec, validate_spec
    from workers.serving.protocol import PredictionInputError
    from workers.serving.standalone import PredictionService

    colour_classifier(tmp_path / "model.onnx", batch="batch", reshape_to_one=True)
    (tmp_path / "preprocess.json").write_text(json.dumps(validate_spec(make_spec([SIZE, SIZE]) | PLAIN)))
    (tmp_path / "labels.json").write_text(json.dumps(CLASSES))
    (tmp_path / "manifest.json").write_text(json.dumps({"template": "image_classification"}))
    service = PredictionService(tmp_path, api_key=KEY)
    body = json.dumps({"instances": [{"image": base64.b64encode(i).decode()} for i in IMAGES[:3]]}).encode()
    with pytest.raises(PredictionInputError) as refused:
        service.predict(content_type="application/json", body=body, query_top_k=None)
    assert refused.value.status == 422 and refused.value.code == "model_rejected_input"
    assert "instances[0..2]" in refused.value.message
    one = json.dumps({"instances": [{"image": base64.b64encode(IMAGES[0]).decode()}]}).encode()
    assert json.loads(service.predict(content_type="application/json", body=one, query_top_k=None))[
        "predictions"
    ]
