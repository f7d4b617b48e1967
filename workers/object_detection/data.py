"""Training data: a manifest's images with their boxes, turned into CenterNet targets at stride 4.

``DetectionSamples[(position, epoch)] -> (image, heatmap, box_target, weight)``:

- ``heatmap`` [classes, S/4, S/4]: per class, the maximum over its objects of a Gaussian centred
  on the object's centre cell (1.0 there), sigma proportional to the box's width and height;
- ``box_target`` [4, S/4, S/4]: at the cells of an object's central part, its box (left, top,
  right, bottom in input pixels), which those cells learn to predict (TTFNet's dense regression);
- ``weight`` [S/4, S/4]: how much each such cell's box counts (a Gaussian around the centre,
  summing to log(area) per object; 0 elsewhere).

Order, augmentation and caching are image classification's (``EpochSampler``, a seeded
``random.Random`` per (seed, epoch, sample), decoded images cached per process).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import torch

from workers.image_classification.data import DECODED_CACHE_BYTES, ImageSamples, sample_seed
from workers.object_detection.augment import EvalBoxTransform
from workers.object_detection.manifest import Sample
from workers.object_detection.models import OUTPUT_STRIDE

GAUSSIAN_ALPHA = 0.54  # sigma = alpha * side / 6 (TTFNet's elliptical Gaussian)
MIN_SIGMA = 0.5  # cells

Item = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]


def centernet_targets(
    boxes: np.ndarray, labels: np.ndarray, num_classes: int, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(heatmap, box_target, weight) for boxes ``[n, 4]`` (x, y, w, h in input pixels) of ``size``."""
    rows, cols = size[0] // OUTPUT_STRIDE, size[1] // OUTPUT_STRIDE
    heatmap = np.zeros((num_classes, rows, cols), np.float32)
    box_target = np.zeros((4, rows, cols), np.float32)
    weight = np.zeros((rows, cols), np.float32)
    ys, xs = np.arange(rows, dtype=np.float32)[:, None], np.arange(cols, dtype=np.float32)[None, :]
    order = np.argsort(-(boxes[:, 2] * boxes[:, 3]), kind="stable")  # small objects win shared cells
    for i in order:
        x, y, w, h = (float(v) / OUTPUT_STRIDE for v in boxes[i])
        if w <= 0 or h <= 0:
            continue
        cx, cy = x + w / 2, y + h / 2
        col, row = min(cols - 1, int(cx)), min(rows - 1, int(cy))
        sigma_x, sigma_y = max(MIN_SIGMA, GAUSSIAN_ALPHA * w / 6), max(MIN_SIGMA, GAUSSIAN_ALPHA * h / 6)
        gaussian = np.exp(-((xs - col) ** 2) / (2 * sigma_x**2) - ((ys - row) ** 2) / (2 * sigma_y**2))
        label = int(labels[i])
        np.maximum(heatmap[label], gaussian, out=heatmap[label])
        # the cells that regress this box: the central GAUSSIAN_ALPHA part of it (at least its centre cell)
        region = (np.abs(xs - col) <= max(0.5, GAUSSIAN_ALPHA * w / 2)) & (
            np.abs(ys - row) <= max(0.5, GAUSSIAN_ALPHA * h / 2)
        )
        local = np.where(region, gaussian, 0.0)
        local *= np.log(max(2.0, float(boxes[i, 2] * boxes[i, 3]))) / local.sum()
        box_target[:, region] = np.asarray(
            [boxes[i, 0], boxes[i, 1], boxes[i, 0] + boxes[i, 2], boxes[i, 1] + boxes[i, 3]], np.float32
        )[:, None]
        weight[region] = local[region]
    return heatmap, box_target, weight


class DetectionSamples(ImageSamples):
    """``dataset[(position, epoch)] -> (image, heatmap, box_target, weight)``; positions index
    ``samples``. Images are read and cached as :class:`ImageSamples` does."""

    def __init__(
        self,
        samples: Sequence[Sample],
        transform: EvalBoxTransform,
        *,
        num_classes: int,
        seed: int,
        cache_bytes: int = DECODED_CACHE_BYTES,
    ) -> None:
        # ImageSamples' state for its image cache (``image()``), without its single-label list
        self.samples = list(samples)  # type: ignore[arg-type]
        self.detection_samples = list(samples)
        self.seed = seed
        self.cache_bytes = cache_bytes
        self._cache = {}
        self._cached_bytes = 0
        self.box_transform = transform
        self.num_classes = num_classes

    def __getitem__(self, key: int | tuple[int, int]) -> Item:  # type: ignore[override]
        position, epoch = key if isinstance(key, tuple) else (key, 0)
        sample = self.detection_samples[position]
        rng = random.Random(sample_seed(self.seed, epoch, sample.index))
        boxes = np.asarray([box[1:] for box in sample.boxes], np.float32).reshape(-1, 4)
        labels = np.asarray([box[0] for box in sample.boxes], np.int64)
        tensor, boxes, labels = self.box_transform(self.image(position), boxes, labels, rng)
        heatmap, box_target, weight = centernet_targets(
            boxes, labels, self.num_classes, self.box_transform.size
        )
        return tensor, torch.from_numpy(heatmap), torch.from_numpy(box_target), torch.from_numpy(weight)
