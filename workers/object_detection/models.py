"""The detectors: a ResNet backbone from image classification, a light feature pyramid, CenterNet heads.

Each model sees an S x S image and answers at stride 4 (S/4 x S/4 cells):

- ``heatmap`` logits [batch, classes, S/4, S/4]: an object of the class is centred in the cell;
- ``regression`` [batch, 4, S/4, S/4]: the log distances from the cell's centre to the left, top,
  right and bottom edges of the box of the object there (see :func:`decode_boxes`).

:class:`DetectionOutputs` turns them into the ONNX outputs (``scores`` after a sigmoid, ``boxes``
decoded to left, top, width, height in input pixels; see :mod:`workers.object_detection.decode`).

The backbones are :class:`workers.image_classification.models.ResNet` instances under
``backbone.`` without their classification head, so an uploaded backbone that fits the classifier
of the same ResNet (``load_backbone``'s rule) fits the detector:

- ``det_small``: a small-stem ResNet, one basic block per stage, widths 16-128;
- ``det_medium``: the classifier's ``resnet_narrow`` (widths 32-256);
- ``det_resnet18``: ResNet-18 with the 7x7 stem (``resnet18``'s keys: ``conv1``, ``layer1.0.conv1``, ...).

The pyramid takes every stage at stride >= 4, projects it to the neck's width with 1x1 convs and
adds them top-down (nearest upsampling), then one 3x3 conv at stride 4 feeds both heads.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from workers.image_classification.models import ResNet, conv_bn_relu, load_backbone

OUTPUT_STRIDE = 4
HEATMAP_PRIOR = 0.01  # initial probability of an object per cell (focal-loss initialisation)
DISTANCE_UNIT = 8.0  # input pixels: a box edge's distance from a cell's centre is exp(raw) * this
MAX_LOG_DISTANCE = 6.0


@dataclass(frozen=True)
class Architecture:
    blocks: tuple[int, ...]
    widths: tuple[int, ...]
    stem: str  # "small": stride 2; "imagenet": stride 4 (7x7 conv + max pool)
    neck: int  # channels of the pyramid and the heads


ARCHITECTURES: dict[str, Architecture] = {
    "det_small": Architecture((1, 1, 1, 1), (16, 32, 64, 128), "small", 64),
    "det_medium": Architecture((1, 1, 1, 1), (32, 64, 128, 256), "small", 96),  # resnet_narrow's backbone
    "det_resnet18": Architecture((2, 2, 2, 2), (64, 128, 256, 512), "imagenet", 128),  # resnet18's
}


def head(in_channels: int, out_channels: int, bias: float = 0.0) -> nn.Sequential:
    layers = nn.Sequential(
        nn.Conv2d(in_channels, in_channels, 3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(in_channels, out_channels, 1),
    )
    final = layers[-1]
    assert isinstance(final, nn.Conv2d) and final.bias is not None
    nn.init.normal_(final.weight, std=0.01)
    nn.init.constant_(final.bias, bias)
    return layers


class CenterNet(nn.Module):
    def __init__(self, num_classes: int, arch: Architecture) -> None:
        super().__init__()
        backbone = ResNet(2, blocks=arch.blocks, widths=arch.widths, stem=arch.stem)
        del backbone.fc, backbone.avgpool  # the classifier's head: a detector does not use it
        self.backbone = backbone
        first_stride = 2 if arch.stem == "small" else 4
        strides = [first_stride * 2 ** max(0, stage - 1) for stage in range(1, len(arch.blocks) + 1)]
        self.used_stages = [stage for stage, stride in enumerate(strides, start=1) if stride >= OUTPUT_STRIDE]
        if strides[self.used_stages[0] - 1] != OUTPUT_STRIDE:
            raise ValueError("the backbone has no stage at stride 4")
        self.lateral = nn.ModuleList(
            nn.Conv2d(arch.widths[stage - 1], arch.neck, 1) for stage in self.used_stages
        )
        self.smooth = conv_bn_relu(arch.neck, arch.neck)
        self.heatmap = head(arch.neck, num_classes, bias=-math.log((1 - HEATMAP_PRIOR) / HEATMAP_PRIOR))
        self.regression = head(arch.neck, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b = self.backbone
        x = b.maxpool(b.relu(b.bn1(b.conv1(x))))
        features = []
        for stage in range(1, b.stages + 1):
            x = getattr(b, f"layer{stage}")(x)
            if stage in self.used_stages:
                features.append(x)
        merged = self.lateral[-1](features[-1])
        for lateral, feature in zip(reversed(self.lateral[:-1]), reversed(features[:-1]), strict=True):
            merged = lateral(feature) + nn.functional.interpolate(
                merged, size=feature.shape[-2:], mode="nearest"
            )
        neck = self.smooth(merged)
        heatmap: torch.Tensor = self.heatmap(neck)
        regression: torch.Tensor = self.regression(neck)
        return heatmap, regression


class DetectionOutputs(nn.Module):
    """A trained model with its outputs decoded: ``(scores, boxes)`` as the ONNX file gives them."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        heatmap, regression = self.model(x)
        return torch.sigmoid(heatmap), decode_boxes(regression)


def decode_boxes(regression: torch.Tensor) -> torch.Tensor:
    """[batch, 4, h, w] raw regression -> left, top, width, height in input pixels.

    Each cell predicts the distances from its centre to the box's left, top, right and bottom
    edges as ``exp(raw) * DISTANCE_UNIT`` (TTFNet-style: every cell near an object's centre
    predicts the whole box, so many cells learn from each object)."""
    height, width = regression.shape[-2:]
    cols = torch.arange(width, dtype=regression.dtype, device=regression.device).view(1, 1, width)
    rows = torch.arange(height, dtype=regression.dtype, device=regression.device).view(1, height, 1)
    distances = torch.exp(regression.clamp(max=MAX_LOG_DISTANCE)) * DISTANCE_UNIT
    centre_x = (cols + 0.5) * OUTPUT_STRIDE
    centre_y = (rows + 0.5) * OUTPUT_STRIDE
    left = centre_x - distances[:, 0]
    top = centre_y - distances[:, 1]
    return torch.stack(
        [left, top, distances[:, 0] + distances[:, 2], distances[:, 1] + distances[:, 3]], dim=1
    )


def build_model(arch: str, num_classes: int) -> CenterNet:
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown model {arch!r}; one of {', '.join(ARCHITECTURES)}")
    if num_classes < 1:
        raise ValueError("a detector needs at least 1 class")
    return CenterNet(num_classes, ARCHITECTURES[arch])


def load_detector_backbone(model: CenterNet, path: str | os.PathLike[str]) -> dict[str, Any]:
    """Initialise the backbone from a classifier's state_dict file (its head ignored); see
    :func:`workers.image_classification.models.load_backbone`."""
    return load_backbone(model.backbone, path)
