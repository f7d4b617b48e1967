"""Compression of the object detector (CenterNet, :mod:`workers.object_detection`).

``compress_variant`` makes one variant of a trained detector from a recipe, in this order:

- ``prune``: structured channel pruning. The channels that can go without touching the residual
  stream: the inner channel of every ResNet basic block (``conv1``/``bn1`` out, ``conv2`` in), the
  neck's 3x3 conv (``smooth``: out, and both heads' first conv in) and the hidden channels of both
  heads. Each group keeps the same fraction of its channels, the most important ones
  (``|BN scale|`` or the filter's L2 norm, times the L2 norm of the weights that read the channel);
  the fraction is found by bisection so that the convolutions' FLOPs are ``flops_ratio`` of the
  parent's, or (``latency_ms``) the largest fraction whose ONNX meets the latency on the target.
  Then fine-tuning with the detector's own loss (``centernet_loss``) on the training split, the
  parent's outputs mixed in as soft targets (distillation from the unpruned model).
- ``distill``: a smaller detector architecture (``student``, e.g. ``det_small`` from ``det_medium``)
  trained from scratch on the labels and on the teacher's heatmaps and boxes (the parent, or the
  job's ``teacher_checkpoint``); ``alpha`` weighs the teacher.
- ``quantize``: static int8 (ONNX Runtime QDQ, per-channel weights, calibrated on up to 300 training
  images: the device SDK's quantizer); ``auto`` measures mAP@.5 on the val split before and after
  and, when static int8 loses more than ``max_metric_drop``, fine-tunes with quantization-aware
  training and keeps whichever int8 model scores better on val; ``qat`` always does. QAT: the
  convolutions folded with their batch norms and fake-quantized per channel, the ReLUs' outputs
  fake-quantized (``workers.compression.quantization.prepare_qat``), a few epochs at a tenth of the
  parent's learning rate with the fp32 model as teacher, then written back into the template's
  model (``finish_qat``), exported and statically quantized as above.

A pruned model file is the template's ``model.pt`` with narrower convolutions; :func:`load_pruned`
rebuilds it (:func:`fit_to_state_dict` shrinks the template's modules to the file's shapes). The
variant's ONNX has the template's inputs, outputs and metadata, so the template's evaluate, predictor,
serving and device SDK take it unchanged.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from workers.compression.core import CompressionError, RecipeNotApplicable
from workers.contracts.annotations import DetectionManifest
from workers.contracts.compression import CompressionRecipe, CompressionSpec
from workers.image_classification.export import DEFAULT_OPSET, VERIFY_BATCH_SIZES, write_verified_onnx
from workers.image_classification.models import BasicBlock
from workers.object_detection.augment import TrainBoxTransform
from workers.object_detection.data import DetectionSamples
from workers.object_detection.export import ATOL, OUTPUT_NAMES
from workers.object_detection.manifest import Manifest, parse_manifest
from workers.object_detection.models import (
    ARCHITECTURES,
    CenterNet,
    DetectionOutputs,
    build_model,
    decode_boxes,
)
from workers.object_detection.template import TEMPLATE
from workers.object_detection.trainer import MODEL_FORMAT, centernet_loss
from workers.progress import Report

__all__ = [
    "calibration_batches",
    "compress_variant",
    "conv_flops",
    "fit_to_state_dict",
    "load_pruned",
    "prune",
]

DEFAULT_FINE_TUNE_EPOCHS = 10
DEFAULT_DISTILL_EPOCHS = 30
FINE_TUNE_LR_SCALE = 0.5  # of the parent's learning rate: the pruned weights are already trained
PRUNE_DISTILL_ALPHA = 0.5  # the unpruned parent's outputs as soft targets while fine-tuning
DEFAULT_ALPHA = 0.5
DEFAULT_MAX_MAP_DROP = 0.02
DEFAULT_QAT_EPOCHS = 3
QAT_LR_SCALE = 0.1
MIN_CHANNELS = 4
BISECTION_STEPS = 14
LATENCY_RATIOS = (0.8, 0.65, 0.5, 0.4, 0.3, 0.22, 0.15, 0.1)
TEACHER_BOX_SCORE = 0.1  # cells the teacher is at least this sure of teach their boxes


# --- model files -------------------------------------------------------------------------------


def fit_to_state_dict(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    """Replace each Conv2d / BatchNorm2d of ``model`` whose weights in ``state_dict`` are narrower
    than the module (a pruned model file) by a module of the file's shape; returns ``model``."""
    for name, module in list(model.named_modules()):
        weight = state_dict.get(f"{name}.weight")
        if weight is None:
            continue
        if isinstance(module, nn.Conv2d) and tuple(weight.shape) != tuple(module.weight.shape):
            out_channels, in_channels = int(weight.shape[0]), int(weight.shape[1]) * module.groups
            _replace(model, name, _conv_like(module, in_channels, out_channels))
        elif isinstance(module, nn.BatchNorm2d) and weight.shape[0] != module.num_features:
            _replace(
                model, name, nn.BatchNorm2d(int(weight.shape[0]), eps=module.eps, momentum=module.momentum)
            )
    return model


