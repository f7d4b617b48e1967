"""int8 quantization: ONNX Runtime's static QDQ quantization (CNNs, detectors), dynamic quantization
(text and MLP models), and quantization-aware fine-tuning for CNNs.

Static: per-channel symmetric int8 weights, per-tensor uint8 activations with MinMax ranges
calibrated on up to 300 training images, after ONNX Runtime's pre-processing (shape inference, batch
norm folded into the convolutions): the device SDK's quantization (``workers.packaging.device_sdk``),
so a compressed variant and a device SDK quantize the same way.

QAT: torch's own QAT flow (``torch.ao.quantization`` prepare_qat/convert) produces quantized torch
modules that the ONNX exporter of this torch (dynamo) does not export, so QAT here is fake-quant
fine-tuning done by hand: each convolution is folded with its batch norm (the weights ONNX Runtime
will quantize), its weights pass through per-channel symmetric int8 fake quantization and every ReLU's
output through a uint8 fake quantizer (moving-average min/max), with straight-through gradients.
After the fine-tune the folded weights are written back (batch norm set to identity with the folded
bias), the model is exported to fp32 ONNX and statically quantized as above; the activation ranges
come from ONNX Runtime's calibration on the training images, not from the fake quantizers' observers.
The weights have learned to sit well on the int8 grid, which is where the accuracy comes back.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

STATIC_TEMPLATES = ("image_classification", "object_detection")
# a template's calibration batches: (onnx, manifest, input name) -> batches of model inputs
CALIBRATION = {"object_detection": "workers.compression.detection:calibration_batches"}


def training_image_paths(manifest: Mapping[str, Any]) -> list[str]:
    """The training split's image paths (the calibration images)."""
    return [str(s["path"]) for s in manifest["samples"] if s.get("split") == "train" and s.get("path")]


def quantize_onnx(*, template: str, onnx: Path, manifest: Mapping[str, Any], out: Path) -> Path:
    """int8 ``onnx`` into ``out``: static QDQ calibrated on the manifest's training images for image
    classifiers and detectors, dynamic (int8 weights of MatMul/Gemm) for text and table models.
    Keeps the model's metadata. Returns ``out``.

    >>> quantize_onnx(template="image_classification", onnx=Path("run/model.onnx"),
    ...               manifest=manifest, out=Path("run/model.int8.onnx"))  # doctest: +SKIP
    PosixPath('run/model.int8.onnx')
    """
    onnx, out = Path(onnx), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if template == "image_classification":
        from workers.compression.core import model_description
        from workers.packaging.device_sdk import quantize_int8

        preprocessing, _ = model_description(onnx, manifest)
        images = training_image_paths(manifest)
        if not images:
            raise ValueError(
                "static int8 quantization needs training images to calibrate on; the train split is empty"
            )
        with tempfile.TemporaryDirectory(prefix="sampan-quantize-") as workdir:
            quantize_int8(onnx, out, images, preprocessing, Path(workdir))
        return out
    if template in CALIBRATION:
        import importlib

        module_name, _, function = CALIBRATION[template].partition(":")
        batches: Callable[..., Iterator[dict[str, np.ndarray]]] = getattr(
            importlib.import_module(module_name), function
        )
        return quantize_static_qdq(onnx, out, lambda name: batches(onnx, manifest, name))
    return quantize_dynamic_int8(onnx, out)


def quantize_static_qdq(
    onnx: Path, out: Path, batches: Callable[[str], Iterator[dict[str, np.ndarray]]]
) -> Path:
    """Static QDQ int8 (per-channel int8 weights, uint8 activations, MinMax) of ``onnx``, calibrated
    on ``batches(input_name)``; keeps the metadata."""
    import onnx as onnx_lib
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    input_name = onnx_lib.load(str(onnx), load_external_data=False).graph.input[0].name

    class Reader(CalibrationDataReader):  # type: ignore[misc]  # onnxruntime has no type information
        def __init__(self) -> None:
            self.batches = batches(input_name)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory(prefix="sampan-quantize-") as workdir:
        prepared = Path(workdir) / "model.prepared.onnx"
        # ONNX shape inference only: the symbolic one cannot follow some detectors' graphs
        quant_pre_process(str(onnx), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            calibrate_method=CalibrationMethod.MinMax,
        )
    _copy_metadata(onnx, out)
    return out


