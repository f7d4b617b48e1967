"""Packages of an object detector (the tests' tiny trained detector): the device SDK holds fp32 and int8
(static quantization calibrated on training images) with mAP@.5 of each on the test split; its Python
sample, run in a fresh virtualenv with only its requirements, gives the platform Detector's boxes;
its JavaScript module (onnxruntime-web in Node) gives the platform's output maps and decodes them as
decode.py does; its HTML page draws the boxes in headless Chromium; and the server package, in the
same kind of virtualenv, answers its test vectors and HTTP requests as the platform's Detector."""

from __future__ import annotations

import base64
import functools
import json
import os
import signal
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
import requests
from PIL import Image

from tests.harness import ARTIFACTS, free_port, wait_for
from tests.packages.packaging_support import (
    clean_env,
    fresh_venv,
    npm_install,
    pip_install,
    run_in,
    run_node,
    unzip_package,
)
from tests.packages.test_device_sdk_samples_agree_with_the_platform import _SdkFiles
from workers.image_classification.preprocessing import open_image, preprocess_batch
from workers.object_detection.decode import decode, local_peaks
from workers.object_detection.predictor import Detector
from workers.object_detection.synthetic import digit_scenes, write_manifest
from workers.packaging import ModelArtifacts, PackagingError, build_device_sdk, build_server_package
from workers.packaging.device_sdk_detection import match_boxes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workers"))
from detection_models import constant_detector, tiny_detector  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
KEY = "detector-key-0123456789"
MODEL_VERSION = {"id": 52, "name": "D3", "template": "object_detection"}
# the maps of the same model from native ONNX Runtime and from onnxruntime-web's wasm kernels
MAPS_RTOL, MAPS_ATOL = 1e-4, 1e-5
# int8 kernels differ more between runtimes (a known difference): maps within this, boxes matched
INT8_MAPS_ATOL = 0.05
INT8_SCORE_TOL = 0.1
# a low threshold, so that even a briefly trained detector answers with boxes to compare
LOW_THRESHOLD, FEW = 0.0, 20