def load_pruned(checkpoint: str | os.PathLike[str]) -> tuple[CenterNet, dict[str, Any]]:
    """A detector model file (pruned or not) rebuilt in eval mode, with its entries."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=True)
    if state.get("template") != TEMPLATE.name:
        raise ValueError(f"{os.fspath(checkpoint)} is not a Sampan detector model file")
    model = fit_to_state_dict(build_model(state["arch"], state["num_classes"]), state["model"])
    model.load_state_dict(state["model"])
    model.eval()
    assert isinstance(model, CenterNet)
    return model, state


def _replace(root: nn.Module, name: str, module: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = root.get_submodule(parent_name) if parent_name else root
    setattr(parent, child, module)


def _conv_like(conv: nn.Conv2d, in_channels: int, out_channels: int) -> nn.Conv2d:
    return nn.Conv2d(
        in_channels,
        out_channels,
        conv.kernel_size,  # type: ignore[arg-type]
        stride=conv.stride,  # type: ignore[arg-type]
        padding=conv.padding,  # type: ignore[arg-type]
        dilation=conv.dilation,  # type: ignore[arg-type]
        groups=conv.groups,
        bias=conv.bias is not None,
    )


def _save_model_file(model: CenterNet, parent_state: Mapping[str, Any], path: Path, **entries: Any) -> None:
    model_file = {
        **{k: v for k, v in parent_state.items() if k not in ("model", "optimizer", "scheduler", "rng")},
        "format": MODEL_FORMAT,
        "template": TEMPLATE.name,
        "model": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
        **entries,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".tmp-{path.name}.{os.getpid()}")
    torch.save(model_file, temp)
    os.replace(temp, path)


def export_detector(model: CenterNet, state: Mapping[str, Any], out_path: Path) -> Path:
    """The template's ONNX (inputs, outputs, metadata) of ``model``, verified against torch."""
    height, width = state["preprocessing"]["image_size"]
    write_verified_onnx(
        DetectionOutputs(model).eval(),
        out_path,
        size=(height, width),
        output_names=OUTPUT_NAMES,
        metadata={
            "sampan.template": TEMPLATE.name,
            "sampan.classes": json.dumps(list(state["classes"])),
            "sampan.preprocessing": json.dumps(state["preprocessing"]),
        },
        opset=DEFAULT_OPSET,
        verify_batch_sizes=VERIFY_BATCH_SIZES,
        atol=ATOL,
    )
    return out_path


# --- pruning -----------------------------------------------------------------------------------