def quantize_dynamic_int8(onnx: Path, out: Path) -> Path:
    """Dynamic int8 (int8 weights of MatMul/Gemm, activations quantized per call); keeps the metadata."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(onnx), str(out), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"]
    )
    _copy_metadata(onnx, out)
    return out


def _copy_metadata(source: Path, target: Path) -> None:
    import onnx as onnx_lib

    original, quantized = onnx_lib.load(str(source)), onnx_lib.load(str(target))
    present = {entry.key for entry in quantized.metadata_props}
    for entry in original.metadata_props:
        if entry.key not in present:
            quantized.metadata_props.add(key=entry.key, value=entry.value)
    onnx_lib.save(quantized, str(target))


# --- quantization-aware fine-tuning (torch, CNNs) ------------------------------------------------


def conv_bn_pairs(model: Any) -> list[tuple[Any, str, str]]:
    """(parent module, conv attribute, batch-norm attribute) of every convolution followed by its
    batch norm: adjacent in an ``nn.Sequential``, or named ``convX`` / ``bnX`` in one module."""
    from torch import nn

    pairs: list[tuple[Any, str, str]] = []
    for module in model.modules():
        children = dict(module.named_children())
        if isinstance(module, nn.Sequential):
            names = list(children)
            for first, second in zip(names, names[1:], strict=False):
                if isinstance(children[first], nn.Conv2d) and isinstance(children[second], nn.BatchNorm2d):
                    pairs.append((module, first, second))
            continue
        for name, child in children.items():
            found = re.fullmatch(r"conv(\w*)", name)
            if (
                found
                and isinstance(child, nn.Conv2d)
                and isinstance(children.get(f"bn{found.group(1)}"), nn.BatchNorm2d)
            ):
                pairs.append((module, name, f"bn{found.group(1)}"))
    return pairs


def prepare_qat(model: Any) -> Any:
    """Turn ``model`` (eval-mode statistics already trained) into its fake-quant training form, in
    place: conv+BN pairs become a folded convolution (BN replaced by identity), linear layers get
    per-channel int8 fake-quant weights, ReLUs a uint8 fake quantizer on their output."""
    from torch import nn

    folded_conv, fake_quant_linear = _modules()
    for parent, conv_name, bn_name in conv_bn_pairs(model):
        conv, bn = getattr(parent, conv_name), getattr(parent, bn_name)
        setattr(parent, conv_name, folded_conv.fold(conv, bn))
        setattr(parent, bn_name, nn.Identity())
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, nn.Linear):
                setattr(module, name, fake_quant_linear.wrap(child))
            elif isinstance(child, nn.ReLU):
                setattr(module, name, nn.Sequential(nn.ReLU(), _activation_fake_quant()))
    return model


def finish_qat(qat_model: Any, plain_model: Any) -> Any:
    """Write a fine-tuned :func:`prepare_qat` model's weights back into ``plain_model`` (the same
    architecture unprepared): folded convolution weights, batch norms as identity carrying the
    folded bias, linear layers as trained. Returns ``plain_model`` in eval mode."""
    import torch

    folded_conv, fake_quant_linear = _modules()
    plain_pairs = conv_bn_pairs(plain_model)
    folded = [m for m in qat_model.modules() if isinstance(m, folded_conv)]
    if len(folded) != len(plain_pairs):
        raise RuntimeError(
            f"QAT model has {len(folded)} folded convolutions, the plain model {len(plain_pairs)}"
        )
    with torch.no_grad():
        for (parent, conv_name, bn_name), trained in zip(plain_pairs, folded, strict=True):
            conv, bn = getattr(parent, conv_name), getattr(parent, bn_name)
            conv.weight.copy_(trained.weight)
            bn.weight.fill_(1.0)
            bn.bias.copy_(trained.bias)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        linears = [m for m in qat_model.modules() if isinstance(m, fake_quant_linear)]
        plain_linears = [m for m in plain_model.modules() if isinstance(m, torch.nn.Linear)]
        for trained_linear, linear in zip(linears, plain_linears, strict=True):
            linear.weight.copy_(trained_linear.weight)
            if linear.bias is not None:
                linear.bias.copy_(trained_linear.bias)
    plain_model.eval()
    return plain_model


def _activation_fake_quant() -> Any:
    import torch
    from torch.ao.quantization import FakeQuantize, MovingAverageMinMaxObserver

    return FakeQuantize(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=torch.quint8)


def _fake_quant_weight(weight: Any) -> Any:
    """Per-output-channel symmetric int8 (ONNX Runtime's per-channel QInt8 weights), straight-through."""
    import torch

    flat = weight.detach().reshape(weight.shape[0], -1)
    scale = (flat.abs().amax(dim=1) / 127.0).clamp(min=1e-8)
    zero_point = torch.zeros(weight.shape[0], dtype=torch.int32, device=weight.device)
    return torch.fake_quantize_per_channel_affine(weight, scale, zero_point, 0, -127, 127)


@functools.cache
def _modules() -> tuple[Any, Any]:
    """The fake-quant module classes (defined on first use: importing this file imports no torch)."""
    import torch
    from torch import nn

    class _FoldedConv(nn.Module):
        """A convolution with its batch norm folded in, weights fake-quantized in the forward pass."""

        def __init__(self, conv: nn.Conv2d, weight: torch.Tensor, bias: torch.Tensor) -> None:
            super().__init__()
            self.stride, self.padding, self.dilation, self.groups = (
                conv.stride,
                conv.padding,
                conv.dilation,
                conv.groups,
            )
            self.weight = nn.Parameter(weight)
            self.bias = nn.Parameter(bias)

        @classmethod
        def fold(cls, conv: nn.Conv2d, bn: nn.BatchNorm2d) -> _FoldedConv:
            mean, var = bn.running_mean, bn.running_var
            if mean is None or var is None:
                raise ValueError("QAT folds batch norms that track running statistics")
            with torch.no_grad():
                std = torch.sqrt(var + bn.eps)
                factor = bn.weight / std
                weight = conv.weight * factor.reshape(-1, 1, 1, 1)
                conv_bias = conv.bias if conv.bias is not None else torch.zeros_like(mean)
                bias = (conv_bias - mean) * factor + bn.bias
            return cls(conv, weight.clone(), bias.clone())

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.nn.functional.conv2d(
                x,
                _fake_quant_weight(self.weight),
                self.bias,
                self.stride,
                self.padding,
                self.dilation,
                self.groups,
            )

    class _FakeQuantLinear(nn.Linear):
        @classmethod
        def wrap(cls, linear: nn.Linear) -> _FakeQuantLinear:
            wrapped = cls(linear.in_features, linear.out_features, bias=linear.bias is not None)
            wrapped.load_state_dict(linear.state_dict())
            return wrapped

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.nn.functional.linear(x, _fake_quant_weight(self.weight), self.bias)

    return _FoldedConv, _FakeQuantLinear
