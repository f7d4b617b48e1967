"""A pruned detector's model file (narrower convolutions than ``build_model(arch)``, no channel
configuration stored) loads with the template's own loader, ``object_detection.export.load_detector``,
and re-exports to ONNX with the variant's outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import torch

from tests.workers.detection_models import tiny_run
from workers.compression.core import compress
from workers.object_detection.export import export_onnx, load_detector
from workers.object_detection.models import DetectionOutputs, build_model
from workers.progress import silent_report


def test_load_detector_loads_a_pruned_detector_model_file(tmp_path):
    run = tiny_run()
    result = compress(
        template="object_detection",
        parent_checkpoint=run.model_dir / "model.pt",
        parent_onnx=run.model_dir / "model.onnx",
        manifest=dict(run.manifest),
        spec={
            "kind": "compression_spec",
            "version": 1,
            "seed": 0,
            "recipes": [{"name": "pruned-50", "prune": {"flops_ratio": 0.5}, "fine_tune_epochs": 0}],
        },
        out_dir=tmp_path / "compressed",
        report=silent_report,
    )
    (variant,) = result["variants"]
    assert variant["checkpoint"] is not None
    checkpoint = Path(variant["checkpoint"])

    model, state = load_detector(checkpoint)
    assert state["template"] == "object_detection" and not model.training
    full = build_model(state["arch"], state["num_classes"])
    assert sum(p.numel() for p in model.parameters()) < sum(p.numel() for p in full.parameters())

    # the same outputs as the variant's ONNX file
    size = state["preprocessing"]["image_size"]
    x = np.random.default_rng(0).standard_normal((2, 3, *size)).astype(np.float32)
    session = onnxruntime.InferenceSession(variant["onnx"], providers=["CPUExecutionProvider"])
    scores, boxes = session.run(None, {"input": x})
    with torch.inference_mode():
        torch_scores, torch_boxes = DetectionOutputs(model)(torch.from_numpy(x))
    np.testing.assert_allclose(torch_scores.numpy(), scores, atol=1e-4)
    np.testing.assert_allclose(torch_boxes.numpy(), boxes, atol=1e-3, rtol=1e-4)

    # and the template's export takes the file (verified against torch inside)
    exported = export_onnx(checkpoint, tmp_path / "again.onnx")
    assert exported["verified"]["max_abs_diff"] <= 1e-3
    assert exported["bytes"] < (run.model_dir / "model.onnx").stat().st_size