class _Group:
    """Channels pruned together: the output channels of ``producer`` (and its batch norm) and the
    input channels of each consumer."""

    def __init__(self, producer: str, norm: str | None, consumers: list[str]) -> None:
        self.producer, self.norm, self.consumers = producer, norm, consumers

    def importance(self, model: nn.Module) -> torch.Tensor:
        conv = model.get_submodule(self.producer)
        assert isinstance(conv, nn.Conv2d)
        if self.norm is not None:
            norm = model.get_submodule(self.norm)
            assert isinstance(norm, nn.BatchNorm2d)
            outgoing = norm.weight.detach().abs()
        else:
            outgoing = conv.weight.detach().flatten(1).norm(dim=1)
        reading = torch.zeros_like(outgoing)
        for name in self.consumers:
            consumer = model.get_submodule(name)
            assert isinstance(consumer, nn.Conv2d)
            reading += consumer.weight.detach().transpose(0, 1).flatten(1).norm(dim=1) ** 2
        return outgoing * reading.sqrt()

    def channels(self, model: nn.Module) -> int:
        conv = model.get_submodule(self.producer)
        assert isinstance(conv, nn.Conv2d)
        return conv.out_channels

    def keep(self, model: nn.Module, keep: torch.Tensor) -> None:
        conv = model.get_submodule(self.producer)
        assert isinstance(conv, nn.Conv2d)
        smaller = _conv_like(conv, conv.in_channels, len(keep))
        smaller.weight.data = conv.weight.data[keep].clone()
        if conv.bias is not None:
            assert smaller.bias is not None
            smaller.bias.data = conv.bias.data[keep].clone()
        _replace(model, self.producer, smaller)
        if self.norm is not None:
            norm = model.get_submodule(self.norm)
            assert isinstance(norm, nn.BatchNorm2d)
            narrow = nn.BatchNorm2d(len(keep), eps=norm.eps, momentum=norm.momentum)
            narrow.weight.data = norm.weight.data[keep].clone()
            narrow.bias.data = norm.bias.data[keep].clone()
            assert norm.running_mean is not None and norm.running_var is not None
            narrow.running_mean = norm.running_mean[keep].clone()
            narrow.running_var = norm.running_var[keep].clone()
            narrow.num_batches_tracked = norm.num_batches_tracked
            _replace(model, self.norm, narrow)
        for name in self.consumers:
            consumer = model.get_submodule(name)
            assert isinstance(consumer, nn.Conv2d)
            reader = _conv_like(consumer, len(keep), consumer.out_channels)
            reader.weight.data = consumer.weight.data[:, keep].clone()
            if consumer.bias is not None:
                assert reader.bias is not None
                reader.bias.data = consumer.bias.data.clone()
            _replace(model, name, reader)


def _groups(model: CenterNet) -> list[_Group]:
    groups = [
        _Group(f"{name}.conv1", f"{name}.bn1", [f"{name}.conv2"])
        for name, module in model.named_modules()
        if isinstance(module, BasicBlock)
    ]
    groups.append(_Group("smooth.0", "smooth.1", ["heatmap.0", "regression.0"]))
    groups += [_Group(f"{head}.0", None, [f"{head}.2"]) for head in ("heatmap", "regression")]
    return groups


def prune(model: CenterNet, ratio: float) -> CenterNet:
    """A copy of ``model`` keeping ``ratio`` of each prunable group's channels (at least
    ``MIN_CHANNELS``), the most important ones, in their original order."""
    pruned = copy.deepcopy(model)
    for group in _groups(pruned):
        channels = group.channels(pruned)
        count = min(channels, max(MIN_CHANNELS, round(channels * ratio)))
        if count < channels:
            keep = torch.sort(torch.topk(group.importance(pruned), count).indices).values
            group.keep(pruned, keep)
    return pruned


