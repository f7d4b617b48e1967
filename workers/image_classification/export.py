"""ONNX export of a trained classifier, verified against torch with ONNX Runtime before it is kept.

The ONNX model takes ``input`` (float32, [batch, 3, H, W], preprocessed per ``preprocess.json``)
and returns ``logits`` (float32, [batch, classes]); the batch dimension is dynamic. The class
names and the preprocessing spec are also stored in the model's metadata
(``sampan.classes``, ``sampan.preprocessing``), so the file describes itself.
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

from workers.image_classification.models import build_model
from workers.shared.atomic_files import sha256_of
from workers.shared.onnx_model import OnnxRejected, check_onnx_self_contained

__all__ = [
    "OnnxExportError",
    "OnnxRejected",
    "OnnxVerificationError",
    "check_onnx_self_contained",
    "export_onnx",
    "load_classifier",
]

INPUT_NAME = "input"
OUTPUT_NAME = "logits"
DEFAULT_OPSET = 18
VERIFY_BATCH_SIZES = (1, 7)
RTOL, ATOL = 1e-4, 1e-5


class OnnxExportError(RuntimeError):
    pass


class OnnxVerificationError(OnnxExportError):
    """ONNX Runtime's outputs differ from torch's beyond the tolerance."""


def load_classifier(checkpoint: str | os.PathLike[str]) -> tuple[torch.nn.Module, dict[str, Any]]:
    """Rebuild the model of a model file or training checkpoint (read with weights_only=True), in eval
    mode."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=True)
    missing = [
        key for key in ("arch", "num_classes", "classes", "preprocessing", "model") if key not in state
    ]
    if missing:
        raise OnnxExportError(
            f"{os.fspath(checkpoint)} is not a Sampan image classifier (missing {', '.join(missing)})"
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
    """Export ``checkpoint`` (a model file or a training checkpoint) to a self-contained ONNX file.

    Uses the dynamo exporter with a dynamic batch dimension and ``external_data=False``, then
    checks the file, runs it with ONNX Runtime on seeded inputs of each batch size in
    ``verify_batch_sizes`` and compares with torch (allclose, rtol=1e-4, atol=1e-5). Raises
    :class:`OnnxVerificationError` (and keeps no file) when they differ. Returns a description::

        {"path", "bytes", "sha256", "opset", "exporter",
         "input": {"name": "input", "shape": ["batch", 3, H, W], "dtype": "float32"},
         "output": {"name": "logits", "shape": ["batch", C], "dtype": "float32"},
         "verified": {"batch_sizes": [1, 7], "max_abs_diff": float, "rtol": 1e-4, "atol": 1e-5}}
    """
    import onnx

    if opset < 17:
        raise ValueError("opset must be 17 or newer")
    model, state = load_classifier(checkpoint)
    height, width = state["preprocessing"]["image_size"]
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    temp = out_path.with_name(f".tmp-{out_path.name}.{os.getpid()}")
    example = torch.randn(2, 3, height, width, generator=torch.Generator().manual_seed(0))
    batch = torch.export.Dim("batch", min=1, max=1 << 16)
    # The exporter prints its progress, warns once per missing torchvision op and about a torch
    # internal deprecation; none of it concerns this model.
    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*LeafSpec", category=FutureWarning)
            torch.onnx.export(
                model,
                (example,),
                str(temp),
                dynamo=True,
                external_data=False,
                opset_version=opset,
                input_names=[INPUT_NAME],
                output_names=[OUTPUT_NAME],
                dynamic_shapes=({0: batch},),
                verbose=False,
            )
        check_onnx_self_contained(temp)
        proto = onnx.load(str(temp))
        for key, value in (
            ("sampan.template", "image_classification"),
            ("sampan.classes", json.dumps(list(state["classes"]))),
            ("sampan.preprocessing", json.dumps(state["preprocessing"])),
        ):
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, value
        onnx.checker.check_model(proto)
        onnx.save(proto, str(temp))
        max_diff = verify_against_torch(model, temp, verify_batch_sizes, (height, width))
        os.replace(temp, out_path)
    finally:
        temp.unlink(missing_ok=True)
    return {
        "path": str(out_path),
        "bytes": out_path.stat().st_size,
        "sha256": sha256_of(out_path),
        "opset": opset,
        "exporter": f"torch.onnx.export(dynamo=True), torch {torch.__version__}",
        "input": {"name": INPUT_NAME, "shape": ["batch", 3, height, width], "dtype": "float32"},
        "output": {"name": OUTPUT_NAME, "shape": ["batch", int(state["num_classes"])], "dtype": "float32"},
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
            expected = model(inputs).numpy()
        (actual,) = session.run([OUTPUT_NAME], {INPUT_NAME: inputs.numpy()})
        if actual.shape != expected.shape:
            raise OnnxVerificationError(
                f"ONNX output shape {actual.shape} != torch {expected.shape} at batch {batch_size}"
            )
        worst = max(worst, float(np.max(np.abs(actual - expected))))
        if not np.allclose(actual, expected, rtol=RTOL, atol=ATOL):
            raise OnnxVerificationError(
                f"ONNX Runtime and torch disagree at batch {batch_size}: max abs diff "
                f"{float(np.max(np.abs(actual - expected))):.3g} (rtol={RTOL}, atol={ATOL})"
            )
    return worst
