"""The object detection trainer: ``train(spec, manifest, out_dir, report) -> result``.

Image classification's training run (:class:`workers.image_classification.trainer.TrainingRun`)
with the detector's model, data, loss and validation: checkpoints every epoch (written in the
background), resume from the newest complete one, ``JobCancelled`` honoured after a checkpoint,
progress through ``report`` at most every ``REPORT_INTERVAL_S`` — all inherited unchanged.

The loss is TTFNet's (a CenterNet that trains in fewer steps): CenterNet's penalty-reduced focal
loss on the class heatmaps, plus the GIoU loss of the boxes predicted by the cells of each object's
central part, Gaussian-weighted. Validation
decodes the val split with :mod:`workers.object_detection.decode` and reports ``val_map50``
(COCO's mAP at IoU 0.5, ``metrics.coco_evaluate``); the best epoch by ``val_map50`` is deployed.

Progress metrics: steps report ``epoch``, ``epochs``, ``step``, ``steps``, ``loss``, ``lr``,
``samples_per_s``, ``eta_s``; each epoch's end (milestone) adds ``val_loss``, ``val_map50`` and
``best_epoch``.

Files in ``out_dir``: ``checkpoints/``, ``model.pt``, ``model.onnx`` (verified against torch),
``preprocess.json``, ``labels.json``, ``manifest.json`` (``{"template": "object_detection"}``),
``result.json``.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from workers.contracts.annotations import DetectionBox, DetectionManifest
from workers.image_classification import checkpoints
from workers.image_classification.data import DECODED_CACHE_BYTES, EpochSampler, make_loader
from workers.image_classification.trainer import (
    REPORT_INTERVAL_S,
    TrainingRun,
    lr_schedule,
    parameter_groups,
    resolve_device,
)
from workers.object_detection.augment import EvalBoxTransform, TrainBoxTransform
from workers.object_detection.data import DetectionSamples
from workers.object_detection.decode import decode
from workers.object_detection.manifest import Manifest, Sample, parse_manifest
from workers.object_detection.metrics import coco_evaluate
from workers.object_detection.models import build_model, decode_boxes, load_detector_backbone
from workers.object_detection.template import TEMPLATE
from workers.progress import JobCancelled, Report, silent_report

__all__ = ["JobCancelled", "centernet_loss", "train"]

MODEL_FORMAT = "sampan.object_detection.model/1"
VALIDATION_SCORE_THRESHOLD = 0.05  # low: AP integrates over every score
BOX_WEIGHT = 5.0


def train(
    spec: Mapping[str, Any],
    manifest: DetectionManifest,
    out_dir: str | Path,
    report: Report = silent_report,
    *,
    device: str | None = None,
    backbone: str | Path | None = None,
    num_workers: int | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Train a detector on ``manifest`` with the parameters ``spec``; resume if ``out_dir`` holds a
    complete checkpoint of the same run.

    ``spec``: a preset name under ``"preset"`` plus parameter overrides, e.g. ``{"preset": "fast",
    "epochs": 5}``. ``backbone``: a state_dict file of the matching image classifier (``det_small``,
    ``resnet_narrow`` for ``det_medium``, ``resnet18`` for ``det_resnet18``) to start the backbone
    from (ignored when resuming). ``device``, ``num_workers``, ``threads``: as image classification.

    Raises ``TemplateParamError`` or ``ManifestError`` for bad input, ``JobCancelled`` when
    ``report`` asks to stop (after saving a checkpoint).
    """
    params = TEMPLATE.validate_params(spec.get("preset"), spec)
    data = parse_manifest(manifest, check_files=True)
    run = DetectionRun(
        params,
        data,  # type: ignore[arg-type]
        Path(out_dir),
        report,
        device=resolve_device(device),
        backbone=backbone,
        num_workers=num_workers,
        threads=threads,
    )
    previous_threads = torch.get_num_threads()
    try:
        return run.execute()
    finally:
        torch.set_num_threads(previous_threads)