def conv_flops(model: nn.Module, size: tuple[int, int]) -> int:
    """2 x the multiply-accumulates of the model's convolutions for one image of ``size``."""
    total = 0

    def count(module: nn.Module, _: Any, output: torch.Tensor) -> None:
        nonlocal total
        assert isinstance(module, nn.Conv2d)
        kernel = module.kernel_size[0] * module.kernel_size[1] * (module.in_channels // module.groups)
        total += 2 * int(output[0].numel()) * kernel

    hooks = [m.register_forward_hook(count) for m in model.modules() if isinstance(m, nn.Conv2d)]
    try:
        with torch.inference_mode():
            model.eval()(torch.zeros(1, 3, *size))
    finally:
        for hook in hooks:
            hook.remove()
    return total


def ratio_for_flops(model: CenterNet, size: tuple[int, int], flops_ratio: float) -> tuple[float, float]:
    """(channel ratio, the FLOPs fraction it reaches): the largest channel ratio whose pruned model
    has at most ``flops_ratio`` of the model's convolution FLOPs (bisection)."""
    full = conv_flops(model, size)
    low, high = 0.0, 1.0
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        if conv_flops(prune(model, middle), size) <= flops_ratio * full:
            low = middle
        else:
            high = middle
    reached = conv_flops(prune(model, low), size) / full
    return low, reached


# --- training (fine-tuning and distillation) ---------------------------------------------------


def _distillation_loss(
    heat_logits: torch.Tensor, regression: torch.Tensor, teacher_heat: torch.Tensor, teacher_reg: torch.Tensor
) -> torch.Tensor:
    """The teacher's heatmaps as soft targets (binary cross-entropy, normalised per teacher object
    mass) plus the L1 distance of the boxes, in units of the teacher's box size, where the teacher
    is sure of an object."""
    target = torch.sigmoid(teacher_heat)
    mass = target.flatten(1).max(dim=1).values.sum().clamp(min=1.0)
    heat = nn.functional.binary_cross_entropy_with_logits(heat_logits, target, reduction="sum") / mass
    confidence = target.max(dim=1).values
    confidence = torch.where(confidence >= TEACHER_BOX_SCORE, confidence, torch.zeros_like(confidence))
    student_boxes, teacher_boxes = decode_boxes(regression), decode_boxes(teacher_reg)
    scale = teacher_boxes[:, 2:].mean(dim=1, keepdim=True).clamp(min=1.0)
    box = ((student_boxes - teacher_boxes).abs() / scale).sum(dim=1)
    boxes = (box * confidence).sum() / confidence.sum().clamp(min=1e-6)
    return heat + boxes


def train_detector(
    model: CenterNet,
    data: Manifest,
    params: Mapping[str, Any],
    preprocessing: Mapping[str, Any],
    *,
    epochs: int,
    learning_rate: float,
    seed: int,
    report: Report,
    teacher: CenterNet | None = None,
    alpha: float = 0.0,
    span: tuple[float, float] = (0.0, 1.0),
) -> CenterNet:
    """Train ``model`` on the training split with the template's loss (and, with ``teacher``,
    ``alpha`` x the distillation loss): AdamW, one-cycle schedule, the template's augmentation."""
    random.seed(seed)
    torch.manual_seed(seed)
    samples = [s for s in data.samples if s.split == "train"]
    transform = TrainBoxTransform(
        preprocessing, augmentation=params["augmentation"], horizontal_flip=params["horizontal_flip"]
    )
    dataset = DetectionSamples(samples, transform, num_classes=len(data.classes), seed=seed)
    batch_size = int(params["batch_size"])
    steps_per_epoch = max(1, math.ceil(len(samples) / batch_size))
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=learning_rate, weight_decay=float(params.get("weight_decay", 1e-4))
    )
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=learning_rate, total_steps=epochs * steps_per_epoch, pct_start=0.15
    )
    generator = torch.Generator().manual_seed(seed)
    if teacher is not None:
        teacher.eval()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(samples), generator=generator).tolist()
        total = 0.0
        for start in range(0, len(order), batch_size):
            items = [dataset[(i, epoch)] for i in order[start : start + batch_size]]
            inputs, heatmap, box_target, weight = (torch.stack(column) for column in zip(*items, strict=True))
            heat_logits, regression = model(inputs)
            loss = centernet_loss(heat_logits, regression, heatmap, box_target, weight)
            if teacher is not None and alpha > 0:
                with torch.no_grad():
                    teacher_heat, teacher_reg = teacher(inputs)
                kd = _distillation_loss(heat_logits, regression, teacher_heat, teacher_reg)
                loss = (1 - alpha) * loss + alpha * kd
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += float(loss.detach()) * len(items)
        done = (epoch + 1) / epochs
        report(
            f"training the variant: epoch {epoch + 1}/{epochs}",
            fraction=span[0] + (span[1] - span[0]) * done,
            epoch=epoch + 1,
            epochs=epochs,
            loss=total / len(samples),
        )
    model.eval()
    return model


