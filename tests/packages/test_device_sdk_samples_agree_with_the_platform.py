"""The device SDK, built from a trained digits model: int8 (static quantization calibrated on training
images) agrees with fp32; the Python sample in a fresh virtualenv, the JavaScript module in Node and
the HTML page in headless Chromium give the platform predictor's answers."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.harness import ARTIFACTS
from tests.packages.packaging_support import (
    clean_env,
    digits_artifacts,
    fresh_venv,
    npm_install,
    onnxruntime_headers,
    onnxruntime_library,
    run_in,
    run_node,
    unzip_package,
)
from workers.image_classification.predictor import ImageClassifier
from workers.image_classification.preprocessing import make_spec, open_image, preprocess_numpy
from workers.packaging import build_device_sdk
from workers.serving.predictors import load_predictor

REPO = Path(__file__).resolve().parents[2]
RTOL, ATOL = 1e-4, 1e-5
# onnxruntime-web's wasm kernels are not bit-identical with the native CPU ones; measured differences
# on these digits are below 1e-6, so the same tolerance as native holds for fp32
JS_RTOL, JS_ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module")
def sdk(tmp_path_factory):
    artifacts, train_paths, run_dir = digits_artifacts()
    work = tmp_path_factory.mktemp("device-sdk")
    report = build_device_sdk(
        artifacts=artifacts, out_path=work / "device.zip", calibration_images=train_paths
    )
    root = unzip_package(work / "device.zip", work / "unzipped")
    return {"report": report, "root": root, "run_dir": run_dir, "artifacts": artifacts, "work": work}


@pytest.fixture(scope="module")
def sample_python(sdk):
    return fresh_venv(sdk["work"] / "venv", sdk["root"] / "python" / "requirements.txt")


@functools.cache
def platform_probabilities(model: str, files: tuple[str, ...]) -> np.ndarray:
    """The platform predictor (fp32: the training run's own model directory, as hosted) on files."""
    if model == "fp32":
        _, _, run_dir = digits_artifacts()
        classifier = load_predictor(run_dir).classifier
    else:
        classifier = ImageClassifier(model)
    return classifier.probabilities([open_image(f) for f in files])


def vector_files(sdk) -> list[str]:
    expected = json.loads((sdk["root"] / "test_vectors" / "expected.fp32.json").read_text())
    return [str(sdk["root"] / "test_vectors" / v["file"]) for v in expected["vectors"]]


def test_int8_keeps_accuracy_and_the_report_is_in_the_archive(sdk):
    report, root = sdk["report"], sdk["root"]
    compression = report["compression"]
    assert json.loads((root / "compression_report.json").read_text()) == compression
    assert compression["test_images"] == len(sdk["artifacts"].test_images) > 200
    assert compression["top1_agreement"] >= 0.98, compression
    assert (
        compression["fp32"]["accuracy"] >= 0.9
        and compression["int8"]["accuracy"] >= compression["fp32"]["accuracy"] - 0.02
    )
    fp32_bytes, int8_bytes = (
        (root / "model.fp32.onnx").stat().st_size,
        (root / "model.int8.onnx").stat().st_size,
    )
    assert (compression["fp32"]["bytes"], compression["int8"]["bytes"]) == (fp32_bytes, int8_bytes)
    assert int8_bytes < 0.5 * fp32_bytes
    assert compression["quantization"]["calibration_images"] == 300
    manifest = json.loads((root / "manifest.json").read_text())
    assert {e["path"] for e in manifest["files"]} >= {
        "model.fp32.onnx",
        "model.int8.onnx",
        "preprocess.json",
        "labels.json",
        "compression_report.json",
        "test_vectors/expected.fp32.json",
        "test_vectors/expected.int8.json",
        "python/classify.py",
        "javascript/sampan_classifier.mjs",
        "javascript/index.html",
        "javascript/package.json",
    }
    int8_ops = {node.op_type for node in __import__("onnx").load(str(root / "model.int8.onnx")).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= int8_ops
    assert manifest["models"]["int8"]["inputs"] == manifest["models"]["fp32"]["inputs"]
    package = json.loads((root / "javascript" / "package.json").read_text())
    assert package["dependencies"]["onnxruntime-web"].split(".")[0].isdigit()  # pinned, not a range
    print(json.dumps({"device_sdk_bytes": report["size_bytes"], **compression}))


def test_python_sample_in_a_fresh_venv_matches_the_platform(sdk, sample_python):
    root = sdk["root"]
    out = run_in(
        sample_python,
        [
            "-c",
            "import importlib.util; print(importlib.util.find_spec('torch') is None and "
            "importlib.util.find_spec('workers') is None)",
        ],
        cwd=root / "python",
    )
    assert out.strip() == "True"
    files = tuple(vector_files(sdk))
    for model in ("fp32", "int8"):
        out = run_in(
            sample_python,
            [
                "python/classify.py",
                "--test-vectors",
                "--model",
                f"model.{model}.onnx",
                "--out",
                f"answers.{model}.json",
            ],
            cwd=root,
        )
        assert json.loads(out)["allclose"] is True
        scores = np.array(json.loads((root / f"answers.{model}.json").read_text())["scores"])
        reference = platform_probabilities(
            "fp32" if model == "fp32" else str(root / "model.int8.onnx"), files
        )
        np.testing.assert_allclose(scores, reference, rtol=RTOL, atol=ATOL)
    # int8 against the platform's fp32 answers on the whole test split
    test_images = [str(p) for p in sdk["artifacts"].test_images]
    out = run_in(
        sample_python,
        ["python/classify.py", "--model", "model.int8.onnx", "--top-k", "1", *test_images],
        cwd=root,
    )
    int8_top = np.array([json.loads(line)["top_k"][0]["index"] for line in out.splitlines()])
    fp32_top = platform_probabilities("fp32", tuple(test_images)).argmax(axis=1)
    agreement = float((int8_top == fp32_top).mean())
    assert agreement >= 0.98, agreement


@pytest.fixture(scope="module")
def javascript(sdk):
    return npm_install(sdk["root"] / "javascript")


def test_javascript_module_in_node_matches_the_platform(sdk, javascript):
    files = tuple(vector_files(sdk))
    for model in ("fp32", "int8"):
        out = run_node(
            ["run_test_vectors.mjs", "--model", f"../model.{model}.onnx", "--out", f"node.{model}.json"],
            javascript,
        )
        summary = json.loads(out.stdout.strip().splitlines()[-1])
        assert summary["vectors"] == len(files)
        scores = np.array(json.loads((javascript / f"node.{model}.json").read_text())["scores"])
        reference = platform_probabilities("fp32", files)
        if model == "fp32":
            assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
            assert summary["top1_agreement"] == 1.0
            np.testing.assert_allclose(scores, reference, rtol=JS_RTOL, atol=JS_ATOL)
        else:
            # int8 kernels differ between wasm and native (onnxruntime 1.32's native int8 probabilities
            # are up to 0.2 off wasm's, and a borderline vector's class can move in one of them): as
            # DESIGN §7 asks, each runtime's top-1 agreement with fp32 is reported, and it stays high;
            # the script exits 1 exactly when its own agreement with the test vectors is not complete.
            native = platform_probabilities(str(sdk["root"] / "model.int8.onnx"), files)
            assert float((scores.argmax(axis=1) == reference.argmax(axis=1)).mean()) >= 0.9
            assert float((native.argmax(axis=1) == reference.argmax(axis=1)).mean()) >= 0.9
            assert summary["top1_agreement"] >= 0.9
            expected_code = 0 if summary["top1_agreement"] == 1.0 else 1
            assert out.returncode == expected_code, out.stdout[-2000:] + out.stderr[-2000:]


PREPROCESS_SCRIPT = """
import { readFileSync } from "node:fs";
import { PNG } from "pngjs";
import { preprocess } from "./sampan_classifier.mjs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ file, spec }) => {
  const png = PNG.sync.read(readFileSync(file));
  return Array.from(preprocess({ data: png.data, width: png.width, height: png.height }, spec));
});
console.log(JSON.stringify(out));
"""


def test_javascript_preprocessing_is_pillows(javascript, tmp_path):
    """Resizing down, up in one axis and down in the other, bilinear and bicubic, stretch and centre
    crop, and transparency: the module's input tensor equals the platform's NumPy/Pillow one exactly."""
    rng = np.random.default_rng(3)
    cases = []
    sizes = [(57, 41), (20, 33), (128, 96), (31, 31)]
    specs = [
        make_spec(32),
        make_spec([24, 40], resample="bicubic"),
        make_spec(48, resize_mode="center_crop", crop_fraction=0.875),
        make_spec(32, resize_mode="center_crop", crop_fraction=1.0, resample="bicubic"),
    ]
    for index, ((width, height), spec) in enumerate(zip(sizes, specs, strict=True)):
        pixels = rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)
        pixels[..., 3] = 255 if index % 2 == 0 else rng.integers(0, 256, size=(height, width), dtype=np.uint8)
        path = tmp_path / f"case{index}.png"
        Image.fromarray(pixels, mode="RGBA").save(path)
        cases.append({"file": str(path), "spec": spec})
    out = run_node(["--input-type=module", "-e", PREPROCESS_SCRIPT], javascript, stdin=json.dumps(cases))
    assert out.returncode == 0, out.stderr[-2000:]
    for case, tensor in zip(cases, json.loads(out.stdout), strict=True):
        expected = preprocess_numpy(open_image(case["file"], case["spec"]), case["spec"])
        got = np.array(tensor, dtype=np.float32).reshape(expected.shape)
        np.testing.assert_array_equal(got, expected, err_msg=json.dumps(case["spec"]))


class _SdkFiles(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".onnx": "application/octet-stream",
        ".json": "application/json",
    }

    def log_message(self, format, *args):  # noqa: A002
        pass


@pytest.mark.e2e
def test_html_page_classifies_a_dropped_image_in_chromium(sdk, javascript):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SdkFiles, directory=str(sdk["root"])))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    files = vector_files(sdk)[:4]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        env = clean_env(
            SDK_URL=f"http://127.0.0.1:{server.server_address[1]}",
            IMAGES=":".join(files),
            MODEL="fp32",
            FRONTEND=str(REPO / "frontend"),
            E2E_ARTIFACTS=str(ARTIFACTS),
            CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
        )
        out = subprocess.run(
            ["node", str(Path(__file__).with_name("browser_classify.mjs"))],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert [a["image"] for a in answers] == files
    reference = platform_probabilities("fp32", tuple(files))
    np.testing.assert_allclose(
        np.array([a["scores"] for a in answers]), reference, rtol=JS_RTOL, atol=JS_ATOL
    )
    for answer, row in zip(answers, reference, strict=True):
        assert answer["top_k"][0]["index"] == int(row.argmax()) and answer["shown_rows"] == 5
        assert answer["status"].endswith(answer["top_k"][0]["label"])


def test_cpp_sample_compiles_against_the_onnxruntime_c_api_and_matches_the_platform(
    sdk, sample_python, tmp_path
):
    """Headers: Debian's libonnxruntime-dev; library: the onnxruntime wheel from PyPI (docs/packages.md)."""
    folder = sdk["root"] / "cpp"
    library = onnxruntime_library(sample_python, tmp_path / "lib")
    build = subprocess.run(
        ["make", f"ONNXRUNTIME_INCLUDE={onnxruntime_headers()}", f"ONNXRUNTIME_LIB={library}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    files = vector_files(sdk)
    for model in ("fp32", "int8"):
        out = subprocess.run(
            [str(folder / "classify"), f"../model.{model}.onnx", *files, "--top-k", "3"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
            env=clean_env(),
        )
        assert out.returncode == 0, out.stderr[-3000:]
        answers = [json.loads(line) for line in out.stdout.splitlines()]
        assert [a["image"] for a in answers] == files and all(len(a["top_k"]) == 3 for a in answers)
        reference = platform_probabilities(
            "fp32" if model == "fp32" else str(sdk["root"] / "model.int8.onnx"), tuple(files)
        )
        np.testing.assert_allclose(np.array([a["scores"] for a in answers]), reference, rtol=RTOL, atol=ATOL)
    bad = subprocess.run(
        [str(folder / "classify"), "../model.fp32.onnx", "../labels.json"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_env(),
    )
    assert bad.returncode == 1 and "labels.json" in bad.stderr
