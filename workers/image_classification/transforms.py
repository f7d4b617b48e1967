"""Training and evaluation transforms: Pillow for pixels, torch for the output tensor.

The evaluation transform shares its geometric step (:func:`resize_for_model`) with the NumPy
serving implementation, so both produce the same input to 1e-6. Augmentation draws its random
numbers from a ``random.Random`` handed in per sample (seeded from the run's seed, the epoch and
the sample), which makes a run's augmentation independent of data-loader workers and of resuming.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from PIL import Image, ImageEnhance

from workers.image_classification.preprocessing import RESAMPLE, normalization, resize_for_model, to_rgb


@dataclass(frozen=True)
class Augmentation:
    scale: tuple[float, float]  # area fraction of the random resized crop
    ratio: tuple[float, float]  # aspect ratio range of the crop
    jitter: float  # brightness, contrast and saturation factors are drawn from [1 - jitter, 1 + jitter]


AUGMENTATIONS: dict[str, Augmentation | None] = {
    "none": None,
    "light": Augmentation(scale=(0.7, 1.0), ratio=(0.9, 1.0 / 0.9), jitter=0.1),
    "standard": Augmentation(scale=(0.5, 1.0), ratio=(3 / 4, 4 / 3), jitter=0.2),
    "strong": Augmentation(scale=(0.25, 1.0), ratio=(3 / 4, 4 / 3), jitter=0.4),
}


class ToNormalizedTensor:
    """An RGB image already at the model's size -> float32 tensor (3, H, W), normalized per the spec."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        mean, std = normalization(spec)
        self.mean, self.std = torch.from_numpy(mean), torch.from_numpy(std)
        self.scale = torch.tensor(np.float32(spec["scale"]))

    def __call__(self, image: Image.Image) -> torch.Tensor:
        pixels = torch.from_numpy(np.array(image, dtype=np.uint8))
        chw = pixels.permute(2, 0, 1).to(torch.float32) * self.scale
        return (chw - self.mean) / self.std


class EvalTransform:
    """Deterministic: exactly what serving does (see ``preprocessing.preprocess_numpy``)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = dict(spec)
        self.to_tensor = ToNormalizedTensor(spec)

    def __call__(self, image: Image.Image, rng: random.Random | None = None) -> torch.Tensor:
        return self.to_tensor(resize_for_model(to_rgb(image, self.spec), self.spec))


class TrainTransform:
    """Random resized crop, horizontal flip and colour jitter, then the evaluation's normalization."""

    def __init__(self, spec: Mapping[str, Any], *, augmentation: str, horizontal_flip: bool) -> None:
        if augmentation not in AUGMENTATIONS:
            raise ValueError(f"unknown augmentation {augmentation!r}")
        self.spec = dict(spec)
        self.augmentation = AUGMENTATIONS[augmentation]
        self.horizontal_flip = horizontal_flip
        self.to_tensor = ToNormalizedTensor(spec)
        self.resample = RESAMPLE[spec["resample"]]

    def __call__(self, image: Image.Image, rng: random.Random | None = None) -> torch.Tensor:
        rng = rng or random.Random()
        image = to_rgb(image, self.spec)
        if self.augmentation is None:
            image = resize_for_model(image, self.spec)
        else:
            image = self._random_resized_crop(image, rng)
        if self.horizontal_flip and rng.random() < 0.5:
            image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        if self.augmentation is not None and self.augmentation.jitter > 0:
            image = self._colour_jitter(image, rng, self.augmentation.jitter)
        return self.to_tensor(image)

    def _random_resized_crop(self, image: Image.Image, rng: random.Random) -> Image.Image:
        assert self.augmentation is not None
        height, width = self.spec["image_size"]
        box = random_crop_box(
            image.width, image.height, self.augmentation.scale, self.augmentation.ratio, rng
        )
        return image.resize((width, height), self.resample, box=box)

    @staticmethod
    def _colour_jitter(image: Image.Image, rng: random.Random, strength: float) -> Image.Image:
        enhancers = [ImageEnhance.Brightness, ImageEnhance.Contrast, ImageEnhance.Color]
        factors = [rng.uniform(max(0.0, 1.0 - strength), 1.0 + strength) for _ in enhancers]
        for which in rng.sample(range(len(enhancers)), len(enhancers)):
            image = enhancers[which](image).enhance(factors[which])
        return image


def random_crop_box(
    width: int, height: int, scale: tuple[float, float], ratio: tuple[float, float], rng: random.Random
) -> tuple[int, int, int, int]:
    """A crop (left, top, right, bottom) covering a random area fraction and aspect ratio (the
    Inception-style random resized crop); falls back to the largest centred crop in range."""
    area = width * height
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(10):
        target_area = area * rng.uniform(*scale)
        aspect = math.exp(rng.uniform(*log_ratio))
        w = round(math.sqrt(target_area * aspect))
        h = round(math.sqrt(target_area / aspect))
        if 0 < w <= width and 0 < h <= height:
            left = rng.randint(0, width - w)
            top = rng.randint(0, height - h)
            return left, top, left + w, top + h
    in_ratio = width / height
    if in_ratio < ratio[0]:
        w, h = width, round(width / ratio[0])
    elif in_ratio > ratio[1]:
        w, h = round(height * ratio[1]), height
    else:
        w, h = width, height
    left, top = (width - w) // 2, (height - h) // 2
    return left, top, left + w, top + h