# --- quantization ------------------------------------------------------------------------------


def quantize_static(
    fp32: Path, out: Path, data: Manifest, preprocessing: Mapping[str, Any], workdir: Path
) -> Path:
    """Static int8 of a detector's ONNX (the device SDK's quantizer), calibrated on training images."""
    from workers.packaging.device_sdk import quantize_int8

    calibration = [s.path for s in data.samples if s.split == "train"]
    workdir.mkdir(parents=True, exist_ok=True)
    quantize_int8(fp32, out, calibration, dict(preprocessing), workdir, symbolic_shape=False)
    return out


def calibration_batches(
    onnx_path: Path, manifest: Mapping[str, Any], input_name: str
) -> Iterator[dict[str, np.ndarray]]:
    """Preprocessed batches of up to 300 training images of ``manifest`` for static int8 of the
    detector at ``onnx_path`` (``workers.compression.quantization.quantize_onnx`` calls this)."""
    from workers.compression.core import model_description
    from workers.packaging.device_sdk import calibration_batches as image_batches

    preprocessing, _ = model_description(Path(onnx_path), manifest)
    paths = [str(s["path"]) for s in manifest["samples"] if s.get("split") == "train"]
    return image_batches(paths, preprocessing, input_name)


def val_map50(onnx_path: Path, manifest: DetectionManifest, preprocessing: Mapping[str, Any]) -> float:
    from workers.object_detection.evaluation import evaluate

    split = "val" if any(s["split"] == "val" for s in manifest["samples"]) else "train"
    return float(
        evaluate(onnx_path, manifest, preprocessing=preprocessing, split=split, bad_cases=0)["map50"]
    )


# --- the compressor ----------------------------------------------------------------------------


def _ratio_for_latency(
    model: CenterNet, state: Mapping[str, Any], latency_ms: float, spec: CompressionSpec, workdir: Path
) -> tuple[float, float]:
    """(channel ratio, its target latency): the largest of ``LATENCY_RATIOS`` whose pruned ONNX
    (before fine-tuning: its speed does not change with training) meets ``latency_ms``."""
    from workers.deployment_targets import BUILTIN_TARGETS, measure_latency, target_profile

    profile = target_profile(spec.get("target") or BUILTIN_TARGETS["worker-cpu"])
    reached = math.inf
    for ratio in LATENCY_RATIOS:
        candidate = export_detector(prune(model, ratio), state, workdir / f"latency-{ratio}.onnx")
        reached = float(measure_latency(candidate, profile)["target_ms"])
        if reached <= latency_ms:
            return ratio, reached
    raise RecipeNotApplicable(
        f"no pruning of this detector reaches {latency_ms} ms on {profile['name']}: keeping "
        f"{LATENCY_RATIOS[-1]:.0%} of the channels measured {reached:.2f} ms"
    )