def detector_artifacts(work: Path) -> tuple[ModelArtifacts, list[str], Path]:
    """(artifacts, training images for calibration, the platform's model directory)."""
    model_dir = tiny_detector()
    # the scenes tiny_detector trains on (deterministic from the seed), written once more here
    manifest = write_manifest(digit_scenes(60, size=64, seed=0, digits_per_image=(1, 3)), work / "data")
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    artifacts = ModelArtifacts(
        model_dir / "model.onnx",
        json.loads((model_dir / "preprocess.json").read_text()),
        json.loads((model_dir / "labels.json").read_text()),
        "object_detection",
        MODEL_VERSION,
        [s["path"] for s in test],
        test_boxes=[s["boxes"] for s in test],
    )
    return artifacts, [s["path"] for s in manifest["samples"] if s["split"] == "train"], model_dir


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Both packages of the detector, unzipped, and one fresh virtualenv with the SDK sample's
    requirements only (the server's, a superset, are installed into it by the ``server`` fixture)."""
    work = tmp_path_factory.mktemp("detection-packages")
    artifacts, train_paths, model_dir = detector_artifacts(work)
    cwd_before = set(os.listdir(os.getcwd()))
    sdk_report = build_device_sdk(
        artifacts=artifacts, out_path=work / "device.zip", calibration_images=train_paths
    )
    server_report = build_server_package(artifacts=artifacts, out_path=work / "server.zip")
    stray = set(os.listdir(os.getcwd())) - cwd_before
    sdk = unzip_package(work / "device.zip", work / "device")
    server = unzip_package(work / "server.zip", work / "server")
    python = fresh_venv(work / "venv", sdk / "python" / "requirements.txt")
    return {
        "work": work,
        "artifacts": artifacts,
        "model_dir": model_dir,
        "sdk": sdk,
        "sdk_report": sdk_report,
        "server": server,
        "server_report": server_report,
        "python": python,
        "stray": stray,
    }


def vector_files(root: Path, name: str) -> tuple[list[Path], dict]:
    expected = json.loads((root / "test_vectors" / name).read_text())
    return [root / "test_vectors" / v["file"] for v in expected["vectors"]], expected


@functools.cache
def platform_detector(model_dir: str) -> Detector:
    """The platform's Detector (the hosted API's predictor) on a model directory."""
    return Detector(model_dir)


def int8_model_dir(sdk: Path) -> str:
    """The SDK's int8 model as a model directory the platform's Detector loads."""
    folder = sdk.parent / "int8-model-dir"
    if not folder.is_dir():
        folder.mkdir()
        for name in ("preprocess.json", "labels.json"):
            (folder / name).write_bytes((sdk / name).read_bytes())
        (folder / "model.onnx").write_bytes((sdk / "model.int8.onnx").read_bytes())
    return str(folder)


def assert_same_answers(got: list[dict], wanted: list[dict]) -> None:
    """The same boxes in the same order: class, and score and corners within float rounding."""
    assert len(got) == len(wanted)
    for a, b in zip(got, wanted, strict=True):
        assert (a["width"], a["height"]) == (b["width"], b["height"])
        assert [box["index"] for box in a["boxes"]] == [box["index"] for box in b["boxes"]]
        assert [box["label"] for box in a["boxes"]] == [box["label"] for box in b["boxes"]]
        for x, y in zip(a["boxes"], b["boxes"], strict=True):
            assert x["score"] == pytest.approx(y["score"], abs=1e-5)
            assert [x[k] for k in ("x", "y", "width", "height")] == pytest.approx(
                [y[k] for k in ("x", "y", "width", "height")], abs=1e-3
            )


def test_device_sdk_reports_map50_of_fp32_and_int8_and_holds_both_samples(built):
    report, sdk = built["sdk_report"], built["sdk"]
    compression = report["compression"]
    assert json.loads((sdk / "compression_report.json").read_text()) == compression
    assert compression["task"] == "detection" and compression["test_images"] == 9
    fp32, int8 = compression["fp32"], compression["int8"]
    assert (fp32["bytes"], int8["bytes"]) == (
        (sdk / "model.fp32.onnx").stat().st_size,
        (sdk / "model.int8.onnx").stat().st_size,
    )
    assert 0.0 <= fp32["map50"] <= 1.0 and 0.0 <= int8["map50"] <= 1.0
    assert compression["map50_drop"] == pytest.approx(fp32["map50"] - int8["map50"], abs=1e-6)
    assert compression["size_ratio"] == pytest.approx(int8["bytes"] / fp32["bytes"], abs=1e-4)
    assert compression["size_ratio"] < 0.5, compression
    assert compression["quantization"]["calibration_images"] == 42
    assert built["stray"] == set()  # quantizing left nothing in the working directory
    import onnx

    ops = {node.op_type for node in onnx.load(str(sdk / "model.int8.onnx")).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    manifest = json.loads((sdk / "manifest.json").read_text())
    assert manifest["template"] == "object_detection" and manifest["model_version"] == MODEL_VERSION
    assert [o["name"] for o in manifest["models"]["int8"]["outputs"]] == ["scores", "boxes"]
    assert manifest["models"]["int8"]["inputs"] == manifest["models"]["fp32"]["inputs"]
    assert {e["path"] for e in manifest["files"]} >= {
        "python/detect.py",
        "python/requirements.txt",
        "python/workers/object_detection/decode.py",
        "python/workers/image_classification/preprocessing.py",
        "javascript/sampan_detector.mjs",
        "javascript/preprocess.mjs",
        "javascript/sdk_page.mjs",
        "javascript/index.html",
        "javascript/run_test_vectors.mjs",
        "test_vectors/expected.fp32.json",
        "test_vectors/expected.int8.json",
    }
    # the sample's decoding and preprocessing are the platform's files, byte for byte
    for relative in ("workers/object_detection/decode.py", "workers/image_classification/preprocessing.py"):
        assert (sdk / "python" / relative).read_bytes() == (REPO / relative).read_bytes()
    requirements = (sdk / "python" / "requirements.txt").read_text().split()
    assert {r.split("==")[0].lower() for r in requirements} == {"numpy", "onnxruntime", "pillow"}
    files, expected = vector_files(sdk, "expected.fp32.json")
    assert len(files) == 9 and expected["task"] == "detection" and expected["score_threshold"] == 0.3
    answers = platform_detector(str(built["model_dir"])).detect([open_image(f) for f in files])
    assert_same_answers(expected["vectors"], answers)


def test_python_sample_in_a_fresh_venv_finds_the_platforms_boxes(built):
    sdk, python = built["sdk"], built["python"]
    out = run_in(
        python,
        ["-c", "import importlib.util; print(importlib.util.find_spec('torch') is None)"],
        cwd=sdk,
    )
    assert out.strip() == "True"
    files, _ = vector_files(sdk, "expected.fp32.json")
    for model in ("fp32", "int8"):
        summary = json.loads(
            run_in(python, ["python/detect.py", "--test-vectors", "--model", f"model.{model}.onnx"], cwd=sdk)
        )
        assert summary["same"] is True and summary["vectors"] == len(files), summary
        # many boxes per image: every peak, down to score 0
        out = run_in(
            python,
            [
                "python/detect.py",
                "--model",
                f"model.{model}.onnx",
                "--score-threshold",
                str(LOW_THRESHOLD),
                "--max-detections",
                str(FEW),
                *map(str, files),
            ],
            cwd=sdk,
        )
        answers = [json.loads(line) for line in out.splitlines()]
        detector = platform_detector(str(built["model_dir"]) if model == "fp32" else int8_model_dir(sdk))
        reference = detector.detect(
            [open_image(f) for f in files], score_threshold=LOW_THRESHOLD, max_detections=FEW
        )
        assert [a["image"] for a in answers] == [str(f) for f in files]
        assert all(len(r["boxes"]) == FEW for r in reference)
        assert_same_answers(answers, reference)


@pytest.fixture(scope="module")
def javascript(built):
    return npm_install(built["sdk"] / "javascript")


MAPS_SCRIPT = """
import { readFileSync } from "node:fs";
import { PNG } from "pngjs";
import { loadDetector, ort } from "./sampan_detector.mjs";
ort.env.wasm.numThreads = 1;
const { models, files } = JSON.parse(readFileSync(0, "utf8"));
const spec = JSON.parse(readFileSync("../preprocess.json", "utf8"));
const labels = JSON.parse(readFileSync("../labels.json", "utf8"));
const out = {};
for (const model of models) {
  const bytes = new Uint8Array(readFileSync(model));
  const detector = await loadDetector({ model: bytes, preprocess: spec, labels });
  out[model] = [];
  for (const file of files) {
    const png = PNG.sync.read(readFileSync(file));
    const { scores, boxes } = await detector.maps({ data: png.data, width: png.width, height: png.height });
    out[model].push({ scores: Array.from(scores.data), boxes: Array.from(boxes.data) });
  }
}
console.log(JSON.stringify(out));
"""


def node(script: str, stdin: object, cwd: Path) -> object:
    out = run_node(["--input-type=module", "-e", script], cwd, stdin=json.dumps(stdin))
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_javascript_module_in_node_gives_the_platforms_maps_and_test_vector_boxes(built, javascript):
    sdk = built["sdk"]
    files, _ = vector_files(sdk, "expected.fp32.json")
    models = {"../model.fp32.onnx": str(built["model_dir"]), "../model.int8.onnx": int8_model_dir(sdk)}
    got = node(MAPS_SCRIPT, {"models": list(models), "files": [str(f) for f in files]}, javascript)
    for model, model_dir in models.items():
        native = platform_detector(model_dir)
        scores, boxes = native.raw_outputs(
            preprocess_batch([open_image(f) for f in files], native.preprocessing)
        )
        js_scores = np.array([g["scores"] for g in got[model]]).reshape(scores.shape)
        js_boxes = np.array([g["boxes"] for g in got[model]]).reshape(boxes.shape)
        if "fp32" in model:
            np.testing.assert_allclose(js_scores, scores, rtol=MAPS_RTOL, atol=MAPS_ATOL)
            np.testing.assert_allclose(js_boxes, boxes, rtol=MAPS_RTOL, atol=1e-3)  # pixels
        else:  # int8 kernels differ between wasm and native (a known difference): close, not equal
            assert np.abs(js_scores - scores).max() <= INT8_MAPS_ATOL
    for model in ("fp32", "int8"):
        out = run_node(
            ["run_test_vectors.mjs", "--model", f"../model.{model}.onnx", "--out", f"node.{model}.json"],
            javascript,
        )
        summary = json.loads(out.stdout.strip().splitlines()[-1])
        assert summary["vectors"] == len(files), out.stderr[-2000:]
        if model == "fp32":
            assert out.returncode == 0 and summary["matched"] == summary["expected_boxes"] == summary["boxes"]
            assert summary["max_box_diff_px"] <= 1e-2 and summary["max_score_diff"] <= 1e-4, summary
            continue
        # int8 across runtimes: each box one side finds at the default threshold the other finds too
        # (same class, IoU >= 0.5, score within 0.1), unless it scores within 0.1 of the threshold
        answers = json.loads((javascript / "node.int8.json").read_text())["answers"]
        _, expected = vector_files(sdk, "expected.int8.json")
        threshold = expected["score_threshold"]
        for vector, answer in zip(expected["vectors"], answers, strict=True):
            for one, other in ((vector["boxes"], answer["boxes"]), (answer["boxes"], vector["boxes"])):
                for i, j in match_boxes(one, other):
                    if j is None:
                        assert one[i]["score"] < threshold + INT8_SCORE_TOL, (one[i], other)
                    else:
                        assert abs(one[i]["score"] - other[j]["score"]) <= INT8_SCORE_TOL


DECODE_SCRIPT = """
import { readFileSync } from "node:fs";
import { decodeImage } from "./sampan_detector.mjs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const decoded = cases.map((c) =>
  decodeImage(Float32Array.from(c.scores), Float32Array.from(c.boxes), c.options));
console.log(JSON.stringify(decoded));
"""


def test_javascript_decoding_is_decode_py_on_crowded_maps(javascript):
    """Peaks, plateaus (equal neighbours), overlapping boxes of one class and of two, boxes reaching
    out of the image, more than 1000 candidates, and the max_detections cut: the port's boxes are
    decode.py's, in the same order."""
    rng = np.random.default_rng(7)
    cases, expected = [], []
    for classes, cells, threshold, limit in ((3, 16, 0.3, 100), (12, 32, 0.0, 1000), (2, 8, 0.5, 5)):
        scores = rng.random((1, classes, cells, cells)).astype(np.float32)
        scores[0, 0, 2:4, 2:4] = 0.75  # a plateau: four equal peaks, NMS keeps the first
        size = cells * 4
        centres = rng.uniform(-4, size + 4, size=(2, cells, cells))
        extent = rng.uniform(1, size / 2, size=(2, cells, cells))
        boxes = np.concatenate([centres - extent / 2, extent])[None].astype(np.float32)
        scale_x, scale_y = 1.37, 0.81
        found = decode(
            scores, boxes, scale_x=scale_x, scale_y=scale_y, score_threshold=threshold, max_detections=limit
        )[0]
        expected.append(found)
        options = {
            "classes": classes,
            "height": cells,
            "width": cells,
            "scaleX": scale_x,
            "scaleY": scale_y,
            "scoreThreshold": threshold,
            "maxDetections": limit,
        }
        candidates = int((local_peaks(scores[0]) & (scores[0] >= threshold)).sum())
        cases.append(
            {
                "scores": scores.ravel().tolist(),
                "boxes": boxes.ravel().tolist(),
                "options": options,
                "candidates": candidates,
            }
        )
    got = node(DECODE_SCRIPT, cases, javascript)
    assert len(expected[1]) < 1000 < cases[1]["candidates"]  # the 1000 best peaks went on to NMS
    for found, answer in zip(expected, got, strict=True):
        assert len(answer) == len(found) and len(found) > 3
        for (label, score, x, y, w, h), box in zip(found, answer, strict=True):
            assert box["index"] == label and box["score"] == pytest.approx(score, abs=1e-12)
            assert [box["x"], box["y"], box["width"], box["height"]] == pytest.approx([x, y, w, h], abs=1e-9)


@pytest.mark.e2e
def test_html_page_draws_the_boxes_of_a_dropped_image_in_chromium(built, javascript):
    sdk = built["sdk"]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SdkFiles, directory=str(sdk)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    files = vector_files(sdk, "expected.fp32.json")[0][:2]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        out = subprocess.run(
            ["node", str(Path(__file__).with_name("browser_detect.mjs"))],
            capture_output=True,
            text=True,
            timeout=240,
            env=clean_env(
                SDK_URL=f"http://127.0.0.1:{server.server_address[1]}",
                IMAGES=":".join(map(str, files)),
                THRESHOLD=str(LOW_THRESHOLD),
                FRONTEND=str(REPO / "frontend"),
                E2E_ARTIFACTS=str(ARTIFACTS),
                CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            ),
        )
    finally:
        server.shutdown()
        server.server_close()
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert [a["image"] for a in answers] == list(map(str, files))
    reference = platform_detector(str(built["model_dir"])).detect(
        [open_image(f) for f in files], score_threshold=LOW_THRESHOLD
    )
    for answer, expected in zip(answers, reference, strict=True):
        assert (answer["width"], answer["height"]) == (expected["width"], expected["height"])
        assert answer["rows"] == len(answer["boxes"]) and answer["status"].endswith(
            f": {len(answer['boxes'])} objects"
        )
        assert answer["painted"] > 0  # the canvas shows the image with coloured outlines on it
        # wasm against native: the best boxes are found (matched by IoU: two overlapping boxes scoring
        # alike within float rounding may trade places in NMS)
        best = expected["boxes"][:10]
        pairs = match_boxes(best, answer["boxes"])
        assert all(j is not None for _, j in pairs), (best, answer["boxes"][:10])
        for i, j in pairs:
            assert answer["boxes"][j]["score"] == pytest.approx(best[i]["score"], abs=1e-4)


@pytest.fixture(scope="module")
def server(built):
    """The server package's serve.py from a fresh venv holding its requirements.txt."""
    root, python = built["server"], built["python"]
    pip_install(python, root / "requirements.txt")
    port = free_port()
    log = (root.parent / "server.log").open("wb")
    process = subprocess.Popen(
        [str(python), "serve.py", "--port", str(port)],
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=clean_env(python.parent.parent, SAMPAN_SERVER_API_KEY=KEY),
    )
    url = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return requests.get(f"{url}/healthz", timeout=2).status_code == 200
        except requests.ConnectionError:
            assert process.poll() is None, (root.parent / "server.log").read_text()
            return False

    wait_for(healthy, timeout=90, what="the detector package's server")
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)
    log.close()


def test_server_package_answers_detection_requests_as_the_platform(built, server):
    root, python = built["server"], built["python"]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["template"] == "object_detection"
    assert "workers/object_detection/decode.py" in manifest["runtime"]["vendored_files"]
    assert "score_threshold" in (root / "README.md").read_text()
    for args in ([], ["--url", server]):
        summary = json.loads(
            run_in(python, ["check_test_vectors.py", *args], cwd=root, SAMPAN_SERVER_API_KEY=KEY)
        )
        assert summary["allclose"] is True and summary["vectors"] == 9, summary
    files, _ = vector_files(root, "expected.json")
    images = [base64.b64encode(f.read_bytes()).decode() for f in files[:3]]
    answer = requests.post(
        f"{server}/predict",
        json={
            "instances": [{"image": i} for i in images],
            "score_threshold": LOW_THRESHOLD,
            "max_detections": 4,
        },
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["kind"] == "detection_prediction"
    assert body["model_version"] == {"id": 52, "name": "D3", "template": "object_detection"}
    reference = platform_detector(str(built["model_dir"])).detect(
        [open_image(f) for f in files[:3]], score_threshold=LOW_THRESHOLD, max_detections=4
    )
    assert all(len(p["boxes"]) == 4 for p in reference)
    assert_same_answers(body["predictions"], reference)
    raw = requests.post(
        f"{server}/predict?max_detections=2&score_threshold=0",
        data=files[0].read_bytes(),
        headers={"X-Sampan-Key": KEY, "Content-Type": "image/png"},
        timeout=60,
    )
    assert raw.status_code == 200, raw.text
    assert_same_answers(raw.json()["predictions"], [{**reference[0], "boxes": reference[0]["boxes"][:2]}])
    bad = requests.post(
        f"{server}/predict",
        json={"instances": [{"image": images[0]}], "score_threshold": 1.5},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=60,
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_score_threshold"


def test_detector_packages_refuse_bad_input_and_report_no_map_without_true_boxes(tmp_path):
    model = constant_detector(tmp_path / "model", ["a", "b"], [(1, 0.9, 8, 8, 20, 16)])
    image = tmp_path / "one.png"
    Image.new("RGB", (64, 48), "gray").save(image)
    spec = json.loads((model / "preprocess.json").read_text())

    def artifacts(**test) -> ModelArtifacts:
        return ModelArtifacts(model / "model.onnx", spec, ["a", "b"], "object_detection", {"id": 1}, **test)

    with pytest.raises(PackagingError, match="calibration images"):
        build_device_sdk(
            artifacts=artifacts(test_images=[image]), out_path=tmp_path / "bad.zip", calibration_images=[]
        )
    with pytest.raises(PackagingError, match="takes images"):
        build_device_sdk(
            artifacts=artifacts(test_instances=["a text"]),
            out_path=tmp_path / "bad.zip",
            calibration_images=[image],
        )
    with pytest.raises(PackagingError, match="takes images"):
        build_server_package(artifacts=artifacts(test_instances=["a text"]), out_path=tmp_path / "bad.zip")
    assert not (tmp_path / "bad.zip").exists()
    with pytest.raises(ValueError, match="2 test box lists for 1 test images"):
        artifacts(test_images=[image], test_boxes=[[], []])
    box = {"label": 2, "x": 1.0, "y": 1.0, "width": 5.0, "height": 5.0}
    with pytest.raises(ValueError, match="class indices"):
        artifacts(test_images=[image], test_boxes=[[box]])
    # without true boxes there is no mAP to report: null, not a number
    report = build_device_sdk(
        artifacts=artifacts(test_images=[image]), out_path=tmp_path / "sdk.zip", calibration_images=[image]
    )
    compression = report["compression"]
    assert compression["fp32"]["map50"] is None and compression["map50_drop"] is None
    assert compression["box_agreement"] == 1.0  # int8 of a constant model finds its one box
