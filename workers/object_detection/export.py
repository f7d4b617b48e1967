"""ONNX export of a trained detector, verified against torch with ONNX Runtime before it is kept.

The ONNX model takes ``input`` (float32, [batch, 3, S, S], preprocessed per ``preprocess.json``)
and returns ``scores`` (float32, [batch, classes, S/4, S/4], sigmoid applied) and ``boxes``
(float32, [batch, 4, S/4, S/4], left/top/width/height in input pixels); the batch dimension is
dynamic. Peaks, thresholds and NMS run outside the graph, in :mod:`workers.object_detection.decode`.
The class names and preprocessing are also stored in the model's metadata.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import torch

from workers.image_classification.export import (
    DEFAULT_OPSET,
    INPUT_NAME,
    RTOL,
    VERIFY_BATCH_SIZES,
    OnnxExportError,
    OnnxVerificationError,
    load_model_file,
    write_verified_onnx,
)
from workers.object_detection.models import OUTPUT_STRIDE, CenterNet, DetectionOutputs, build_model
from workers.shared.atomic_files import sha256_of

__all__ = ["OnnxExportError", "OnnxVerificationError", "export_onnx", "load_detector"]

OUTPUT_NAMES = ("scores", "boxes")
# boxes are in input pixels (up to S): the absolute tolerance scales with them
ATOL = 1e-4


def load_detector(checkpoint: str | os.PathLike[str]) -> tuple[CenterNet, dict[str, Any]]:
    """Rebuild the model of a model file or training checkpoint (weights_only=True), in eval mode; a
    pruned detector's narrower convolutions are rebuilt to the file's shapes."""
    # imported here: workers.compression.detection imports this module
    from workers.compression.detection import fit_to_state_dict

    model, state = load_model_file(
        checkpoint, build_model, "detector", template="object_detection", fit=fit_to_state_dict
    )
    return model, state


def export_onnx(
    checkpoint: str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    *,
    opset: int = DEFAULT_OPSET,
    verify_batch_sizes: tuple[int, ...] = VERIFY_BATCH_SIZES,
) -> dict[str, Any]:
    """Export ``checkpoint`` (a model file or training checkpoint) to a self-contained ONNX file:
    the dynamo exporter, a dynamic batch, ``external_data=False``; then ONNX Runtime's outputs on
    seeded inputs of each batch size are compared with torch's (allclose, rtol 1e-4, atol 1e-4)
    and :class:`OnnxVerificationError` is raised (no file kept) when they differ. Returns::

        {"path", "bytes", "sha256", "opset", "exporter",
         "input": {"name": "input", "shape": ["batch", 3, S, S], "dtype": "float32"},
         "output": {"name": "scores", "shape": ["batch", C, S/4, S/4], "dtype": "float32"},
         "outputs": [<scores as above>, {"name": "boxes", "shape": ["batch", 4, S/4, S/4], ...}],
         "verified": {"batch_sizes": [1, 7], "max_abs_diff": float, "rtol": 1e-4, "atol": 1e-4}}
    """
    if opset < 17:
        raise ValueError("opset must be 17 or newer")
    model, state = load_detector(checkpoint)
    height, width = state["preprocessing"]["image_size"]
    out_path = Path(out_path)
    max_diff = write_verified_onnx(
        DetectionOutputs(model).eval(),
        out_path,
        size=(height, width),
        output_names=OUTPUT_NAMES,
        metadata={
            "sampan.template": "object_detection",
            "sampan.classes": json.dumps(list(state["classes"])),
            "sampan.preprocessing": json.dumps(state["preprocessing"]),
        },
        opset=opset,
        verify_batch_sizes=verify_batch_sizes,
        atol=ATOL,
    )
    cells = [height // OUTPUT_STRIDE, width // OUTPUT_STRIDE]
    outputs = [
        {"name": "scores", "shape": ["batch", int(state["num_classes"]), *cells], "dtype": "float32"},
        {"name": "boxes", "shape": ["batch", 4, *cells], "dtype": "float32"},
    ]
    return {
        "path": str(out_path),
        "bytes": out_path.stat().st_size,
        "sha256": sha256_of(out_path),
        "opset": opset,
        "exporter": f"torch.onnx.export(dynamo=True), torch {torch.__version__}",
        "input": {"name": INPUT_NAME, "shape": ["batch", 3, height, width], "dtype": "float32"},
        "output": outputs[0],
        "outputs": outputs,
        "verified": {
            "batch_sizes": list(verify_batch_sizes),
            "max_abs_diff": max_diff,
            "rtol": RTOL,
            "atol": ATOL,
        },
    }
