"""ONNX export of a trained detector, verified against torch with ONNX Runtime before it is kept.

The ONNX model takes ``input`` (float32, [batch, 3, S, S], preprocessed per ``preprocess.json``)
and returns ``scores`` (float32, [batch, classes, S/4, S/4], sigmoid applied) and ``boxes``
(float32, [batch, 4, S/4, S/4], left/top/width/height in input pixels); the batch dimension is
dynamic. Peaks, thresholds and NMS run outside the graph, in :mod:`workers.object_detection.decode`.
The class names and preprocessing are also stored in the model's metadata.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from workers.image_classification.export import (
    DEFAULT_OPSET,
    VERIFY_BATCH_SIZES,
    OnnxExportError,
    OnnxVerificationError,
)
from workers.object_detection.models import OUTPUT_STRIDE, CenterNet, DetectionOutputs, build_model
from workers.shared.atomic_files import sha256_of
from workers.shared.onnx_model import check_onnx_self_contained

__all__ = ["OnnxExportError", "OnnxVerificationError", "export_onnx", "load_detector"]

INPUT_NAME = "input"
OUTPUT_NAMES = ("scores", "boxes")
# boxes are in input pixels (up to S): the absolute tolerance scales with them
RTOL, ATOL = 1e-4, 1e-4


def load_detector(checkpoint: str | os.PathLike[str]) -> tuple[CenterNet, dict[str, Any]]:
    """Rebuild the model of a model file or training checkpoint (weights_only=True), in eval mode."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=True)
    missing = [k for k in ("arch", "num_classes", "classes", "preprocessing", "model") if k not in state]
    if missing or state.get("template") != "object_detection":
        raise OnnxExportError(
            f"{os.fspath(checkpoint)} is not a Sampan detector"
            + (f" (missing {', '.join(missing)})" if missing else "")
        )
    model = build_model(state["arch"], state["num_classes"])
    model.load_state_dict(state["model"])
    model.eval()
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
    import onnx

    if opset < 17:
        raise ValueError("opset must be 17 or newer")
    model, state = load_detector(checkpoint)
    wrapped = DetectionOutputs(model).eval()
    height, width = state["preprocessing"]["image_size"]
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    temp = out_path.with_name(f".tmp-{out_path.name}.{os.getpid()}")
    example = torch.randn(2, 3, height, width, generator=torch.Generator().manual_seed(0))
    batch = torch.export.Dim("batch", min=1, max=1 << 16)
    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*LeafSpec", category=FutureWarning)
            torch.onnx.export(
                wrapped,
                (example,),
                str(temp),
                dynamo=True,
                external_data=False,
                opset_version=opset,
                input_names=[INPUT_NAME],
                output_names=list(OUTPUT_NAMES),
                dynamic_shapes=({0: batch},),
                verbose=False,
            )
        check_onnx_self_contained(temp)
        proto = onnx.load(str(temp))
        for key, value in (
            ("sampan.template", "object_detection"),
            ("sampan.classes", json.dumps(list(state["classes"]))),
            ("sampan.preprocessing", json.dumps(state["preprocessing"])),
        ):
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, value
        onnx.checker.check_model(proto)
        onnx.save(proto, str(temp))
        max_diff = verify_against_torch(wrapped, temp, verify_batch_sizes, (height, width))
        os.replace(temp, out_path)
    finally:
        temp.unlink(missing_ok=True)
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


def verify_against_torch(
    model: torch.nn.Module, onnx_path: Path, batch_sizes: tuple[int, ...], size: tuple[int, int]
) -> float:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    generator = torch.Generator().manual_seed(1)
    worst = 0.0
    for batch_size in batch_sizes:
        inputs = torch.randn(batch_size, 3, *size, generator=generator)
        with torch.inference_mode():
            expected = [t.numpy() for t in model(inputs)]
        actual = session.run(list(OUTPUT_NAMES), {INPUT_NAME: inputs.numpy()})
        for name, got, want in zip(OUTPUT_NAMES, actual, expected, strict=True):
            if got.shape != want.shape:
                raise OnnxVerificationError(
                    f"ONNX output {name} shape {got.shape} != torch {want.shape} at batch {batch_size}"
                )
            difference = float(np.max(np.abs(got - want)))
            worst = max(worst, difference)
            if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
                raise OnnxVerificationError(
                    f"ONNX Runtime and torch disagree on {name} at batch {batch_size}: max abs diff "
                    f"{difference:.3g} (rtol={RTOL}, atol={ATOL})"
                )
    return worst
