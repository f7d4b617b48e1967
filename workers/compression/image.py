"""The image classifier's compressor: prune or distill (then fine-tune), then quantize.

Files written in the variant's folder::

    model.pt          the variant's model file (the template's format; pruned and narrowed networks
                      store their ``channels``), absent for an int8 variant of the parent's own weights
    model.fp32.onnx   the fp32 export of model.pt (or the parent's ONNX), when the variant is quantized
    model.onnx        what serves: the int8 QDQ model when quantized, else the fp32 export
    preprocess.json, labels.json

Fine-tuning reuses the trainer's data pipeline (``ImageSamples``, ``TrainTransform`` with the
parent's augmentation, seeded ``EpochSampler``), AdamW with a cosine decay, and keeps the epoch with
the best val-split accuracy (the last epoch without a val split). A pruned network fine-tunes with the
unpruned parent as its distillation teacher (temperature 4, alpha 0.5): it recovers faster than from
the labels alone.
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workers.compression.core import (
    DEFAULT_TARGET,
    CompressionError,
    RecipeNotApplicable,
    evaluate_onnx,
    max_metric_drop,
)
from workers.compression.distillation import (
    DEFAULT_ALPHA,
    DEFAULT_TEMPERATURE,
    distillation_loss,
    parse_student,
)
from workers.progress import Report

TEMPLATE = "image_classification"
PRUNE_TEACHER = {"temperature": 4.0, "alpha": 0.5}
QAT_EPOCHS = 2
QAT_LR_FACTOR = 0.05  # of the parent's learning rate
LATENCY_BISECTION_STEPS = 6


def compress_variant(
    *,
    recipe: Mapping[str, Any],
    parent_checkpoint: Path,
    manifest: Mapping[str, Any],
    out_dir: Path,
    report: Report,
    teacher_checkpoint: Path | None,
    spec: Mapping[str, Any],
) -> tuple[Path | None, Path, dict[str, Any], list[str]]:
    """Make one recipe's variant of the image classifier ``parent_checkpoint`` in ``out_dir``;
    returns (model file or None, ONNX, template params of the variant, notes)."""
    import torch

    from workers.image_classification.export import load_classifier
    from workers.image_classification.manifest import parse_manifest

    out_dir = Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    parent, state = load_classifier(parent_checkpoint)
    data = parse_manifest(manifest, check_files=True)  # type: ignore[arg-type]
    if list(data.classes) != list(state["classes"]):
        raise CompressionError(
            f"the manifest's classes {list(data.classes)} are not the model's {list(state['classes'])}"
        )
    seed = int(spec.get("seed", state["params"].get("seed", 0)))
    torch.manual_seed(seed)
    params: dict[str, Any] = dict(state["params"])
    notes: list[str] = []
    model = None  # a new network (pruned, distilled or QAT-tuned), else the parent's own weights
    arch, channels = str(state["arch"]), state.get("channels")
    stages = [k for k in ("prune", "distill", "quantize") if k in recipe]
    share = 1.0 / len(stages)
    done = 0.0

    def stage_report(start: float) -> Report:
        def scaled(
            message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
        ) -> None:
            report(
                message,
                fraction=None if fraction is None else start + share * fraction,
                milestone=milestone,
                **metrics,
            )

        return scaled

    if "prune" in recipe:
        model, channels, notes_prune = _prune(
            parent,
            state,
            recipe,
            data=data,
            report=stage_report(done),
            seed=seed,
            out_dir=out_dir,
            target=spec.get("target"),
        )
        notes += notes_prune
        done += share
    if "distill" in recipe:
        model, arch, channels, notes_distill = _distill(
            state,
            recipe,
            data=data,
            teacher_checkpoint=teacher_checkpoint or parent_checkpoint,
            chosen_teacher=teacher_checkpoint is not None,
            report=stage_report(done),
            seed=seed,
        )
        params["model"] = arch
        if "width" in params:  # the student's own width, not the parent's
            params["width"] = parse_student(str(recipe["distill"]["student"]))[1]
        notes += notes_distill
        done += share
    checkpoint: Path | None = None
    if model is not None:
        checkpoint = _save(model, state, out_dir / "model.pt", arch=arch, channels=channels, params=params)
    quantize = recipe.get("quantize")
    if quantize is None:
        assert checkpoint is not None
        onnx = _export(checkpoint, out_dir / "model.onnx")
        _companions(out_dir, state)
        return checkpoint, onnx, params, notes
    fp32 = (
        _export(checkpoint, out_dir / "model.fp32.onnx")
        if checkpoint is not None
        else _parent_onnx(parent_checkpoint, out_dir / "model.fp32.onnx")
    )
    _companions(out_dir, state)
    final = out_dir / "model.onnx"
    if quantize == "dynamic":
        from workers.compression.quantization import quantize_dynamic_int8

        quantize_dynamic_int8(fp32, final)
        notes.append(
            "dynamic int8: only the classifier head (Gemm/MatMul) is quantized; the convolutions stay fp32"
        )
        return checkpoint, final, params, notes
    from workers.compression.quantization import quantize_onnx

    quantize_report = stage_report(done)
    if quantize in ("static", "auto"):
        quantize_report("static int8 quantization (calibrated on training images)", fraction=0.0)
        quantize_onnx(template=TEMPLATE, onnx=fp32, manifest=dict(manifest), out=final)
        if quantize == "static":
            notes.append("static int8 (QDQ, per-channel weights, MinMax calibration on training images)")
            return checkpoint, final, params, notes
        _, fp32_value = _metric(fp32, manifest)
        metric, int8_value = _metric(final, manifest)
        tolerance = max_metric_drop(spec, "classification_report")
        drop = fp32_value - int8_value
        if drop <= tolerance:
            notes.append(
                f"auto: static int8 kept ({metric} {int8_value:.4f}, {drop * 100:+.2f} points from fp32 "
                f"{fp32_value:.4f}, within the {tolerance * 100:.2f}-point tolerance); QAT not needed"
            )
            return checkpoint, final, params, notes
        static_copy = out_dir / "model.static.onnx"
        shutil.copyfile(final, static_copy)
    # quantization-aware fine-tuning (asked for, or auto after static lost too much)
    base = model if model is not None else parent
    qat_model, qat_note = _qat(
        base,
        state,
        params=params,
        arch=arch,
        channels=channels,
        data=data,
        report=stage_report(done + share * 0.1) if quantize == "auto" else quantize_report,
        seed=seed,
    )
    qat_checkpoint = _save(
        qat_model, state, out_dir / "model.qat.pt", arch=arch, channels=channels, params=params
    )
    qat_fp32 = _export(qat_checkpoint, out_dir / "model.qat.fp32.onnx")
    qat_int8 = out_dir / "model.qat.onnx"
    quantize_onnx(template=TEMPLATE, onnx=qat_fp32, manifest=dict(manifest), out=qat_int8)
    if quantize == "qat":
        os.replace(qat_int8, final)
        os.replace(qat_checkpoint, out_dir / "model.pt")
        os.replace(qat_fp32, fp32)
        notes.append(qat_note)
        return out_dir / "model.pt", final, params, notes
    metric, qat_value = _metric(qat_int8, manifest)
    if qat_value > int8_value:
        notes.append(
            f"auto: static int8 dropped {drop * 100:.2f} points ({metric} {int8_value:.4f} vs fp32 "
            f"{fp32_value:.4f}), more than the {tolerance * 100:.2f}-point tolerance; QAT used "
            f"({metric} {qat_value:.4f}). {qat_note}"
        )
        os.replace(qat_int8, final)
        os.replace(qat_checkpoint, out_dir / "model.pt")
        os.replace(qat_fp32, fp32)
        checkpoint = out_dir / "model.pt"
    else:
        notes.append(
            f"auto: static int8 dropped {drop * 100:.2f} points, more than the {tolerance * 100:.2f}-point "
            f"tolerance; QAT did not do better ({metric} {qat_value:.4f} vs static {int8_value:.4f}): "
            "static kept"
        )
        for path in (qat_int8, qat_checkpoint, qat_fp32):
            path.unlink(missing_ok=True)
    static_copy.unlink(missing_ok=True)
    return checkpoint, final, params, notes


def _metric(onnx: Path, manifest: Mapping[str, Any]) -> tuple[str, float]:
    """Accuracy of ``onnx`` on the manifest's val split (test when there is no val split): the
    compressor's choices never look at the test split the result reports."""
    has_val = any(s.get("split") == "val" for s in manifest["samples"])
    split_manifest = dict(manifest)
    if not has_val:
        return "test accuracy", float(
            evaluate_onnx(template=TEMPLATE, onnx=onnx, manifest=manifest)["accuracy"]
        )
    split_manifest["samples"] = [
        {**s, "split": "test"} for s in manifest["samples"] if s.get("split") == "val"
    ]
    return "val accuracy", float(
        evaluate_onnx(template=TEMPLATE, onnx=onnx, manifest=split_manifest)["accuracy"]
    )


