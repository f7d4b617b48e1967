"""The device SDK of a model version that is already int8 (a compressed variant made by
``workers.compression.compress``): the detector's static int8 (QDQ) and the tabular MLP's dynamic
int8 (integer operators) are shipped as they are, not quantized again (a second static quantization
of a QDQ graph is a model ONNX Runtime refuses); the report says so and the SDK's Python sample
answers its test vectors with the int8 model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from PIL import Image

from tests.packages.packaging_support import run_in, unzip_package
from tests.workers.detection_models import tiny_run
from tests.workers.test_compression_tabular import manifest as tabular_manifest
from workers.compression.core import compress
from workers.object_detection.predictor import Detector
from workers.packaging import ModelArtifacts, build_device_sdk
from workers.packaging.device_sdk import ALREADY_QUANTIZED, is_quantized
from workers.progress import silent_report
from workers.tabular.predictor import TabularPredictor

PYTHON = Path(sys.executable)


def int8_variant(
    template: str, checkpoint: Path, onnx: Path, data: Any, out: Path, quantize: Literal["static", "dynamic"]
) -> Any:
    result = compress(
        template=template,
        parent_checkpoint=checkpoint,
        parent_onnx=onnx,
        manifest=data,
        spec={
            "kind": "compression_spec",
            "version": 1,
            "seed": 0,
            "recipes": [{"name": "int8", "quantize": quantize}],
        },
        out_dir=out,
        report=silent_report,
    )
    (variant,) = result["variants"]
    assert variant["summary"]["precision"] == "int8" and is_quantized(Path(variant["onnx"]))
    return variant


def assert_shipped_as_it_is(compression: dict, root: Path, variant: dict) -> None:
    assert compression["quantization"] == ALREADY_QUANTIZED, compression
    assert compression["int8_note"] == ALREADY_QUANTIZED["method"]
    assert compression["int8"]["bytes"] == compression["fp32"]["bytes"]
    assert (root / "model.int8.onnx").read_bytes() == (root / "model.fp32.onnx").read_bytes()
    assert (root / "model.int8.onnx").stat().st_size == Path(variant["onnx"]).stat().st_size


def test_a_static_int8_detector_is_shipped_as_it_is_and_answers(tmp_path):
    run = tiny_run()
    variant = int8_variant(
        "object_detection",
        run.model_dir / "model.pt",
        run.model_dir / "model.onnx",
        run.manifest,
        tmp_path / "compressed",
        "static",
    )
    test = [s for s in run.manifest["samples"] if s["split"] == "test"]
    artifacts = ModelArtifacts(
        variant["onnx"],
        variant["preprocessing"],
        variant["classes"],
        "object_detection",
        {"id": 9, "name": "D2", "template": "object_detection"},
        [s["path"] for s in test],
        test_boxes=[s["boxes"] for s in test],
    )
    train = [s["path"] for s in run.manifest["samples"] if s["split"] == "train"]
    report = build_device_sdk(artifacts=artifacts, out_path=tmp_path / "device.zip", calibration_images=train)
    compression = report["compression"]
    root = unzip_package(tmp_path / "device.zip", tmp_path / "device")
    assert_shipped_as_it_is(compression, root, variant)
    assert compression["quantization"]["calibration_images"] == 0
    # the same file twice: the same mAP@.5 and the same boxes
    # (box_agreement is None when fp32 finds no box above the default threshold: a briefly trained detector)
    assert compression["map50_drop"] == 0 and compression["box_agreement"] in (None, 1.0)
    # the SDK's Python sample (the platform's decoding, vendored) answers its test vectors with int8
    for name in ("int8", "fp32"):
        out = json.loads(
            run_in(PYTHON, ["python/detect.py", "--test-vectors", "--model", f"model.{name}.onnx"], cwd=root)
        )
        assert out["vectors"] and out["same"] is True, out
    answer = json.loads(
        run_in(PYTHON, ["python/detect.py", test[0]["path"], "--score-threshold", "0"], cwd=root)
    )
    platform = Detector(variant["onnx"]).detect([Image.open(test[0]["path"])], score_threshold=0.0)[0]
    assert answer["boxes"] and [b["label"] for b in answer["boxes"]] == [
        b["label"] for b in platform["boxes"]
    ]


def test_a_dynamic_int8_tabular_mlp_is_shipped_as_it_is_and_answers(tmp_path):
    from workers.tabular.trainer import train

    data = tabular_manifest("wine")
    parent = train(
        {"preset": "neural", "validation": "holdout", "epochs": 20}, cast(Any, data), tmp_path / "run"
    )
    variant = int8_variant(
        "tabular_classification",
        Path(parent["model"]),
        Path(parent["onnx"]),
        data,
        tmp_path / "compressed",
        "dynamic",
    )
    test = [s for s in data["samples"] if s["split"] == "test"]
    artifacts = ModelArtifacts(
        variant["onnx"],
        variant["preprocessing"],
        variant["classes"],
        "tabular_classification",
        {"id": 11, "name": "V2", "template": "tabular_classification"},
        test_instances=[s["values"] for s in test],
        test_labels=[s["label"] for s in test],
    )
    report = build_device_sdk(artifacts=artifacts, out_path=tmp_path / "device.zip", calibration_images=[])
    compression = report["compression"]
    root = unzip_package(tmp_path / "device.zip", tmp_path / "device")
    assert_shipped_as_it_is(compression, root, variant)
    assert compression["top1_agreement"] == 1.0 and compression["max_abs_score_diff"] == 0.0
    assert compression["int8"]["accuracy"] == pytest.approx(variant["summary"]["value"], abs=1e-6)
    assert "already int8" in (root / "README.md").read_text()
    # the SDK's Python sample (the platform's predictor, vendored) answers with the int8 model
    out = json.loads(
        run_in(PYTHON, ["python/predict.py", "--test-vectors", "--model", "model.int8.onnx"], cwd=root)
    )
    assert out["allclose"] is True and out["vectors"], out
    platform = TabularPredictor(
        variant["onnx"], preprocessing=variant["preprocessing"], classes=variant["classes"]
    )
    row = test[0]["values"]
    answer = json.loads(run_in(PYTHON, ["python/predict.py", json.dumps(row), "--top-k", "3"], cwd=root))
    wanted = platform.predict([row], top_k=3)
    assert [e["label"] for e in answer[0]] == [e["label"] for e in wanted[0]]