def compress_variant(
    *,
    recipe: CompressionRecipe,
    parent_checkpoint: Path,
    manifest: Mapping[str, Any],
    out_dir: Path,
    report: Report,
    teacher_checkpoint: Path | None,
    spec: CompressionSpec,
) -> tuple[Path | None, Path, dict[str, Any], list[str]]:
    """One variant of a detector: (model.pt or None for int8 of the parent, its ONNX, the student's
    template params, notes). Raises :class:`RecipeNotApplicable` for what the detector cannot do."""
    quantize = recipe.get("quantize")
    if quantize == "dynamic":
        raise RecipeNotApplicable(
            "dynamic int8 does not quantize convolutions; the detector takes static (or auto) int8"
        )
    if "prune" in recipe and "distill" in recipe:
        raise RecipeNotApplicable("a detector variant is either pruned or distilled, not both")
    out_dir.mkdir(parents=True, exist_ok=True)
    detection_manifest: DetectionManifest = manifest  # type: ignore[assignment]
    data = parse_manifest(detection_manifest, check_files=True, min_boxes_per_class=0)
    parent, state = load_pruned(parent_checkpoint)
    params: dict[str, Any] = dict(state["params"])
    preprocessing = state["preprocessing"]
    size = tuple(preprocessing["image_size"])
    seed = int(spec.get("seed", params.get("seed", 0)))
    notes: list[str] = []
    model: CenterNet | None = None
    prune_spec, distill = recipe.get("prune"), recipe.get("distill")
    if prune_spec is not None:
        if "latency_ms" in prune_spec:
            ratio, reached_ms = _ratio_for_latency(
                parent, state, float(prune_spec["latency_ms"]), spec, out_dir / "search"
            )
            reached = conv_flops(prune(parent, ratio), size) / conv_flops(parent, size)
            notes.append(f"kept {ratio:.0%} of the prunable channels: {reached_ms:.2f} ms on the target")
        else:
            target = float(prune_spec.get("flops_ratio", 0.5))
            if not 0 < target < 1:
                raise RecipeNotApplicable(f"flops_ratio must be within 0..1 (exclusive), got {target}")
            report("choosing the channels to prune", fraction=0.02)
            ratio, reached = ratio_for_flops(parent, size, target)
        model = prune(parent, ratio)
        notes.append(
            f"structured pruning: {ratio:.0%} of the channels of each block, the neck and the heads kept; "
            f"{reached:.0%} of the parent's convolution FLOPs"
        )
        epochs = int(recipe.get("fine_tune_epochs", DEFAULT_FINE_TUNE_EPOCHS))
        if epochs > 0:
            model = train_detector(
                model,
                data,
                params,
                preprocessing,
                epochs=epochs,
                learning_rate=float(params["learning_rate"]) * FINE_TUNE_LR_SCALE,
                seed=seed,
                report=report,
                teacher=parent,
                alpha=PRUNE_DISTILL_ALPHA,
                span=(0.05, 0.8),
            )
            notes.append(f"fine-tuned {epochs} epochs with the unpruned parent as teacher")
    elif distill is not None:
        student = distill["student"]
        if student not in ARCHITECTURES:
            raise RecipeNotApplicable(
                f"the detector's students are its architectures ({', '.join(ARCHITECTURES)}), not {student!r}"
            )
        teacher = parent
        if teacher_checkpoint is not None:
            teacher, teacher_state = load_pruned(teacher_checkpoint)
            if list(teacher_state["classes"]) != list(state["classes"]) or (
                teacher_state["preprocessing"]["image_size"] != preprocessing["image_size"]
            ):
                raise CompressionError(
                    "the teacher must have the parent's classes and image size", code="teacher_mismatch"
                )
        model = build_model(student, len(state["classes"]))
        epochs = int(recipe.get("fine_tune_epochs", DEFAULT_DISTILL_EPOCHS))
        model = train_detector(
            model,
            data,
            params,
            preprocessing,
            epochs=epochs,
            learning_rate=float(params["learning_rate"]),
            seed=seed,
            report=report,
            teacher=teacher,
            alpha=float(distill.get("alpha", DEFAULT_ALPHA)),
            span=(0.0, 0.8),
        )
        params["model"] = student
        state = {**state, "arch": student}
        notes.append(
            f"{student} distilled from the {'chosen' if teacher_checkpoint else 'parent'} model, "
            f"{epochs} epochs"
        )
    checkpoint: Path | None = None
    if model is not None:
        checkpoint = out_dir / "model.pt"
        _save_model_file(model, {**state, "params": params}, checkpoint, compression={"recipe": dict(recipe)})
        fp32 = export_detector(
            model, state, out_dir / "model.fp32.onnx" if quantize else out_dir / "model.onnx"
        )
    else:
        fp32 = Path(parent_checkpoint).with_name("model.onnx")
        if not fp32.is_file():
            fp32 = export_detector(parent, state, out_dir / "model.fp32.onnx")
    if not quantize:
        return checkpoint, fp32, params, notes
    fp32_model = model if model is not None else parent
    variant_state = {**state, "params": params}

    def quantization_aware(epochs: int, folder: Path) -> tuple[Path, Path]:
        return _quantization_aware(
            model=fp32_model,
            state=variant_state,
            data=data,
            seed=seed,
            epochs=epochs,
            out_dir=folder,
            report=report,
        )

    if quantize == "qat":
        epochs = (
            int(recipe.get("fine_tune_epochs", DEFAULT_QAT_EPOCHS)) if model is None else DEFAULT_QAT_EPOCHS
        )
        checkpoint, int8 = quantization_aware(epochs, out_dir)
        notes.append(f"quantization-aware training: {epochs} epochs, then static int8 (QDQ)")
        return checkpoint, int8, params, notes
    report("int8: calibrating on training images", fraction=0.85)
    int8 = quantize_static(fp32, out_dir / "model.onnx", data, preprocessing, out_dir / "quantization")
    notes.append("static int8 (QDQ, per-channel weights) calibrated on training images")
    if quantize == "auto":
        tolerance = float(spec.get("max_metric_drop", DEFAULT_MAX_MAP_DROP))
        before = val_map50(fp32, detection_manifest, preprocessing)
        after = val_map50(int8, detection_manifest, preprocessing)
        if before - after <= tolerance:
            notes.append(f"static int8 within tolerance on val: mAP@.5 {before:.3f} -> {after:.3f}")
            return checkpoint, int8, params, notes
        qat_dir = out_dir / "qat"
        qat_checkpoint, qat_int8 = quantization_aware(DEFAULT_QAT_EPOCHS, qat_dir)
        trained = val_map50(qat_int8, detection_manifest, preprocessing)
        note = (
            f"static int8 lost {before - after:.3f} mAP@.5 on val (tolerance {tolerance}); "
            f"quantization-aware training ({DEFAULT_QAT_EPOCHS} epochs): {trained:.3f}"
        )
        if trained > after:
            os.replace(qat_int8, int8)
            checkpoint = out_dir / "model.pt"
            os.replace(qat_checkpoint, checkpoint)
            notes.append(f"{note}; QAT used")
        else:
            notes.append(f"{note}; static int8 kept")
    return checkpoint, int8, params, notes