def centernet_loss(
    heat_logits: torch.Tensor,
    regression: torch.Tensor,
    heatmap: torch.Tensor,
    box_target: torch.Tensor,
    weight: torch.Tensor,
) -> torch.Tensor:
    """Focal loss on the heatmaps (CenterNet: alpha 2, beta 4, per object) + GIoU loss of the boxes
    the cells near each centre predict (TTFNet), weighted by ``weight``."""
    heat_logits = heat_logits.float()
    positive = heatmap.eq(1.0).float()
    probability = torch.sigmoid(heat_logits)
    positive_loss = nn.functional.logsigmoid(heat_logits) * (1 - probability) ** 2 * positive
    negative_loss = (
        nn.functional.logsigmoid(-heat_logits) * probability**2 * (1 - heatmap) ** 4 * (1 - positive)
    )
    focal = -(positive_loss.sum() + negative_loss.sum()) / positive.sum().clamp(min=1.0)
    boxes = decode_boxes(regression.float())  # x, y, w, h
    px1, py1 = boxes[:, 0], boxes[:, 1]
    px2, py2 = px1 + boxes[:, 2], py1 + boxes[:, 3]
    tx1, ty1, tx2, ty2 = box_target.unbind(1)
    inter = (torch.min(px2, tx2) - torch.max(px1, tx1)).clamp(min=0) * (
        torch.min(py2, ty2) - torch.max(py1, ty1)
    ).clamp(min=0)
    union = boxes[:, 2] * boxes[:, 3] + (tx2 - tx1) * (ty2 - ty1) - inter
    enclosing = (torch.max(px2, tx2) - torch.min(px1, tx1)) * (torch.max(py2, ty2) - torch.min(py1, ty1))
    giou = inter / union.clamp(min=1e-6) - (enclosing - union) / enclosing.clamp(min=1e-6)
    box_loss = ((1 - giou) * weight).sum() / weight.sum().clamp(min=1e-6)
    return focal + BOX_WEIGHT * box_loss


