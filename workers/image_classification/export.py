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
from collections.abc import Callable, Mapping
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
    return load_model_file(checkpoint, build_model, "image classifier")


def load_model_file(
    checkpoint: str | os.PathLike[str],
    build: Callable[..., torch.nn.Module],
    what: str,
    *,
    template: str | None = None,
    fit: Callable[[torch.nn.Module, Mapping[str, torch.Tensor]], torch.nn.Module] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Read a model file (weights_only=True), check its entries (and its ``template`` when given),
    rebuild the network with ``build(arch, num_classes)`` (plus ``channels=`` when the file stores a
    pruned network's channel configuration) and load its weights, in eval mode. ``fit(model,
    state_dict)``, when given, first shrinks the built network's layers to the weights' shapes (a
    pruned detector's file stores narrower convolutions and no channel configuration)."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=True)
    missing = [
        key for key in ("arch", "num_classes", "classes", "preprocessing", "model") if key not in state
    ]
    if missing or (template is not None and state.get("template") != template):
        raise OnnxExportError(
            f"{os.fspath(checkpoint)} is not a Sampan {what}"
            + (f" (missing {', '.join(missing)})" if missing else "")
        )
    # a pruned or narrowed network's model file stores its channel configuration
    shape = {"channels": state["channels"]} if state.get("channels") is not None else {}
    model = build(state["arch"], state["num_classes"], **shape)
    if fit is not None:
        model = fit(model, state["model"])
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
    if opset < 17:
        raise ValueError("opset must be 17 or newer")
    model, state = load_classifier(checkpoint)
    height, width = state["preprocessing"]["image_size"]
    out_path = Path(out_path)
    max_diff = write_verified_onnx(
        model,
        out_path,
        size=(height, width),
        output_names=(OUTPUT_NAME,),
        metadata={
            "sampan.template": "image_classification",
            "sampan.classes": json.dumps(list(state["classes"])),
            "sampan.preprocessing": json.dumps(state["preprocessing"]),
        },
        opset=opset,
        verify_batch_sizes=verify_batch_sizes,
        atol=ATOL,
    )
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


def write_verified_onnx(
    model: torch.nn.Module,
    out_path: Path,
    *,
    size: tuple[int, int],
    output_names: tuple[str, ...],
    metadata: dict[str, str],
    opset: int,
    verify_batch_sizes: tuple[int, ...],
    atol: float,
) -> float:
    """Export ``model`` (eval mode; input ``input`` [batch, 3, H, W]) with the dynamo exporter, a
    dynamic batch and ``external_data=False``, store ``metadata`` in the file, check it, compare
    ONNX Runtime with torch at each batch size, then move it onto ``out_path``. Returns the largest
    absolute difference; raises :class:`OnnxVerificationError` (and keeps no file) beyond
    rtol=1e-4 / ``atol``. Shared by the image templates' exports."""
    import onnx

    out_path.parent.mkdir(parents=True, exist_ok=True)
    temp = out_path.with_name(f".tmp-{out_path.name}.{os.getpid()}")
    example = torch.randn(2, 3, *size, generator=torch.Generator().manual_seed(0))
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
                output_names=list(output_names),
                dynamic_shapes=({0: batch},),
                verbose=False,
            )
        check_onnx_self_contained(temp)
        proto = onnx.load(str(temp))
        for key, value in metadata.items():
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, value
        onnx.checker.check_model(proto)
        onnx.save(proto, str(temp))
        max_diff = verify_against_torch(
            model, temp, verify_batch_sizes, size, output_names=output_names, atol=atol
        )
        os.replace(temp, out_path)
    finally:
        temp.unlink(missing_ok=True)
    return max_diff


def verify_against_torch(
    model: torch.nn.Module,
    onnx_path: Path,
    batch_sizes: tuple[int, ...],
    size: tuple[int, int],
    *,
    output_names: tuple[str, ...] = (OUTPUT_NAME,),
    atol: float = ATOL,
) -> float:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    generator = torch.Generator().manual_seed(1)
    worst = 0.0
    for batch_size in batch_sizes:
        inputs = torch.randn(batch_size, 3, *size, generator=generator)
        with torch.inference_mode():
            outputs = model(inputs)
        expected = [t.numpy() for t in (outputs if isinstance(outputs, tuple) else (outputs,))]
        actual = session.run(list(output_names), {INPUT_NAME: inputs.numpy()})
        for name, got, want in zip(output_names, actual, expected, strict=True):
            which = f" {name}" if len(output_names) > 1 else ""
            if got.shape != want.shape:
                raise OnnxVerificationError(
                    f"ONNX output{which} shape {got.shape} != torch {want.shape} at batch {batch_size}"
                )
            difference = float(np.max(np.abs(got - want)))
            worst = max(worst, difference)
            if not np.allclose(got, want, rtol=RTOL, atol=atol):
                raise OnnxVerificationError(
                    f"ONNX Runtime and torch disagree{which and ' on' + which} at batch {batch_size}: "
                    f"max abs diff {difference:.3g} (rtol={RTOL}, atol={atol})"
                )
    return worst
