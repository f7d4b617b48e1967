"""Compression of tabular models (:mod:`workers.tabular`): the MLP only.

- ``prune``: magnitude pruning of hidden units. Each hidden layer keeps its most important units
  (the L2 norm of a unit's incoming weights times that of its outgoing weights); both layers keep the
  same count (the template's MLP has one ``hidden_size``), the largest count whose FLOPs are at most
  ``flops_ratio`` of the parent's, or (``latency_ms``) the largest whose ONNX meets the latency on
  the target. Then fine-tuning on the training split (the trainer's loss, a one-cycle schedule at the
  neural preset's learning rate / 3, as the MLP's model file keeps no training parameters; the epoch
  with the best val score is kept).
- ``quantize``: dynamic int8 (ONNX Runtime ``quantize_dynamic``) of the MLP (pruned or the parent)
  or of a linear model; ``static`` / ``auto`` mean the same here, and ``auto`` notes the val score
  before and after. Quantization-aware training does not apply.
- Tree ensembles (LightGBM, or an ensemble holding trees) are skipped with the reason: they have no
  channels to prune and no int8 form in ONNX Runtime. ``distill`` is not implemented for tables.

The pruned ``model.pt`` is the trainer's format (``{"state_dict", "config"}`` with the new
``hidden_size``) and its ONNX the trainer's export with the parent's metadata, so the template's
evaluate, predictor and serving take it unchanged.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from workers.compression.core import RecipeNotApplicable
from workers.contracts.compression import CompressionRecipe, CompressionSpec
from workers.progress import Report
from workers.tabular.mlp import TabularMLP

__all__ = ["compress_variant", "mlp_flops", "prune_mlp"]

DEFAULT_FINE_TUNE_EPOCHS = 30
FINE_TUNE_LR_SCALE = 1 / 3
NEURAL_LEARNING_RATE = 3e-3  # the template's neural preset
FINE_TUNE_BATCH = 64
DEFAULT_MAX_DROP = 0.005
LATENCY_RATIOS = (0.75, 0.5, 0.35, 0.25, 0.15, 0.1)
MIN_HIDDEN = 2


def mlp_flops(width: int, hidden: int, outputs: int) -> int:
    """2 x the multiply-accumulates of one row through the MLP."""
    return 2 * (width * hidden + hidden * hidden + hidden * outputs)


def _unit_importance(incoming: torch.Tensor, outgoing: torch.Tensor) -> torch.Tensor:
    importance: torch.Tensor = incoming.norm(dim=1) * outgoing.norm(dim=0)
    return importance


def prune_mlp(model: TabularMLP, hidden: int) -> TabularMLP:
    """A copy of ``model`` with ``hidden`` units in each hidden layer: the most important ones."""
    config = {**model.config, "hidden_size": hidden}
    pruned = TabularMLP(**config)
    first, second, last = (model.net[i] for i in (0, 3, 6))
    assert isinstance(first, torch.nn.Linear) and isinstance(second, torch.nn.Linear)
    assert isinstance(last, torch.nn.Linear)
    with torch.no_grad():
        keep1 = torch.sort(torch.topk(_unit_importance(first.weight, second.weight), hidden).indices).values
        w2 = second.weight[:, keep1]
        keep2 = torch.sort(torch.topk(_unit_importance(w2, last.weight), hidden).indices).values
        new_first, new_second, new_last = (pruned.net[i] for i in (0, 3, 6))
        assert isinstance(new_first, torch.nn.Linear) and isinstance(new_second, torch.nn.Linear)
        assert isinstance(new_last, torch.nn.Linear)
        new_first.weight.copy_(first.weight[keep1])
        new_first.bias.copy_(first.bias[keep1])
        new_second.weight.copy_(w2[keep2])
        new_second.bias.copy_(second.bias[keep2])
        new_last.weight.copy_(last.weight[:, keep2])
        new_last.bias.copy_(last.bias)
    pruned.eval()
    return pruned


def _metadata(onnx_path: Path) -> dict[str, str]:
    import onnx

    proto = onnx.load(str(onnx_path), load_external_data=False)
    return {entry.key: entry.value for entry in proto.metadata_props}


def _is_mlp_file(path: Path) -> bool:
    if path.suffix != ".pt":
        return False
    state = torch.load(os.fspath(path), map_location="cpu", weights_only=True)
    return isinstance(state, dict) and "config" in state and "state_dict" in state


def _export(model: TabularMLP, path: Path, template: str, classes: list[str], preprocessing: Any) -> Path:
    from workers.tabular.mlp import export_mlp
    from workers.tabular.trainer import _add_metadata

    path.parent.mkdir(parents=True, exist_ok=True)
    export_mlp(model, path, output_name="value" if model.config["regression"] else "probabilities")
    _add_metadata(path, template, classes, preprocessing)
    return path


def _score(model: TabularMLP, x: np.ndarray, y: np.ndarray) -> float:
    """Higher is better: accuracy, or minus the RMSE."""
    with torch.inference_mode():
        prediction = model(torch.from_numpy(x)).numpy()
    return _score_of(prediction, y, bool(model.config["regression"]))


def _score_of(prediction: np.ndarray, y: np.ndarray, regression: bool) -> float:
    if regression:
        return -float(np.sqrt(np.mean((prediction.ravel() - y) ** 2)))
    return float(np.mean(prediction.argmax(axis=1) == y))


def _onnx_score(path: Path, x: np.ndarray, y: np.ndarray, regression: bool) -> float:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (prediction,) = session.run(None, {session.get_inputs()[0].name: x})
    return _score_of(np.asarray(prediction), y, regression)


def _fine_tune(
    model: TabularMLP,
    x: np.ndarray,
    y: np.ndarray,
    x_val: np.ndarray,
    y_val: np.ndarray,
    *,
    epochs: int,
    learning_rate: float,
    seed: int,
    report: Report,
) -> tuple[TabularMLP, int]:
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    regression = bool(model.config["regression"])
    xt = torch.from_numpy(x)
    yt = (
        torch.from_numpy(((y - model.y_mean) / model.y_std).astype(np.float32))
        if regression
        else torch.from_numpy(y)
    )
    loss_fn: torch.nn.Module = torch.nn.MSELoss() if regression else torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=1e-4)
    steps = epochs * max(1, math.ceil(len(x) / FINE_TUNE_BATCH))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=learning_rate, total_steps=steps)
    best_score, best_epoch = _score(model.eval(), x_val, y_val), 0
    best_state = {k: v.clone() for k, v in model.state_dict().items()}
    for epoch in range(1, epochs + 1):
        model.train()
        for index in torch.randperm(len(xt), generator=generator).split(FINE_TUNE_BATCH):
            output = model.raw(xt[index])
            loss = loss_fn(output.squeeze(1) if regression else output, yt[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        score = _score(model.eval(), x_val, y_val)
        if score > best_score:
            best_score, best_epoch = score, epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        report(
            f"fine-tuning: epoch {epoch}/{epochs}",
            fraction=0.1 + 0.7 * epoch / epochs,
            epoch=epoch,
            epochs=epochs,
        )
    model.load_state_dict(best_state)
    model.eval()
    return model, best_epoch


def _hidden_for_latency(
    model: TabularMLP, latency_ms: float, spec: CompressionSpec, meta: dict[str, Any], workdir: Path
) -> tuple[int, float]:
    from workers.deployment_targets import BUILTIN_TARGETS, measure_latency, target_profile

    profile = target_profile(spec.get("target") or BUILTIN_TARGETS["worker-cpu"])
    hidden, reached = int(model.config["hidden_size"]), math.inf
    for ratio in LATENCY_RATIOS:
        size = max(MIN_HIDDEN, round(hidden * ratio))
        path = _export(prune_mlp(model, size), workdir / f"latency-{size}.onnx", **meta)
        reached = float(measure_latency(path, profile)["target_ms"])
        if reached <= latency_ms:
            return size, reached
    raise RecipeNotApplicable(
        f"no pruning of this MLP reaches {latency_ms} ms on {profile['name']}: "
        f"{max(MIN_HIDDEN, round(hidden * LATENCY_RATIOS[-1]))} hidden units measured {reached:.3f} ms"
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
    """One variant of a tabular model: (model.pt or None for int8 of the parent, its ONNX, the
    student's params, notes). Raises :class:`RecipeNotApplicable` for what does not apply."""
    from workers.packaging.device_sdk_rows import quantize_dynamic_int8, tree_ensemble
    from workers.tabular.encoding import encode

    parent_checkpoint = Path(parent_checkpoint)
    parent_onnx = parent_checkpoint.with_name("model.onnx")
    if "distill" in recipe:
        raise RecipeNotApplicable("distillation is not implemented for tabular models; prune the MLP instead")
    quantize = recipe.get("quantize")
    if quantize == "qat":
        raise RecipeNotApplicable("quantization-aware training does not apply to tabular models; use dynamic")
    is_mlp = _is_mlp_file(parent_checkpoint)
    if "prune" in recipe and not is_mlp:
        kind = "a tree ensemble" if tree_ensemble(parent_onnx) else "not an MLP"
        raise RecipeNotApplicable(
            f"pruning applies to the MLP only; this model ({parent_checkpoint.name}) is {kind}"
        )
    if quantize and tree_ensemble(parent_onnx):
        raise RecipeNotApplicable(
            "this model holds tree ensembles, which have no int8 form in ONNX Runtime (they are already "
            "small and fast)"
        )
    if "prune" not in recipe and not quantize:
        raise RecipeNotApplicable("a tabular variant prunes, quantizes or both")
    out_dir.mkdir(parents=True, exist_ok=True)
    metadata = _metadata(parent_onnx)
    meta = {
        "template": metadata["sampan.template"],
        "classes": json.loads(metadata.get("sampan.classes", "[]")),
        "preprocessing": json.loads(metadata["sampan.preprocessing"]),
    }
    regression = meta["preprocessing"]["task"] == "regression"
    notes: list[str] = []
    checkpoint: Path | None = None
    params: dict[str, Any] = {}
    fp32 = parent_onnx

    def split(name: str) -> tuple[np.ndarray, np.ndarray]:
        rows = [s for s in manifest["samples"] if s["split"] == name]
        target = np.asarray(
            [s["target"] if regression else s["label"] for s in rows], np.float64 if regression else np.int64
        )
        return encode(meta["preprocessing"], [s["values"] for s in rows]), target

    x_train, y_train = split("train")
    x_val, y_val = split("val")
    if not len(x_val):
        x_val, y_val = x_train, y_train
    if "prune" in recipe:
        state = torch.load(os.fspath(parent_checkpoint), map_location="cpu", weights_only=True)
        parent = TabularMLP(**state["config"])
        parent.load_state_dict(state["state_dict"])
        parent.eval()
        config = parent.config
        hidden = int(config["hidden_size"])
        prune_spec = recipe["prune"]
        if "latency_ms" in prune_spec:
            size, reached_ms = _hidden_for_latency(
                parent, float(prune_spec["latency_ms"]), spec, meta, out_dir / "search"
            )
            notes.append(f"{size} hidden units: {reached_ms:.3f} ms on the target")
        else:
            ratio = float(prune_spec.get("flops_ratio", 0.5))
            if not 0 < ratio < 1:
                raise RecipeNotApplicable(f"flops_ratio must be within 0..1 (exclusive), got {ratio}")
            full = mlp_flops(config["width"], hidden, config["outputs"])
            fitting = [
                h
                for h in range(MIN_HIDDEN, hidden)
                if mlp_flops(config["width"], h, config["outputs"]) <= ratio * full
            ]
            size = max(fitting, default=MIN_HIDDEN)
        model = prune_mlp(parent, size)
        reached = mlp_flops(config["width"], size, config["outputs"]) / mlp_flops(
            config["width"], hidden, config["outputs"]
        )
        notes.append(
            f"magnitude pruning of hidden units: {hidden} -> {size} per layer, "
            f"{reached:.0%} of the parent's FLOPs"
        )
        epochs = int(recipe.get("fine_tune_epochs", DEFAULT_FINE_TUNE_EPOCHS))
        if epochs > 0:
            seed = int(spec.get("seed", 0))
            before = _score(model, x_val, y_val)
            model, best_epoch = _fine_tune(
                model,
                x_train,
                y_train,
                x_val,
                y_val,
                epochs=epochs,
                learning_rate=FINE_TUNE_LR_SCALE * NEURAL_LEARNING_RATE,
                seed=seed,
                report=report,
            )
            what = "RMSE" if regression else "accuracy"
            after = _score(model, x_val, y_val)
            notes.append(
                f"fine-tuned up to {epochs} epochs, epoch {best_epoch} kept: val {what} "
                f"{abs(before):.4f} -> {abs(after):.4f}"
            )
        checkpoint = out_dir / "model.pt"
        temp = checkpoint.with_name(f".tmp-model.pt.{os.getpid()}")
        torch.save({"state_dict": model.state_dict(), "config": model.config}, temp)
        os.replace(temp, checkpoint)
        fp32 = _export(model, out_dir / ("model.fp32.onnx" if quantize else "model.onnx"), **meta)
        params = {"model": "mlp", "hidden_size": size, "dropout": config["dropout"]}
    if not quantize:
        return checkpoint, fp32, params, notes
    report("dynamic int8", fraction=0.9)
    int8 = out_dir / "model.onnx"
    quantize_dynamic_int8(fp32, int8)
    notes.append("dynamic int8 (ONNX Runtime quantize_dynamic: int8 weights, activations at run time)")
    if quantize == "auto":
        before, after = (
            _onnx_score(fp32, x_val, y_val, regression),
            _onnx_score(int8, x_val, y_val, regression),
        )
        tolerance = float(spec.get("max_metric_drop", DEFAULT_MAX_DROP))
        verdict = "within" if before - after <= tolerance else "beyond"
        what = "RMSE" if regression else "accuracy"
        notes.append(
            f"val {what} {abs(before):.4f} -> {abs(after):.4f} with int8 "
            f"({verdict} the tolerance {tolerance})"
        )
    return checkpoint, int8, params, notes
