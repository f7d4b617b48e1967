"""Compression of text classifiers (:mod:`workers.text_classification`).

- ``distill``: the parent (a MiniLM classifier, or a bag of embeddings; or the job's
  ``teacher_checkpoint``) teaches the small ``bag_of_embeddings`` student: the teacher's
  probabilities on the training texts (its ONNX model, run once) softened at ``temperature`` are the
  soft targets, mixed with the labels: loss = alpha * KL * T^2 + (1 - alpha) * cross-entropy. The
  student's width: the template's ``embedding_dim`` (``"bag_of_embeddings"``), or the parent bag's
  width times a multiplier (``"bag_of_embeddings@0.5"``). The epoch with the best val accuracy is kept.
- ``quantize``: dynamic int8 (ONNX Runtime ``quantize_dynamic``: int8 weights of the embeddings and
  linear layers, activations quantized at run time), of the student or of the parent; ``static`` and
  ``auto`` mean the same here (a text model's inputs are token ids: nothing to calibrate), and
  ``auto`` notes the val accuracy before and after. Quantization-aware training does not apply.
- ``prune``: not for text models (skipped with the reason; distill into a bag of embeddings instead).

The student's ``model.pt`` is the trainer's format and its ONNX the trainer's export, so the
template's evaluate, predictor and serving take it unchanged.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from workers.compression.core import CompressionError, RecipeNotApplicable
from workers.contracts.compression import CompressionRecipe, CompressionSpec
from workers.progress import Report
from workers.text_classification.models import BagOfEmbeddings
from workers.text_classification.template import TEMPLATE
from workers.text_classification.tokenization import TextTokenizer

__all__ = ["compress_variant", "teacher_probabilities"]

STUDENT = "bag_of_embeddings"
DEFAULT_TEMPERATURE = 2.0
DEFAULT_ALPHA = 0.7
DEFAULT_EPOCHS = 30
DEFAULT_MAX_ACCURACY_DROP = 0.005
TEACHER_BATCH = 64


def teacher_probabilities(onnx_path: Path, tokenizer: TextTokenizer, texts: Sequence[str]) -> np.ndarray:
    """[texts, classes] probabilities of a text classifier's ONNX model (its output is a softmax)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    parts = []
    for start in range(0, len(texts), TEACHER_BATCH):
        inputs = tokenizer(list(texts[start : start + TEACHER_BATCH]))
        parts.append(session.run(None, {k: v for k, v in inputs.items() if k in names})[0])
    return np.concatenate(parts).astype(np.float32)


def _onnx_of(checkpoint: Path, out: Path) -> Path:
    """The model.onnx next to a model version's model.pt, or a fresh export of it."""
    beside = checkpoint.with_name("model.onnx")
    if beside.is_file():
        return beside
    from workers.text_classification.trainer import export_onnx

    export_onnx(checkpoint, out)
    return out


def _accuracy(onnx_path: Path, tokenizer: TextTokenizer, texts: list[str], labels: np.ndarray) -> float:
    return float((teacher_probabilities(onnx_path, tokenizer, texts).argmax(1) == labels).mean())


def _student_dim(student: str, parent: Mapping[str, Any]) -> int:
    name, _, multiplier = student.partition("@")
    if name != STUDENT:
        raise RecipeNotApplicable(
            f"a text classifier distils into {STUDENT} (the small model trained from scratch), "
            f"not {student!r}"
        )
    if not multiplier:
        return int(TEMPLATE.validate_params("fast", {})["embedding_dim"])
    if parent["model"] != STUDENT:
        raise RecipeNotApplicable(f"{student!r}: a width multiplier applies to a {STUDENT} parent only")
    try:
        factor = float(multiplier)
    except ValueError:
        raise RecipeNotApplicable(f"{student!r}: the width multiplier must be a number") from None
    if not 0 < factor <= 1:
        raise RecipeNotApplicable(f"{student!r}: the width multiplier must be within 0..1")
    return max(4, round(int(parent["params"]["embedding_dim"]) * factor))


