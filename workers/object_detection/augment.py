"""Box-aware transforms: the image and its boxes move together.

An image of any size becomes the model's S x S input; its boxes (``[n, 4]`` float arrays of left,
top, width, height in the image's pixels) become boxes in input pixels. Training adds a random
scale and crop (a window of the image, possibly larger than the image, resized to S x S: boxes
are moved, scaled, clipped to the window, and dropped when less than ``MIN_VISIBLE`` of them stays
inside), a horizontal flip (when the run allows it) and colour jitter. Random numbers come from a
``random.Random`` per (seed, epoch, sample), as in image classification, so resuming and loader
workers change nothing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from PIL import Image

from workers.image_classification.preprocessing import RESAMPLE, resize_for_model, to_rgb
from workers.image_classification.transforms import ToNormalizedTensor, TrainTransform

MIN_VISIBLE = 0.4  # a clipped box is kept when at least this fraction of its area stays in the crop
MIN_SIDE = 2.0  # input pixels: a box thinner than this after clipping is dropped


@dataclass(frozen=True)
class BoxAugmentation:
    scale: tuple[float, float]  # the crop window's side relative to the image's (> 1 zooms out)
    aspect: float  # the window's aspect ratio is drawn from [1 / aspect, aspect] (log-uniform)
    jitter: float  # brightness, contrast and saturation factors from [1 - jitter, 1 + jitter]


AUGMENTATIONS: dict[str, BoxAugmentation | None] = {
    "none": None,
    "light": BoxAugmentation(scale=(0.75, 1.25), aspect=1.1, jitter=0.1),
    "standard": BoxAugmentation(scale=(0.6, 1.4), aspect=1.2, jitter=0.2),
    "strong": BoxAugmentation(scale=(0.45, 1.6), aspect=1.3, jitter=0.4),
}


def scale_boxes(
    boxes: np.ndarray, window: tuple[float, float, float, float], size: tuple[int, int]
) -> np.ndarray:
    """Boxes of the image -> boxes of ``window`` (left, top, right, bottom in image pixels) resized to
    ``size`` (height, width): moved, scaled and clipped to the window (still [n, 4] x, y, w, h)."""
    left, top, right, bottom = window
    height, width = size
    sx, sy = width / (right - left), height / (bottom - top)
    x1 = np.clip((boxes[:, 0] - left) * sx, 0, width)
    y1 = np.clip((boxes[:, 1] - top) * sy, 0, height)
    x2 = np.clip((boxes[:, 0] + boxes[:, 2] - left) * sx, 0, width)
    y2 = np.clip((boxes[:, 1] + boxes[:, 3] - top) * sy, 0, height)
    return np.stack([x1, y1, x2 - x1, y2 - y1], axis=1).astype(np.float32)


def visible(
    boxes: np.ndarray, scaled: np.ndarray, window: tuple[float, float, float, float], size: tuple[int, int]
) -> np.ndarray:
    """Which boxes keep enough of themselves (area and sides) after :func:`scale_boxes`."""
    left, top, right, bottom = window
    height, width = size
    full_area = boxes[:, 2] * boxes[:, 3] * (width / (right - left)) * (height / (bottom - top))
    area = scaled[:, 2] * scaled[:, 3]
    keep: np.ndarray = (
        (area >= MIN_VISIBLE * np.maximum(full_area, 1e-9))
        & (scaled[:, 2] >= MIN_SIDE)
        & (scaled[:, 3] >= MIN_SIDE)
    )
    return keep


class EvalBoxTransform:
    """Deterministic: the serving preprocessing (stretch to S x S); boxes scaled alike."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = dict(spec)
        self.size: tuple[int, int] = (int(spec["image_size"][0]), int(spec["image_size"][1]))
        self.to_tensor = ToNormalizedTensor(spec)

    def __call__(
        self, image: Image.Image, boxes: np.ndarray, labels: np.ndarray, rng: random.Random | None = None
    ) -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
        image = to_rgb(image, self.spec)
        window = (0.0, 0.0, float(image.width), float(image.height))
        scaled = scale_boxes(boxes, window, self.size)
        keep = (scaled[:, 2] > 0) & (scaled[:, 3] > 0)
        return self.to_tensor(resize_for_model(image, self.spec)), scaled[keep], labels[keep]


class TrainBoxTransform(EvalBoxTransform):
    """Random scale and crop, horizontal flip and colour jitter, moving and clipping the boxes."""

    def __init__(self, spec: Mapping[str, Any], *, augmentation: str, horizontal_flip: bool) -> None:
        if augmentation not in AUGMENTATIONS:
            raise ValueError(f"unknown augmentation {augmentation!r}")
        super().__init__(spec)
        self.augmentation = AUGMENTATIONS[augmentation]
        self.horizontal_flip = horizontal_flip
        self.resample = RESAMPLE[spec["resample"]]

    def __call__(
        self, image: Image.Image, boxes: np.ndarray, labels: np.ndarray, rng: random.Random | None = None
    ) -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
        rng = rng or random.Random()
        augmentation = self.augmentation
        if augmentation is None:
            tensor, boxes, labels = super().__call__(image, boxes, labels)
            if self.horizontal_flip and rng.random() < 0.5:
                tensor, boxes = tensor.flip(-1), flip_boxes(boxes, self.size[1])
            return tensor, boxes, labels
        image = to_rgb(image, self.spec)
        window = random_window(image.width, image.height, augmentation, rng)
        height, width = self.size
        resized = image.crop(window).resize((width, height), self.resample)
        scaled = scale_boxes(boxes, window, self.size)
        keep = visible(boxes, scaled, window, self.size)
        boxes, labels = scaled[keep], labels[keep]
        if self.horizontal_flip and rng.random() < 0.5:
            resized = resized.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
            boxes = flip_boxes(boxes, width)
        if augmentation.jitter > 0:
            resized = TrainTransform._colour_jitter(resized, rng, augmentation.jitter)
        return self.to_tensor(resized), boxes, labels


def flip_boxes(boxes: np.ndarray, width: int) -> np.ndarray:
    flipped = boxes.copy()
    flipped[:, 0] = width - boxes[:, 0] - boxes[:, 2]
    return flipped


def random_window(
    width: int, height: int, augmentation: BoxAugmentation, rng: random.Random
) -> tuple[float, float, float, float]:
    """A crop window (left, top, right, bottom) in image pixels, whole pixels: its side a random
    multiple of the image's, its aspect jittered, placed so it overlaps the image as much as it can
    (inside the image when smaller, around it when larger)."""
    scale = rng.uniform(*augmentation.scale)
    aspect = math.exp(rng.uniform(-math.log(augmentation.aspect), math.log(augmentation.aspect)))
    w = max(1, round(width * scale * math.sqrt(aspect)))
    h = max(1, round(height * scale / math.sqrt(aspect)))
    left = rng.randint(min(0, width - w), max(0, width - w))
    top = rng.randint(min(0, height - h), max(0, height - h))
    return float(left), float(top), float(left + w), float(top + h)