class DetectionRun(TrainingRun):
    data: Manifest  # type: ignore[assignment]
    train_samples: list[Sample]  # type: ignore[assignment]
    val_samples: list[Sample]  # type: ignore[assignment]

    def _build(self) -> None:
        params = self.params
        torch.set_num_threads(self.threads)
        random.seed(params["seed"])
        np.random.seed(params["seed"])
        torch.manual_seed(params["seed"])
        if self.device.type == "cuda":
            torch.backends.cudnn.benchmark = True
        num_classes = len(self.data.classes)
        self.model = build_model(params["model"], num_classes)
        self.backbone_info = load_detector_backbone(self.model, self.backbone) if self.backbone else None
        # Module.to takes memory_format (torch's docs); its type stub's overloads leave it out
        self.model.to(self.device, memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.optimizer = torch.optim.AdamW(
            parameter_groups(self.model, params["weight_decay"]), lr=params["learning_rate"]
        )
        self.scheduler = lr_schedule(self.optimizer, params, self.steps_per_epoch)
        cache = DECODED_CACHE_BYTES // max(1, self.num_workers)
        train_transform = TrainBoxTransform(
            self.preprocessing, augmentation=params["augmentation"], horizontal_flip=params["horizontal_flip"]
        )
        self.train_set = DetectionSamples(
            self.train_samples,
            train_transform,
            num_classes=num_classes,
            seed=params["seed"],
            cache_bytes=cache,
        )
        self.sampler = EpochSampler(len(self.train_set), seed=params["seed"])
        self.train_loader = make_loader(
            self.train_set,
            batch_size=self.batch_size,
            sampler=self.sampler,
            num_workers=self.num_workers,
            device_type=self.device.type,
            drop_last=True,
            seed=params["seed"],
        )
        self.val_loader = None
        if self.val_samples:
            val_set = DetectionSamples(
                self.val_samples,
                EvalBoxTransform(self.preprocessing),
                num_classes=num_classes,
                seed=params["seed"],
                cache_bytes=cache,
            )
            self.val_loader = make_loader(
                val_set,
                batch_size=2 * self.batch_size,
                sampler=None,
                num_workers=self.num_workers,
                device_type=self.device.type,
                drop_last=False,
                seed=params["seed"],
            )

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        return torch.autocast("cuda", dtype=torch.bfloat16) if self.use_amp else contextlib.nullcontext()

    def _train_epoch(self) -> None:
        model, device, params = self.model, self.device, self.params
        model.train()
        epochs = params["epochs"]
        self.sampler.set_epoch(self.epoch, skip=self.batch_in_epoch * self.batch_size)
        progress = self.epoch_progress or {"loss_sum": 0.0, "seen": 0, "seconds": 0.0}
        loss_sum = torch.zeros((), dtype=torch.float64, device=device)
        seen_before, seconds_before = int(progress["seen"]), float(progress["seconds"])
        seen = 0
        epoch_start = time.monotonic()
        self.last_report = epoch_start

        def snapshot() -> dict[str, float]:
            return {
                "loss_sum": float(progress["loss_sum"]) + float(loss_sum),
                "seen": seen_before + seen,
                "seconds": seconds_before + time.monotonic() - epoch_start,
            }

        for inputs, heatmap, box_target, weight in self.train_loader:
            inputs = inputs.to(device, non_blocking=True, memory_format=torch.channels_last)
            heatmap = heatmap.to(device, non_blocking=True)
            box_target = box_target.to(device, non_blocking=True)
            weight = weight.to(device, non_blocking=True)
            with self._autocast():
                heat_logits, predicted = model(inputs)
            loss = centernet_loss(heat_logits, predicted, heatmap, box_target, weight)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            self.step += 1
            self.batch_in_epoch += 1
            self.run_steps += 1
            loss_sum += loss.detach() * inputs.shape[0]
            seen += inputs.shape[0]
            now = time.monotonic()
            if now - self.last_report >= REPORT_INTERVAL_S:
                self.last_report = now
                self.epoch_progress = current = snapshot()
                self.run_step_seconds = now - self.started - sum(self.val_seconds)
                self._check_finite(current)
                self.report(
                    f"epoch {self.epoch + 1}/{epochs}, step {self.step}/{self.total_steps}",
                    fraction=self.step / self.total_steps,
                    epoch=self.epoch + 1,
                    epochs=epochs,
                    step=self.step,
                    steps=self.total_steps,
                    loss=current["loss_sum"] / max(1, current["seen"]),
                    lr=self.optimizer.param_groups[0]["lr"],
                    samples_per_s=seen / max(1e-9, now - epoch_start),
                    eta_s=self._eta(),
                )
        self.epoch_progress = snapshot()
        self.run_step_seconds = time.monotonic() - self.started - sum(self.val_seconds)
        self._check_finite(self.epoch_progress)

    @torch.inference_mode()
    def _validate(self) -> tuple[float | None, float | None, float]:
        if self.val_loader is None:
            return None, None, 0.0
        started = time.monotonic()
        self.model.eval()
        height, width = self.preprocessing["image_size"]
        loss_sum, total = 0.0, 0
        size = len(self.val_samples)
        predicted: list[list[tuple[int, float, float, float, float, float]]] = []
        for inputs, heatmap, box_target, weight in self.val_loader:
            inputs = inputs.to(self.device, non_blocking=True, memory_format=torch.channels_last)
            with self._autocast():
                heat_logits, raw = self.model(inputs)
            heat_logits, raw = heat_logits.float(), raw.float()
            loss = centernet_loss(
                heat_logits, raw, heatmap.to(self.device), box_target.to(self.device), weight.to(self.device)
            )
            loss_sum += float(loss) * inputs.shape[0]
            samples = self.val_samples[total : total + inputs.shape[0]]
            predicted += decode(
                torch.sigmoid(heat_logits).cpu().numpy(),
                decode_boxes(raw).cpu().numpy(),
                scale_x=[s.width / width for s in samples],
                scale_y=[s.height / height for s in samples],
                score_threshold=VALIDATION_SCORE_THRESHOLD,
            )
            total += inputs.shape[0]
            now = time.monotonic()
            if now - self.last_report >= REPORT_INTERVAL_S:  # a long validation stays cancellable
                self.last_report = now
                self.report(
                    f"epoch {self.epoch + 1}/{self.params['epochs']}: validating, {total}/{size} images",
                    fraction=self.step / self.total_steps,
                    epoch=self.epoch + 1,
                    epochs=self.params["epochs"],
                    step=self.step,
                    steps=self.total_steps,
                    validated=total,
                    validation_size=size,
                )
        truth: list[list[DetectionBox]] = [
            [{"label": b[0], "x": b[1], "y": b[2], "width": b[3], "height": b[4]} for b in s.boxes]
            for s in self.val_samples
        ]
        value = coco_evaluate(truth, predicted, self.data.classes)["map50"]
        seconds = time.monotonic() - started
        self.val_seconds.append(seconds)
        return loss_sum / total, value, seconds

    def _finish_epoch(self, val_loss: float | None, val_map50: float | None, val_seconds: float) -> None:
        progress = self.epoch_progress
        self.epoch += 1
        entry = {
            "epoch": self.epoch,
            "step": self.step,
            "train_loss": progress["loss_sum"] / max(1, progress["seen"]),
            "val_loss": val_loss,
            "val_map50": val_map50,
            "lr": self.optimizer.param_groups[0]["lr"],
            "samples_per_s": progress["seen"] / max(1e-9, progress["seconds"]),
            "train_seconds": progress["seconds"],
            "val_seconds": val_seconds,
        }
        self.history.append(entry)
        self.batch_in_epoch = 0
        self.epoch_progress = {}
        if val_map50 is not None and (self.best is None or val_map50 >= self.best["val_map50"]):
            self.best = {"epoch": self.epoch, "val_map50": val_map50, "val_loss": val_loss}
            self.best_model = {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}

    def _report_epoch(self) -> None:
        entry = self.history[-1]
        epochs = self.params["epochs"]
        self.report(
            f"epoch {self.epoch}/{epochs} done: val_map50 {entry['val_map50']:.4f}"
            if entry["val_map50"] is not None
            else f"epoch {self.epoch}/{epochs} done",
            fraction=self.step / self.total_steps,
            milestone=True,
            epoch=self.epoch,
            epochs=epochs,
            step=self.step,
            steps=self.total_steps,
            loss=entry["train_loss"],
            val_loss=entry["val_loss"],
            val_map50=entry["val_map50"],
            lr=entry["lr"],
            samples_per_s=entry["samples_per_s"],
            eta_s=self._eta(),
            best_epoch=self.best["epoch"] if self.best else None,
        )

    def _state(self) -> dict[str, Any]:
        return {**super()._state(), "template": TEMPLATE.name}

    def _finish(self) -> dict[str, Any]:
        from workers.object_detection.export import export_onnx

        weights = self.best_model if self.best_model is not None else self.model.state_dict()
        chosen_epoch = self.best["epoch"] if self.best else self.epoch
        model_path = self.out_dir / "model.pt"
        model_file = {
            "format": MODEL_FORMAT,
            "template": TEMPLATE.name,
            "arch": self.params["model"],
            "num_classes": len(self.data.classes),
            "classes": list(self.data.classes),
            "preprocessing": self.preprocessing,
            "params": dict(self.params),
            "epoch": chosen_epoch,
            "model": {k: v.detach().cpu() for k, v in weights.items()},
        }
        checkpoints.atomic_write(model_path, lambda handle: torch.save(model_file, handle))
        self.report(
            "exporting the model to ONNX",
            fraction=1.0,
            milestone=True,
            epoch=self.epoch,
            epochs=self.params["epochs"],
            step=self.step,
            steps=self.total_steps,
            eta_s=0.0,
        )
        onnx_info = export_onnx(model_path, self.out_dir / "model.onnx")
        preprocess_path, labels_path = self.out_dir / "preprocess.json", self.out_dir / "labels.json"
        checkpoints.atomic_write_json(preprocess_path, self.preprocessing)
        checkpoints.atomic_write_json(labels_path, list(self.data.classes))
        checkpoints.atomic_write_json(self.out_dir / "manifest.json", {"template": TEMPLATE.name})
        last = self.history[-1]
        train_seconds = sum(h["train_seconds"] for h in self.history)
        samples = sum(h["samples_per_s"] * h["train_seconds"] for h in self.history)
        assert self.writer.last is not None
        result = {
            "template": TEMPLATE.name,
            "params": dict(self.params),
            "classes": list(self.data.classes),
            "epochs": self.epoch,
            "best_epoch": chosen_epoch,
            "metrics": {
                "train_loss": last["train_loss"],
                "val_loss": last["val_loss"],
                "val_map50": last["val_map50"],
                "best_val_map50": self.best["val_map50"] if self.best else None,
                "samples_per_s": samples / max(1e-9, train_seconds),
                "train_seconds": train_seconds,
                "elapsed_s": self.elapsed_before + time.monotonic() - self.started,
            },
            "history": self.history,
            "checkpoint": str(self.writer.last.path),
            "model": str(model_path),
            "onnx": str(self.out_dir / "model.onnx"),
            "export": onnx_info,
            "preprocessing": self.preprocessing,
            "preprocessing_path": str(preprocess_path),
            "labels_path": str(labels_path),
            "data": self.data.summary(),
            "resumed_from": self.resumed_from,
            "skipped_checkpoints": self.skipped_checkpoints,
            "removed_incomplete_files": self.removed_files,
            "backbone": self.backbone_info,
            "runtime": {
                "device": str(self.device),
                "threads": self.threads,
                "loader_workers": self.num_workers,
                "amp": "bfloat16" if self.use_amp else None,
                "torch": torch.__version__,
            },
        }
        checkpoints.atomic_write_json(self.out_dir / "result.json", result)
        return result