def _distill(
    *,
    teacher_onnx: Path,
    parent: Mapping[str, Any],
    manifest: Mapping[str, Any],
    recipe: CompressionRecipe,
    seed: int,
    out_dir: Path,
    report: Report,
) -> tuple[Path, Path, dict[str, Any], list[str]]:
    from workers.text_classification.trainer import _preprocessing, export_model

    distill = recipe["distill"]
    dim = _student_dim(distill["student"], parent)
    temperature = float(distill.get("temperature", DEFAULT_TEMPERATURE))
    alpha = float(distill.get("alpha", DEFAULT_ALPHA))
    fast = TEMPLATE.validate_params("fast", {})
    params = {
        **parent["params"],
        "model": STUDENT,
        "embedding_dim": dim,
        "learning_rate": fast["learning_rate"],
        "batch_size": fast["batch_size"],
        "dropout": parent["params"].get("dropout", fast["dropout"]),
        "epochs": int(recipe.get("fine_tune_epochs", DEFAULT_EPOCHS)),
    }
    classes = list(parent["classes"])
    preprocessing, tokenizer_text = _preprocessing(params["max_length"])
    tokenizer = TextTokenizer(preprocessing, tokenizer_text)
    train = [s for s in manifest["samples"] if s["split"] == "train"]
    val = [s for s in manifest["samples"] if s["split"] == "val"] or train
    texts = [s["text"] for s in train]
    labels = torch.tensor([s["label"] for s in train])
    report(f"the teacher labels {len(texts)} training texts", fraction=0.05)
    soft = torch.from_numpy(teacher_probabilities(teacher_onnx, tokenizer, texts)).clamp(min=1e-8)
    tempered = soft ** (1.0 / temperature)
    tempered = tempered / tempered.sum(dim=1, keepdim=True)
    teacher_train_accuracy = float((soft.argmax(1) == labels).float().mean())

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    student = BagOfEmbeddings(tokenizer.vocab_size, dim, len(classes), float(params["dropout"]))
    encoded = tokenizer(texts)
    ids, mask = torch.from_numpy(encoded["input_ids"]), torch.from_numpy(encoded["attention_mask"])
    val_encoded = tokenizer([s["text"] for s in val])
    val_ids, val_mask = (
        torch.from_numpy(val_encoded["input_ids"]),
        torch.from_numpy(val_encoded["attention_mask"]),
    )
    val_labels = torch.tensor([s["label"] for s in val])
    epochs, batch = int(params["epochs"]), int(params["batch_size"])
    optimizer = torch.optim.AdamW(
        student.parameters(), lr=float(params["learning_rate"]), weight_decay=float(params["weight_decay"])
    )
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=float(params["learning_rate"]), total_steps=epochs * math.ceil(len(texts) / batch)
    )
    generator = torch.Generator().manual_seed(seed)
    best: tuple[float, float] | None = None
    best_state: dict[str, torch.Tensor] = {}
    best_epoch = 0
    for epoch in range(1, epochs + 1):
        student.train()
        for index in torch.randperm(len(texts), generator=generator).split(batch):
            logits = student.logits(ids[index], mask[index])
            kd = torch.nn.functional.kl_div(
                torch.log_softmax(logits / temperature, dim=1), tempered[index], reduction="batchmean"
            )
            ce = torch.nn.functional.cross_entropy(logits, labels[index])
            loss = alpha * kd * temperature**2 + (1 - alpha) * ce
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        student.eval()
        with torch.inference_mode():
            val_logits = student.logits(val_ids, val_mask)
        accuracy = float((val_logits.argmax(1) == val_labels).float().mean())
        val_loss = float(torch.nn.functional.cross_entropy(val_logits, val_labels))
        if best is None or (accuracy, -val_loss) > best:
            best, best_epoch = (accuracy, -val_loss), epoch
            best_state = {k: v.detach().clone() for k, v in student.state_dict().items()}
        report(
            f"distilling: epoch {epoch}/{epochs}",
            fraction=0.1 + 0.7 * epoch / epochs,
            epoch=epoch,
            epochs=epochs,
            val_acc=accuracy,
            val_loss=val_loss,
        )
    student.load_state_dict(best_state)
    student.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = out_dir / "model.pt"
    temp = checkpoint.with_name(f".tmp-model.pt.{os.getpid()}")
    torch.save(
        {
            "state_dict": student.state_dict(),
            "model": STUDENT,
            "classes": classes,
            "vocab_size": tokenizer.vocab_size,
            "params": params,
        },
        temp,
    )
    os.replace(temp, checkpoint)
    onnx_path = out_dir / "model.fp32.onnx"
    export_model(
        student,
        onnx_path,
        classes=classes,
        preprocessing=preprocessing,
        tokenizer=tokenizer,
        probe=[s["text"] for s in val[:5]],
    )
    notes = [
        f"{STUDENT} (embedding_dim {dim}) distilled from the {parent['model']} teacher at temperature "
        f"{temperature}, alpha {alpha}; epoch {best_epoch} of {epochs} kept "
        f"(val accuracy {best[0] if best else 0.0:.3f}); "
        f"the teacher agrees with {teacher_train_accuracy:.1%} of the training labels"
    ]
    return checkpoint, onnx_path, params, notes


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
    """One variant of a text classifier: (model.pt or None for int8 of the parent, its ONNX, the
    student's template params, notes). Raises :class:`RecipeNotApplicable` for what does not apply."""
    if "prune" in recipe:
        raise RecipeNotApplicable(
            "pruning is not implemented for text classifiers; distill into bag_of_embeddings instead"
        )
    quantize = recipe.get("quantize")
    if quantize == "qat":
        raise RecipeNotApplicable(
            "quantization-aware training does not apply to text classifiers; use dynamic"
        )
    if "distill" not in recipe and not quantize:
        raise RecipeNotApplicable("a text classifier's variant distils, quantizes or both")
    out_dir.mkdir(parents=True, exist_ok=True)
    parent = torch.load(os.fspath(parent_checkpoint), map_location="cpu", weights_only=True)
    seed = int(spec.get("seed", parent["params"].get("seed", 0)))
    notes: list[str] = []
    checkpoint: Path | None = None
    params: dict[str, Any] = dict(parent["params"])
    if "distill" in recipe:
        teacher = Path(teacher_checkpoint or parent_checkpoint)
        if teacher_checkpoint is not None:
            chosen = torch.load(os.fspath(teacher_checkpoint), map_location="cpu", weights_only=True)
            if list(chosen["classes"]) != list(parent["classes"]):
                raise CompressionError(
                    "the teacher must have the parent's classes, in the same order", code="teacher_mismatch"
                )
        teacher_onnx = _onnx_of(teacher, out_dir / "teacher.onnx")
        checkpoint, fp32, params, notes = _distill(
            teacher_onnx=teacher_onnx,
            parent=parent,
            manifest=manifest,
            recipe=recipe,
            seed=seed,
            out_dir=out_dir,
            report=report,
        )
    else:
        fp32 = _onnx_of(Path(parent_checkpoint), out_dir / "model.fp32.onnx")
    if not quantize:
        final = out_dir / "model.onnx"
        os.replace(fp32, final)
        return checkpoint, final, params, notes
    from workers.packaging.device_sdk_rows import quantize_dynamic_int8

    report("dynamic int8", fraction=0.9)
    int8 = out_dir / "model.onnx"
    quantize_dynamic_int8(fp32, int8)
    notes.append("dynamic int8 (ONNX Runtime quantize_dynamic: int8 weights, activations at run time)")
    if quantize == "auto":
        from workers.text_classification.trainer import _preprocessing

        preprocessing, tokenizer_text = _preprocessing(params["max_length"])
        tokenizer = TextTokenizer(preprocessing, tokenizer_text)
        val = [s for s in manifest["samples"] if s["split"] == "val"] or [
            s for s in manifest["samples"] if s["split"] == "train"
        ]
        texts, labels = [s["text"] for s in val], np.asarray([s["label"] for s in val])
        before, after = _accuracy(fp32, tokenizer, texts, labels), _accuracy(int8, tokenizer, texts, labels)
        tolerance = float(spec.get("max_metric_drop", DEFAULT_MAX_ACCURACY_DROP))
        verdict = "within" if before - after <= tolerance else "beyond"
        notes.append(
            f"val accuracy {before:.3f} -> {after:.3f} with int8 ({verdict} the tolerance {tolerance})"
        )
    return checkpoint, int8, params, notes