def _quantization_aware(
    *,
    model: CenterNet,
    state: Mapping[str, Any],
    data: Manifest,
    seed: int,
    epochs: int,
    out_dir: Path,
    report: Report,
) -> tuple[Path, Path]:
    """(model.pt, int8 ONNX) of ``model`` after quantization-aware fine-tuning (see the module's
    docstring); the model file holds the folded weights in the template's layout."""
    from workers.compression.quantization import finish_qat, prepare_qat

    params, preprocessing = state["params"], state["preprocessing"]
    fake_quant = prepare_qat(copy.deepcopy(model))
    train_detector(
        fake_quant,
        data,
        params,
        preprocessing,
        epochs=epochs,
        learning_rate=float(params["learning_rate"]) * QAT_LR_SCALE,
        seed=seed,
        report=report,
        teacher=model,
        alpha=PRUNE_DISTILL_ALPHA,
        span=(0.8, 0.9),
    )
    plain = finish_qat(fake_quant, copy.deepcopy(model))
    out_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = out_dir / "model.pt"
    _save_model_file(plain, state, checkpoint, compression={"quantization_aware": True})
    fp32 = export_detector(plain, state, out_dir / "model.qat-fp32.onnx")
    report("int8: calibrating the QAT model on training images", fraction=0.92)
    int8 = quantize_static(
        fp32, out_dir / "model.qat.onnx", data, preprocessing, out_dir / "quantization-qat"
    )
    return checkpoint, int8
