"""The preprocessing spec and its reference implementation in Pillow + NumPy (no torch).

Training's evaluation transform and every serving path (ONNX Runtime in the platform, in an
on-prem package, in a device SDK) apply the same spec, written next to the model as
``preprocess.json``::

    {"kind": "image", "version": 1, "format": "sampan.preprocess/1", "image_size": [H, W],
     "resize_mode": "stretch", "crop_fraction": 1.0, "resample": "bilinear", "color": "RGB",
     "alpha_background": [255, 255, 255], "scale": 1/255, "mean": [0.485, 0.456, 0.406],
     "std": [0.229, 0.224, 0.225], "layout": "NCHW", "dtype": "float32"}

Steps: decode, apply the EXIF orientation, composite any alpha channel over ``alpha_background``,
convert to RGB; resize with Pillow (``stretch``: straight to W x H; ``center_crop``: shorter side
to ``round(side / crop_fraction)`` then a centred W x H crop); ``x = (pixel * scale - mean) / std``
per channel in float32; HWC -> CHW. The contract: ``workers.contracts.preprocessing.ImagePreprocessing``
(a spec written before ``kind``/``version`` existed lacks them and is read as an image spec).
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
from PIL import Image, ImageOps

from workers.contracts.preprocessing import IMAGE_FORMAT, PREPROCESSING_VERSION, ImagePreprocessing

FORMAT = IMAGE_FORMAT
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
RESIZE_MODES = ("stretch", "center_crop")
RESAMPLE = {
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "nearest": Image.Resampling.NEAREST,
}


class PreprocessingSpecError(ValueError):
    pass


def make_spec(
    image_size: int | Sequence[int],
    *,
    resize_mode: str = "stretch",
    crop_fraction: float = 1.0,
    resample: str = "bilinear",
    mean: Sequence[float] = IMAGENET_MEAN,
    std: Sequence[float] = IMAGENET_STD,
) -> ImagePreprocessing:
    """A preprocessing spec (JSON-able dict) for square or ``[height, width]`` model inputs."""
    size = [int(image_size), int(image_size)] if isinstance(image_size, int) else [int(v) for v in image_size]
    spec = {
        "kind": "image",
        "version": PREPROCESSING_VERSION,
        "format": FORMAT,
        "image_size": size,
        "resize_mode": resize_mode,
        "crop_fraction": float(crop_fraction),
        "resample": resample,
        "color": "RGB",
        "alpha_background": [255, 255, 255],
        "scale": 1.0 / 255.0,
        "mean": [float(v) for v in mean],
        "std": [float(v) for v in std],
        "layout": "NCHW",
        "dtype": "float32",
    }
    return validate_spec(spec)


def validate_spec(spec: Mapping[str, Any]) -> ImagePreprocessing:
    """Check a spec read from JSON; returns it as a plain dict, with ``kind`` and ``version`` filled
    in when it predates them. Raises PreprocessingSpecError."""
    if not isinstance(spec, Mapping) or spec.get("format") != FORMAT:
        raise PreprocessingSpecError(f"not a preprocessing spec of format {FORMAT!r}")
    if spec.get("kind", "image") != "image":
        raise PreprocessingSpecError(f"not an image preprocessing spec (kind {spec.get('kind')!r})")
    size = spec.get("image_size")
    if (
        not isinstance(size, list | tuple)
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise PreprocessingSpecError("image_size must be [height, width] in pixels")
    if spec.get("resize_mode") not in RESIZE_MODES:
        raise PreprocessingSpecError(f"resize_mode must be one of {', '.join(RESIZE_MODES)}")
    if not 0.0 < float(spec.get("crop_fraction", 0)) <= 1.0:
        raise PreprocessingSpecError("crop_fraction must be in (0, 1]")
    if spec.get("resample") not in RESAMPLE:
        raise PreprocessingSpecError(f"resample must be one of {', '.join(RESAMPLE)}")
    for key in ("mean", "std"):
        values = spec.get(key)
        if not isinstance(values, list | tuple) or len(values) != 3:
            raise PreprocessingSpecError(f"{key} must list 3 numbers (R, G, B)")
    if any(float(v) <= 0 for v in spec["std"]):
        raise PreprocessingSpecError("std values must be positive")
    if spec.get("color") != "RGB" or spec.get("layout") != "NCHW" or spec.get("dtype") != "float32":
        raise PreprocessingSpecError("only RGB, NCHW, float32 inputs are supported")
    return cast(ImagePreprocessing, {"kind": "image", "version": PREPROCESSING_VERSION, **spec})


def open_image(source: str | os.PathLike[str] | bytes, spec: Mapping[str, Any] | None = None) -> Image.Image:
    """Decode an image file or bytes (the first frame of an animation), upright and in RGB.

    Raises ``PIL.UnidentifiedImageError`` (an ``OSError``) for data Pillow cannot read.
    """
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    with Image.open(stream) as image:
        image.load()
        upright = ImageOps.exif_transpose(image)
    return to_rgb(upright, spec)


DEEP_MODES = ("I", "F")


def is_deep(image: Image.Image) -> bool:
    """More than 8 bits per sample: 16-bit (``I;16*``), 32-bit integer (``I``) or float (``F``) grayscale."""
    return image.mode in DEEP_MODES or image.mode.startswith("I;16")


def eight_bit(image: Image.Image) -> Image.Image:
    """A 16-bit, 32-bit integer or float grayscale image as 8-bit ``L``, its values mapped linearly
    onto 0..255: integers from min(0, lowest) to their highest value (an image that already fits in
    0..255 keeps its values), floats from their lowest to their highest value (0..1 when they lie in it).
    The dataset import and every serving path use this one mapping, so a model sees the same pixels
    in training and in production. ValueError for values that are not finite numbers.

    >>> eight_bit(Image.new("I;16", (2, 1), 64000)).getextrema()
    (255, 255)
    """
    if image.mode.startswith("I;16"):
        image = image.convert("I")
    extrema = cast(tuple[float, float], image.getextrema())  # one band: (lowest, highest)
    low, high = float(extrema[0]), float(extrema[1])
    if image.mode == "F" and not np.isfinite(np.asarray(image)).all():  # getextrema() skips NaN
        raise ValueError(f"the {image.mode} image holds values that are not finite numbers")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"the {image.mode} image holds values that are not finite numbers")
    if image.mode == "F" and low >= 0.0 and high <= 1.0:
        low, high = 0.0, 1.0
    elif image.mode == "I":
        low = min(low, 0.0)
        if low == 0.0 and high <= 255:
            high = 255.0
    scale = 255.0 / (high - low) if high > low else 0.0
    return image.point(lambda value: value * scale - low * scale).convert("L")


def to_rgb(image: Image.Image, spec: Mapping[str, Any] | None = None) -> Image.Image:
    """RGB with any transparency composited over the spec's background (white by default); a deep
    grayscale image scaled to 8 bits first (:func:`eight_bit`), as the dataset import stores it."""
    if image.mode == "RGB":
        return image
    if is_deep(image):
        return eight_bit(image).convert("RGB")
    has_alpha = image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        image.mode == "P" and "transparency" in image.info
    )
    if not has_alpha:
        return image.convert("RGB")
    background = tuple((spec or {}).get("alpha_background", (255, 255, 255)))
    rgba = image.convert("RGBA")
    canvas = Image.new("RGBA", rgba.size, background + (255,))
    canvas.alpha_composite(rgba)
    return canvas.convert("RGB")


def resize_for_model(image: Image.Image, spec: Mapping[str, Any]) -> Image.Image:
    """The deterministic geometric step: the RGB image resized (and cropped) to the model's input size."""
    height, width = spec["image_size"]
    resample = RESAMPLE[spec["resample"]]
    if spec["resize_mode"] == "stretch":
        return image.resize((width, height), resample)
    # center_crop: scale so the crop box (the target size / crop_fraction) fits, then take the centre
    fraction = float(spec["crop_fraction"])
    scale = max(width / fraction / image.width, height / fraction / image.height)
    resized_w, resized_h = max(width, round(image.width * scale)), max(height, round(image.height * scale))
    resized = image.resize((resized_w, resized_h), resample)
    left, top = (resized_w - width) // 2, (resized_h - height) // 2
    return resized.crop((left, top, left + width, top + height))


def normalization(spec: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (mean, std) as float32 arrays shaped (3, 1, 1)."""
    mean = np.asarray(spec["mean"], dtype=np.float32).reshape(3, 1, 1)
    std = np.asarray(spec["std"], dtype=np.float32).reshape(3, 1, 1)
    return mean, std


def preprocess_numpy(image: Image.Image, spec: Mapping[str, Any]) -> np.ndarray:
    """One decoded image -> the model's float32 input, shaped (3, H, W)."""
    pixels = np.asarray(resize_for_model(to_rgb(image, spec), spec), dtype=np.uint8)
    chw = pixels.transpose(2, 0, 1).astype(np.float32) * np.float32(spec["scale"])
    mean, std = normalization(spec)
    normalized: np.ndarray = (chw - mean) / std
    return normalized


def preprocess_batch(images: Sequence[Image.Image], spec: Mapping[str, Any]) -> np.ndarray:
    """Several images -> one float32 batch shaped (N, 3, H, W)."""
    return (
        np.stack([preprocess_numpy(image, spec) for image in images])
        if images
        else np.zeros((0, 3, *spec["image_size"]), dtype=np.float32)
    )