def _prune(
    parent: Any,
    state: Mapping[str, Any],
    recipe: Mapping[str, Any],
    *,
    data: Any,
    report: Report,
    seed: int,
    out_dir: Path,
    target: Any,
) -> tuple[Any, Any, list[str]]:
    from workers.compression.pruning import prune_model
    from workers.image_classification.models import default_channels

    arch = str(state["arch"])
    channels = state.get("channels") or default_channels(arch)
    size = tuple(state["preprocessing"]["image_size"])
    spec = recipe["prune"]
    num_classes = int(state["num_classes"])
    if arch not in ("cnn_small", "resnet_narrow", "resnet18"):
        raise RecipeNotApplicable(f"no channel pruning for the {arch} architecture")
    if "latency_ms" in spec:
        ratio, note = _ratio_for_latency(
            parent, state, float(spec["latency_ms"]), channels, out_dir, target=target
        )
    else:
        ratio, note = float(spec["flops_ratio"]), ""
    report(f"pruning to {ratio:.0%} of the FLOPs", fraction=0.0)
    pruned, pruned_channels, reached = prune_model(
        parent, arch=arch, channels=channels, num_classes=num_classes, flops_ratio=ratio, image_size=size
    )
    epochs = int(recipe.get("fine_tune_epochs", max(2, int(state["params"]["epochs"]) // 3)))
    fine_tune(
        pruned,
        params=state["params"],
        preprocessing=state["preprocessing"],
        data=data,
        epochs=epochs,
        report=report,
        seed=seed,
        teacher=parent,
        **PRUNE_TEACHER,
    )
    notes = [
        f"channels pruned by batch-norm gamma to {reached:.1%} of the parent's FLOPs "
        f"(asked {ratio:.0%}); fine-tuned {epochs} epochs with the parent as distillation teacher"
    ]
    return pruned, pruned_channels, notes + ([note] if note else [])


def _ratio_for_latency(
    parent: Any, state: Mapping[str, Any], latency_ms: float, channels: Any, out_dir: Path, *, target: Any
) -> tuple[float, str]:
    """The largest FLOPs ratio whose pruned network meets ``latency_ms`` on the target (bisection;
    the latency of an untrained network equals a trained one's)."""
    from workers.compression.pruning import prune_model
    from workers.deployment_targets import measure_latency, target_profile
    from workers.image_classification.export import write_verified_onnx

    profile = target_profile(target or DEFAULT_TARGET)
    size = tuple(state["preprocessing"]["image_size"])
    probe = out_dir / "latency-probe.onnx"

    def latency(ratio: float) -> float:
        pruned, _, _ = prune_model(
            parent,
            arch=str(state["arch"]),
            channels=channels,
            num_classes=int(state["num_classes"]),
            flops_ratio=ratio,
            image_size=size,
        )
        pruned.eval()
        write_verified_onnx(
            pruned,
            probe,
            size=size,
            output_names=("logits",),
            metadata={},
            opset=18,
            verify_batch_sizes=(1,),
            atol=1e-3,
        )
        return float(measure_latency(probe, profile, runs=20)["target_ms"])

    low, high = 0.05, 1.0
    if latency(low) > latency_ms:
        probe.unlink(missing_ok=True)
        raise RecipeNotApplicable(
            f"pruning cannot reach {latency_ms} ms: 5% of the FLOPs still takes longer on the target"
        )
    for _ in range(LATENCY_BISECTION_STEPS):
        middle = (low + high) / 2
        if latency(middle) <= latency_ms:
            low = middle
        else:
            high = middle
    probe.unlink(missing_ok=True)
    return (
        low,
        f"latency target {latency_ms} ms: {low:.0%} of the FLOPs chosen by bisection on the measured latency",
    )


def _distill(
    state: Mapping[str, Any],
    recipe: Mapping[str, Any],
    *,
    data: Any,
    teacher_checkpoint: Path,
    chosen_teacher: bool,
    report: Report,
    seed: int,
) -> tuple[Any, str, Any, list[str]]:
    from workers.image_classification.export import load_classifier
    from workers.image_classification.models import ARCHITECTURES, build_model, default_channels

    spec = recipe["distill"]
    try:
        arch, width = parse_student(str(spec["student"]))
    except ValueError as exc:
        raise CompressionError(str(exc)) from None
    if arch not in ARCHITECTURES:
        raise CompressionError(
            f"unknown student {arch!r}; one of {', '.join(ARCHITECTURES)} (optionally @width)"
        )
    teacher, teacher_state = load_classifier(teacher_checkpoint)
    if list(teacher_state["classes"]) != list(state["classes"]):
        raise CompressionError("the teacher's classes are not the model's", code="teacher_mismatch")
    if dict(teacher_state["preprocessing"]) != dict(state["preprocessing"]):
        raise CompressionError(
            "the teacher's preprocessing (image size, normalization) is not the model's",
            code="teacher_mismatch",
        )
    channels = default_channels(arch, width) if width != 1.0 else None
    student = build_model(arch, int(state["num_classes"]), channels=channels)
    temperature = float(spec.get("temperature", DEFAULT_TEMPERATURE))
    alpha = float(spec.get("alpha", DEFAULT_ALPHA))
    epochs = int(recipe.get("fine_tune_epochs", state["params"]["epochs"]))
    fine_tune(
        student,
        params={**state["params"], "model": arch},
        preprocessing=state["preprocessing"],
        data=data,
        epochs=epochs,
        report=report,
        seed=seed,
        teacher=teacher,
        temperature=temperature,
        alpha=alpha,
    )
    who = "the chosen teacher" if chosen_teacher else "the parent"
    notes = [
        f"student {spec['student']} distilled from {who} ({teacher_state['arch']}) for {epochs} epochs, "
        f"temperature {temperature}, alpha {alpha}"
    ]
    return student, arch, channels, notes


def _qat(
    base: Any,
    state: Mapping[str, Any],
    *,
    params: Mapping[str, Any],
    arch: str,
    channels: Any,
    data: Any,
    report: Report,
    seed: int,
) -> tuple[Any, str]:
    from workers.compression.quantization import finish_qat, prepare_qat
    from workers.image_classification.models import build_model

    base.eval()
    qat_model = prepare_qat(copy.deepcopy(base))
    lr = float(params["learning_rate"]) * QAT_LR_FACTOR
    fine_tune(
        qat_model,
        params={**params, "learning_rate": lr, "weight_decay": 0.0},
        preprocessing=state["preprocessing"],
        data=data,
        epochs=QAT_EPOCHS,
        report=report,
        seed=seed + 1,
        teacher=base,
        temperature=1.0,
        alpha=0.5,
    )
    plain = build_model(arch, int(state["num_classes"]), channels=channels)
    finish_qat(qat_model, plain)
    note = (
        f"QAT: {QAT_EPOCHS} epochs of fake-quant fine-tuning (batch norm folded, per-channel int8 weights, "
        f"uint8 activations after each ReLU) at lr {lr:.2g}, then static int8 calibrated on training images"
    )
    return plain, note


def fine_tune(
    model: Any,
    *,
    params: Mapping[str, Any],
    preprocessing: Mapping[str, Any],
    data: Any,
    epochs: int,
    report: Report,
    seed: int,
    teacher: Any = None,
    temperature: float = DEFAULT_TEMPERATURE,
    alpha: float = 0.0,
) -> float | None:
    """Train ``model`` in place for ``epochs`` on the train split (the parent's augmentation), with
    ``teacher``'s soft targets when given; keeps the best val-accuracy epoch. Returns that accuracy
    (None without a val split)."""
    import torch

    from workers.image_classification.data import EpochSampler, ImageSamples, make_loader
    from workers.image_classification.trainer import parameter_groups, resolve_device
    from workers.image_classification.transforms import EvalTransform, TrainTransform

    if epochs <= 0:
        return None
    device = resolve_device("auto")
    train_samples, val_samples = data.split("train"), data.split("val")
    batch_size = max(2, min(int(params["batch_size"]), len(train_samples)))
    train_set = ImageSamples(
        train_samples,
        TrainTransform(
            preprocessing, augmentation=params["augmentation"], horizontal_flip=params["horizontal_flip"]
        ),
        seed=seed,
    )
    sampler = EpochSampler(len(train_set), seed=seed)
    loader = make_loader(
        train_set,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=0,
        device_type=device.type,
        drop_last=True,
        seed=seed,
    )
    val_loader = None
    if val_samples:
        val_set = ImageSamples(val_samples, EvalTransform(preprocessing), seed=seed)
        val_loader = make_loader(
            val_set,
            batch_size=2 * batch_size,
            sampler=None,
            num_workers=0,
            device_type=device.type,
            drop_last=False,
            seed=seed,
        )
    model.to(device)
    if teacher is not None:
        teacher.to(device).eval()
    optimizer = torch.optim.AdamW(
        parameter_groups(model, float(params["weight_decay"])), lr=float(params["learning_rate"])
    )
    total = epochs * max(1, len(loader))
    warmup = min(len(loader), total // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: (
            (step + 1) / warmup
            if step < warmup
            else 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))
        ),
    )
    best: tuple[float, dict[str, Any]] | None = None
    for epoch in range(epochs):
        model.train()
        sampler.set_epoch(epoch)
        losses = []
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            if teacher is not None and alpha > 0:
                with torch.no_grad():
                    teacher_logits = teacher(images)
                loss = distillation_loss(logits, teacher_logits, labels, temperature=temperature, alpha=alpha)
            else:
                loss = torch.nn.functional.cross_entropy(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(float(loss.detach()))
        val_acc = _accuracy(model, val_loader, device) if val_loader is not None else None
        if val_acc is not None and (best is None or val_acc >= best[0]):
            best = (val_acc, copy.deepcopy(model.state_dict()))
        report(
            f"fine-tuning epoch {epoch + 1}/{epochs}",
            fraction=(epoch + 1) / epochs,
            milestone=True,
            epoch=epoch + 1,
            epochs=epochs,
            loss=sum(losses) / max(1, len(losses)),
            val_acc=val_acc,
        )
    if best is not None:
        model.load_state_dict(best[1])
    model.to("cpu").eval()
    if teacher is not None:
        teacher.to("cpu")
    return best[0] if best is not None else None


def _accuracy(model: Any, loader: Any, device: Any) -> float:
    import torch

    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            predicted = model(images.to(device)).argmax(dim=1).cpu()
            correct += int((predicted == labels).sum())
            total += len(labels)
    return correct / max(1, total)


def _save(
    model: Any, state: Mapping[str, Any], path: Path, *, arch: str, channels: Any, params: Mapping[str, Any]
) -> Path:
    """The variant's model file, in the trainer's format (plus ``channels`` for a resized network)."""
    import torch

    from workers.image_classification.checkpoints import atomic_write
    from workers.image_classification.trainer import MODEL_FORMAT

    model_file = {
        "format": MODEL_FORMAT,
        "arch": arch,
        "num_classes": int(state["num_classes"]),
        "classes": list(state["classes"]),
        "preprocessing": dict(state["preprocessing"]),
        "params": dict(params),
        "epoch": int(state.get("epoch", 0)),
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }
    if channels is not None:
        model_file["channels"] = channels
    atomic_write(path, lambda handle: torch.save(model_file, handle))
    return path


def _export(checkpoint: Path, out: Path) -> Path:
    from workers.image_classification.export import export_onnx

    export_onnx(checkpoint, out)
    return out


def _parent_onnx(parent_checkpoint: Path, out: Path) -> Path:
    """The parent's own ONNX next to its model file, else a fresh export of it."""
    sibling = Path(parent_checkpoint).with_name("model.onnx")
    if sibling.exists():
        shutil.copyfile(sibling, out)
        return out
    return _export(parent_checkpoint, out)


def _companions(out_dir: Path, state: Mapping[str, Any]) -> None:
    (out_dir / "preprocess.json").write_text(json.dumps(dict(state["preprocessing"])))
    (out_dir / "labels.json").write_text(json.dumps(list(state["classes"])))
