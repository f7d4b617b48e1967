"""The object detection trainer: ``train(spec, manifest, out_dir, report) -> result``.

Image classification's training run (:class:`workers.image_classification.trainer.TrainingRun`)
with the detector's hooks (model, data, loss, validation, export): the loop, checkpoints every
epoch (written in the background), resume from the newest complete one, ``JobCancelled`` honoured
after a checkpoint, progress through ``report`` at most every ``REPORT_INTERVAL_S`` (of that
module) — all inherited unchanged.

The loss is TTFNet's (a CenterNet that trains in fewer steps): CenterNet's penalty-reduced focal
loss on the class heatmaps, plus the GIoU loss of the boxes predicted by the cells of each object's
central part, Gaussian-weighted. Validation decodes the val split with
:mod:`workers.object_detection.decode` and reports ``val_map50`` (COCO's mAP at IoU 0.5,
``metrics.coco_evaluate``); the best epoch by ``val_map50`` is deployed.

Progress metrics: steps report ``epoch``, ``epochs``, ``step``, ``steps``, ``loss``, ``lr``,
``samples_per_s``, ``eta_s``; each epoch's end (milestone) adds ``val_loss``, ``val_map50`` and
``best_epoch``.

Files in ``out_dir``: ``checkpoints/``, ``model.pt``, ``model.onnx`` (verified against torch),
``preprocess.json``, ``labels.json``, ``manifest.json`` (``{"template": "object_detection"}``),
``result.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from torch import nn

from workers.contracts.annotations import DetectionBox, DetectionManifest
from workers.image_classification.trainer import TrainingRun
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
    warm_start: str | Path | None = None,
    num_workers: int | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Train a detector on ``manifest`` with the parameters ``spec``; resume if ``out_dir`` holds a
    complete checkpoint of the same run.

    ``spec``: a preset name under ``"preset"`` plus parameter overrides, e.g. ``{"preset": "fast",
    "epochs": 5}``. ``backbone``: a state_dict file of the matching image classifier (``resnet_narrow`` for
    ``det_medium``, ``resnet18`` for ``det_resnet18``) or a detector's backbone, to start from
    (ignored when resuming). ``warm_start``: a detector version's ``model.pt`` to start from (same
    model and image size; the heatmap head's rows matched by class name). ``device``,
    ``num_workers``, ``threads``: as image classification.

    Raises ``TemplateParamError`` or ``ManifestError`` for bad input, ``JobCancelled`` when
    ``report`` asks to stop (after saving a checkpoint).
    """
    params = TEMPLATE.validate_params(spec.get("preset"), spec)
    data = parse_manifest(manifest, check_files=True)
    return DetectionRun.start(
        params,
        data,
        out_dir,
        report,
        device=device,
        backbone=backbone,
        warm_start=warm_start,
        num_workers=num_workers,
        threads=threads,
    )


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
    """Image classification's training run with the detector's model, data, loss and validation."""

    template_name = TEMPLATE.name
    model_format = MODEL_FORMAT
    metric = "val_map50"
    reports_accuracy = False
    class_keys = ("heatmap.2.weight", "heatmap.2.bias")  # the heatmap head's last conv: one channel a class
    data: Manifest  # type: ignore[assignment]
    train_samples: list[Sample]  # type: ignore[assignment]
    val_samples: list[Sample]  # type: ignore[assignment]

    def _create_model(self) -> nn.Module:
        model = build_model(self.params["model"], len(self.data.classes))
        self.backbone_info = load_detector_backbone(model, self.backbone) if self.backbone else None
        return model

    def _datasets(self, cache_bytes: int) -> tuple[DetectionSamples, DetectionSamples | None]:
        params, num_classes = self.params, len(self.data.classes)
        train_transform = TrainBoxTransform(
            self.preprocessing, augmentation=params["augmentation"], horizontal_flip=params["horizontal_flip"]
        )
        train_set = DetectionSamples(
            self.train_samples,
            train_transform,
            num_classes=num_classes,
            seed=params["seed"],
            cache_bytes=cache_bytes,
        )
        if not self.val_samples:
            return train_set, None
        val_transform = EvalBoxTransform(self.preprocessing)
        val_set = DetectionSamples(
            self.val_samples,
            val_transform,
            num_classes=num_classes,
            seed=params["seed"],
            cache_bytes=cache_bytes,
        )
        return train_set, val_set

    def _train_step(self, batch: Any) -> tuple[torch.Tensor, int, torch.Tensor | None]:
        inputs, heatmap, box_target, weight = (t.to(self.device, non_blocking=True) for t in batch)
        with self._autocast():
            heat_logits, regression = self.model(inputs.contiguous(memory_format=torch.channels_last))
        return centernet_loss(heat_logits, regression, heatmap, box_target, weight), inputs.shape[0], None

    def _validation_start(self) -> None:
        self.val_loss_total = 0.0
        self.val_predictions: list[list[tuple[int, float, float, float, float, float]]] = []

    def _validation_step(self, batch: Any, done: int) -> int:
        inputs, heatmap, box_target, weight = (t.to(self.device, non_blocking=True) for t in batch)
        with self._autocast():
            heat_logits, raw = self.model(inputs.contiguous(memory_format=torch.channels_last))
        heat_logits, raw = heat_logits.float(), raw.float()
        count = int(inputs.shape[0])
        self.val_loss_total += float(centernet_loss(heat_logits, raw, heatmap, box_target, weight)) * count
        height, width = self.preprocessing["image_size"]
        samples = self.val_samples[done : done + count]
        self.val_predictions += decode(
            torch.sigmoid(heat_logits).cpu().numpy(),
            decode_boxes(raw).cpu().numpy(),
            scale_x=[s.width / width for s in samples],
            scale_y=[s.height / height for s in samples],
            score_threshold=VALIDATION_SCORE_THRESHOLD,
        )
        return count

    def _validation_end(self, total: int) -> tuple[float, float]:
        truth: list[list[DetectionBox]] = [
            [{"label": b[0], "x": b[1], "y": b[2], "width": b[3], "height": b[4]} for b in s.boxes]
            for s in self.val_samples
        ]
        metrics = coco_evaluate(truth, self.val_predictions, self.data.classes)
        return self.val_loss_total / total, float(metrics["map50"])

    def _warm_start_tags(self) -> dict[str, Any]:
        return {**super()._warm_start_tags(), "template": TEMPLATE.name}

    def _state(self) -> dict[str, Any]:
        return {**super()._state(), "template": TEMPLATE.name}

    def _model_file_tags(self) -> dict[str, Any]:
        return {"template": TEMPLATE.name}

    def _export(self, model_path: Path) -> dict[str, Any]:
        from workers.object_detection.export import export_onnx

        return export_onnx(model_path, self.out_dir / "model.onnx")

    def _companion_files(self) -> dict[str, Any]:
        return {**super()._companion_files(), "manifest.json": {"template": TEMPLATE.name}}
