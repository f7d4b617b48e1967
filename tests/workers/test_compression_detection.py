"""Compressing the detector (workers/compression/detection.py) through ``workers.compression.compress``:
structured channel pruning + fine-tuning and static int8 give variants with fewer FLOPs and bytes that
the template's evaluation and the serving predictor take unchanged; what does not apply is skipped
with the reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest
import torch

from tests.workers.detection_models import tiny_run
from workers.compression.core import compress
from workers.compression.detection import conv_flops, load_pruned, prune, ratio_for_flops
from workers.object_detection.export import load_detector
from workers.object_detection.models import DetectionOutputs
from workers.object_detection.predictor import Detector
from workers.progress import silent_report


@pytest.fixture(scope="module")
def compressed(tmp_path_factory):
    run = tiny_run()
    spec = {
        "kind": "compression_spec",
        "version": 1,
        "seed": 0,
        "recipes": [
            {"name": "pruned-50", "prune": {"flops_ratio": 0.5}, "fine_tune_epochs": 1},
            {"name": "int8", "quantize": "static"},
            {
                "name": "pruned-40-int8",
                "prune": {"flops_ratio": 0.4},
                "fine_tune_epochs": 1,
                "quantize": "auto",
            },
            {"name": "qat", "quantize": "qat", "fine_tune_epochs": 1},
            {"name": "distilled", "distill": {"student": "det_small", "alpha": 0.5}, "fine_tune_epochs": 1},
            {"name": "fast-enough", "prune": {"latency_ms": 1000.0}, "fine_tune_epochs": 0},
            {"name": "dynamic", "quantize": "dynamic"},
            {"name": "text-student", "distill": {"student": "bag_of_embeddings"}},
        ],
    }
    out = tmp_path_factory.mktemp("compressed")
    result = compress(
        template="object_detection",
        parent_checkpoint=run.model_dir / "model.pt",
        parent_onnx=run.model_dir / "model.onnx",
        manifest=run.manifest,
        spec=spec,
        out_dir=out,
        report=silent_report,
    )
    return run, result


def test_pruning_keeps_the_flops_ratio_and_the_outputs_shapes():
    run = tiny_run()
    model, state = load_pruned(run.model_dir / "model.pt")
    size = tuple(state["preprocessing"]["image_size"])
    ratio, reached = ratio_for_flops(model, size, 0.5)
    pruned = prune(model, ratio)
    assert reached <= 0.5 and reached > 0.3  # the largest ratio under the target, not any
    assert conv_flops(pruned, size) <= 0.5 * conv_flops(model, size)
    x = torch.randn(2, 3, *size)
    with torch.inference_mode():
        full, small = model(x), pruned(x)
    assert [t.shape for t in full] == [t.shape for t in small]
    assert sum(p.numel() for p in pruned.parameters()) < 0.75 * sum(p.numel() for p in model.parameters())


def test_variants_are_smaller_and_evaluate_with_the_template(compressed):
    run, result = compressed
    parent = result["parent"]
    variants = {v["name"]: v for v in result["variants"]}
    assert set(variants) == {"pruned-50", "int8", "pruned-40-int8", "qat", "distilled", "fast-enough"}
    assert variants["fast-enough"]["notes"][0].startswith("kept 80% of the prunable channels")
    test_images = sum(1 for s in run.manifest["samples"] if s["split"] == "test")
    for variant in variants.values():
        assert variant["evaluation"]["kind"] == "detection_report"
        assert variant["evaluation"]["samples"] == test_images
        assert variant["summary"]["metric"] == parent["metric"]
        if variant["name"] != "distilled":  # a student of the parent's own size here
            assert variant["summary"]["size_bytes"] < parent["size_bytes"]
    pruned, int8, both = variants["pruned-50"], variants["int8"], variants["pruned-40-int8"]
    assert pruned["summary"]["flops"] < 0.6 * parent["flops"]  # the graph's FLOPs, heads' 1x1 included
    assert pruned["summary"]["parameters"] < parent["parameters"]
    assert pruned["summary"]["precision"] == "fp32" and int8["summary"]["precision"] == "int8"
    assert int8["checkpoint"] is None and int8["summary"]["flops"] == parent["flops"]
    assert both["summary"]["precision"] == "int8"
    assert both["summary"]["size_bytes"] < 0.35 * parent["size_bytes"]
    assert any("tolerance" in note for note in both["notes"])  # auto: the val check is reported
    qat = variants["qat"]  # fake-quant fine-tuning, folded back into the template's model file
    assert (
        qat["summary"]["precision"] == "int8" and qat["summary"]["size_bytes"] < 0.35 * parent["size_bytes"]
    )
    model, _ = load_pruned(qat["checkpoint"])
    assert sum(p.numel() for p in model.parameters()) == sum(
        p.numel() for p in load_pruned(run.model_dir / "model.pt")[0].parameters()
    )


def test_a_pruned_variant_serves_and_its_model_file_rebuilds(compressed):
    run, result = compressed
    variant = next(v for v in result["variants"] if v["name"] == "pruned-50")
    detector = Detector(variant["onnx"])
    from PIL import Image

    test = next(s for s in run.manifest["samples"] if s["split"] == "test")
    answer = detector.detect([Image.open(test["path"])], score_threshold=0.0)
    assert answer[0]["boxes"] and {b["label"] for b in answer[0]["boxes"]} <= set(variant["classes"])
    model, state = load_pruned(variant["checkpoint"])
    size = state["preprocessing"]["image_size"]
    x = np.random.default_rng(0).standard_normal((1, 3, *size)).astype(np.float32)
    session = onnxruntime.InferenceSession(variant["onnx"], providers=["CPUExecutionProvider"])
    scores, boxes = session.run(None, {"input": x})
    with torch.inference_mode():
        expected_scores, expected_boxes = DetectionOutputs(model)(torch.from_numpy(x))
    np.testing.assert_allclose(scores, expected_scores.numpy(), atol=1e-4)
    np.testing.assert_allclose(boxes, expected_boxes.numpy(), atol=1e-3, rtol=1e-4)
    assert Path(variant["checkpoint"]).name == "model.pt"


def test_a_distilled_student_is_a_template_model(compressed):
    _, result = compressed
    student = next(v for v in result["variants"] if v["name"] == "distilled")
    assert student["params"]["model"] == "det_small" and "distilled" in student["notes"][0]
    model, state = load_detector(student["checkpoint"])  # the template's own loader
    assert state["arch"] == "det_small" and state["template"] == "object_detection"


def test_what_does_not_apply_is_skipped_with_the_reason(compressed):
    _, result = compressed
    reasons = {s["name"]: s["reason"] for s in result["skipped"]}
    assert "convolutions" in reasons["dynamic"] and "static" in reasons["dynamic"]
    assert "det_small" in reasons["text-student"] and "bag_of_embeddings" in reasons["text-student"]
