"""Digit scenes: an object-detection dataset built at test time from real handwriting.

No detection dataset ships offline, so tests and benchmarks make one: scikit-learn's 1,797 bundled
digits (8x8, 16 grey levels, written by 43 people) are upscaled to random sizes and pasted onto
textured, noisy backgrounds at random positions, several per image; some overlap a little and
some are cut by the image's border. Every box is tight around the visible ink. The same ``seed``
gives the same scenes, pixel for pixel.

``digit_scenes`` returns the images and boxes in memory; ``write_manifest`` writes PNGs and the
dataset-version manifest a detector trains on (worker-only tests and benchmarks);
``write_scenes`` writes a COCO, VOC or YOLO layout (what a user would upload).

e.g. ``image, boxes = digit_scenes(1, size=96, seed=3)[0]`` -> a 96x96 RGB image and
``[{"label": 7, "x": 12.0, "y": 40.0, "width": 22.0, "height": 30.0}, ...]``.

scikit-learn is a test dependency: it is imported when scenes are made, not with this module.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from PIL import Image

from workers.contracts.annotations import (
    ANNOTATIONS_VERSION,
    AnnotationRecord,
    DetectionBox,
    DetectionManifest,
    DetectionSample,
    InterchangeImage,
    InterchangeSet,
)
from workers.contracts.manifest import SplitName

SceneClasses = Literal["digits", "one"]
Scene = tuple[Image.Image, list[DetectionBox]]

DIGIT_CLASSES = [str(d) for d in range(10)]
ONE_CLASS = ["digit"]

# A glyph's side as a fraction of the image's side; its aspect ratio varies by this factor.
GLYPH_SIDE = (0.2, 0.4)
GLYPH_ASPECT = (0.8, 1.2)
# Ink above this opacity counts as the digit (the box is tight around it).
INK_THRESHOLD = 0.25
# At most this fraction of a glyph may fall outside the image (digits "near the border").
MAX_CUT = 0.15
# A new digit may overlap an earlier one up to this IoU, and cover at most this fraction of the
# smaller of the two boxes (some overlap, none hidden).
MAX_OVERLAP_IOU = 0.3
MAX_COVERED = 0.4
PLACEMENT_ATTEMPTS = 30
# Noisy scenes hardly compress: zlib's fastest level writes them several times faster, a little larger.
PNG_COMPRESSION = 1


def scene_classes(classes: SceneClasses = "digits") -> list[str]:
    """The class names of scenes made with ``classes``: the ten digits, or one class "digit"."""
    return list(DIGIT_CLASSES if classes == "digits" else ONE_CLASS)


@functools.cache
def _digits() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits  # type: ignore[import-untyped]

    digits = load_digits()
    return (digits.images / 16.0).astype(np.float32), digits.target.astype(np.int64)


def _value_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Smooth noise in [0, 1]: a coarse random grid upscaled bicubically (one octave of texture)."""
    grid = rng.random((cells, cells), dtype=np.float32)
    upscaled = Image.fromarray(grid, mode="F").resize((size, size), Image.Resampling.BICUBIC)
    return np.clip(np.asarray(upscaled, dtype=np.float32), 0.0, 1.0)


def _background(rng: np.random.Generator, size: int) -> np.ndarray:
    """An H x W x 3 float image: a tinted base, two octaves of texture and a soft gradient."""
    base = rng.uniform(0.2, 0.8)
    tint = rng.uniform(-0.1, 0.1, size=3).astype(np.float32)
    texture = 0.6 * _value_noise(rng, size, max(3, size // 24)) + 0.4 * _value_noise(
        rng, size, max(4, size // 8)
    )
    ramp = np.linspace(-1.0, 1.0, size, dtype=np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    gradient = np.cos(angle) * ramp[None, :] + np.sin(angle) * ramp[:, None]
    luminance = base + rng.uniform(0.1, 0.25) * (texture - 0.5) + rng.uniform(0.0, 0.1) * gradient
    background: np.ndarray = np.clip(luminance[..., None] + tint[None, None, :], 0.0, 1.0)
    return background


def _glyph(rng: np.random.Generator, pixels: np.ndarray, size: int) -> np.ndarray:
    """The digit's opacity upscaled to a random size and aspect ratio (values in [0, 1])."""
    side = rng.uniform(*GLYPH_SIDE) * size
    aspect = rng.uniform(*GLYPH_ASPECT)
    width = max(6, round(side * min(1.0, aspect)))
    height = max(6, round(side / max(1.0, aspect)))
    resized = Image.fromarray(pixels, mode="F").resize((width, height), Image.Resampling.BICUBIC)
    return np.clip(np.asarray(resized, dtype=np.float32), 0.0, 1.0)


def _overlap_allowed(a: DetectionBox, b: DetectionBox) -> bool:
    left, top = max(a["x"], b["x"]), max(a["y"], b["y"])
    right = min(a["x"] + a["width"], b["x"] + b["width"])
    bottom = min(a["y"] + a["height"], b["y"] + b["height"])
    inter = max(0.0, right - left) * max(0.0, bottom - top)
    area_a, area_b = a["width"] * a["height"], b["width"] * b["height"]
    return inter <= MAX_OVERLAP_IOU * (area_a + area_b - inter) and inter <= MAX_COVERED * min(area_a, area_b)


def _place(
    rng: np.random.Generator, glyph: np.ndarray, size: int, placed: list[DetectionBox], label: int
) -> tuple[int, int, DetectionBox] | None:
    """A position for ``glyph`` (top-left, may be slightly outside) and the box of its visible ink,
    or None when no attempt keeps the overlap with earlier digits small."""
    height, width = glyph.shape
    ink = glyph > INK_THRESHOLD
    for _ in range(PLACEMENT_ATTEMPTS):
        left = int(rng.integers(-int(width * MAX_CUT), size - int(width * (1 - MAX_CUT)) + 1))
        top = int(rng.integers(-int(height * MAX_CUT), size - int(height * (1 - MAX_CUT)) + 1))
        visible = ink[max(0, -top) : size - top, max(0, -left) : size - left]
        rows, cols = np.flatnonzero(visible.any(axis=1)), np.flatnonzero(visible.any(axis=0))
        if len(rows) == 0 or len(cols) == 0:
            continue
        box: DetectionBox = {
            "label": label,
            "x": float(max(0, left) + cols[0]),
            "y": float(max(0, top) + rows[0]),
            "width": float(cols[-1] - cols[0] + 1),
            "height": float(rows[-1] - rows[0] + 1),
        }
        if box["width"] < 4 or box["height"] < 4:
            continue
        if all(_overlap_allowed(box, other) for other in placed):
            return left, top, box
    return None


def _paste(canvas: np.ndarray, glyph: np.ndarray, left: int, top: int, ink: np.ndarray) -> None:
    size = canvas.shape[0]
    y0, x0 = max(0, top), max(0, left)
    y1, x1 = min(size, top + glyph.shape[0]), min(size, left + glyph.shape[1])
    alpha = glyph[y0 - top : y1 - top, x0 - left : x1 - left, None]
    region = canvas[y0:y1, x0:x1]
    canvas[y0:y1, x0:x1] = region * (1 - alpha) + ink[None, None, :] * alpha


def _scene(
    rng: np.random.Generator, size: int, digits_per_image: tuple[int, int], classes: SceneClasses
) -> Scene:
    images, targets = _digits()
    canvas = _background(rng, size)
    boxes: list[DetectionBox] = []
    for _ in range(int(rng.integers(digits_per_image[0], digits_per_image[1] + 1))):
        index = int(rng.integers(len(images)))
        glyph = _glyph(rng, images[index], size) * rng.uniform(0.85, 1.0)
        label = int(targets[index]) if classes == "digits" else 0
        placement = _place(rng, glyph, size, boxes, label)
        if placement is None:
            continue
        left, top, box = placement
        # Ink contrasts with the background under it: dark on light, light on dark, tinted.
        under = float(canvas[max(0, top) : top + glyph.shape[0], max(0, left) : left + glyph.shape[1]].mean())
        shade = under - rng.uniform(0.4, 0.6) if under > 0.5 else under + rng.uniform(0.4, 0.6)
        ink = np.clip(shade + rng.uniform(-0.08, 0.08, size=3), 0.0, 1.0).astype(np.float32)
        _paste(canvas, glyph, left, top, ink)
        boxes.append(box)
    canvas += rng.normal(0.0, rng.uniform(0.01, 0.05), size=canvas.shape).astype(np.float32)
    pixels = (np.clip(canvas, 0.0, 1.0) * 255).round().astype(np.uint8)
    return Image.fromarray(pixels, mode="RGB"), boxes


def digit_scenes(
    n: int,
    *,
    size: int = 128,
    seed: int = 0,
    digits_per_image: tuple[int, int] = (1, 4),
    classes: SceneClasses = "digits",
) -> list[Scene]:
    """``n`` square RGB scenes of ``size`` pixels, each with ``digits_per_image`` digits (inclusive
    range; a digit that finds no place with little overlap is left out, so rarely fewer) and their
    boxes. ``classes="digits"`` labels boxes 0-9 by digit; ``"one"`` labels every box 0 ("digit")."""
    if n < 0 or size < 16:
        raise ValueError("digit_scenes needs n >= 0 and size >= 16")
    low, high = digits_per_image
    if not 0 <= low <= high:
        raise ValueError(
            f"digits_per_image must be (low, high) with 0 <= low <= high, not {digits_per_image}"
        )
    rng = np.random.default_rng(seed)
    return [_scene(rng, size, digits_per_image, classes) for _ in range(n)]


def _split_names(n: int, splits: tuple[float, float, float]) -> list[SplitName]:
    if len(splits) != 3 or min(splits) < 0 or abs(sum(splits) - 1.0) > 1e-6:
        raise ValueError(f"splits must be three fractions (train, val, test) summing to 1, not {splits}")
    n_train = round(n * splits[0])
    n_val = min(n - n_train, round(n * splits[1]))
    train: list[SplitName] = ["train"]
    val: list[SplitName] = ["val"]
    test: list[SplitName] = ["test"]
    return train * n_train + val * n_val + test * (n - n_train - n_val)


def write_manifest(
    scenes: Sequence[Scene],
    out_dir: Path,
    splits: tuple[float, float, float] = (0.7, 0.15, 0.15),
    *,
    classes: SceneClasses = "digits",
) -> DetectionManifest:
    """Write the scenes as PNGs under ``out_dir`` and return their detection manifest: the first
    ``splits[0]`` of them train, the next ``splits[1]`` val, the rest test (scenes are random, so
    the order is). Sample ids are the scenes' positions."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    samples: list[DetectionSample] = []
    for index, ((image, boxes), split) in enumerate(
        zip(scenes, _split_names(len(scenes), splits), strict=True)
    ):
        path = out_dir / f"scene-{index:05d}.png"
        image.save(path, compress_level=PNG_COMPRESSION)
        samples.append(
            {
                "id": index,
                "path": str(path),
                "width": image.width,
                "height": image.height,
                "boxes": [DetectionBox(**box) for box in boxes],
                "split": split,
            }
        )
    return {
        "kind": "detection",
        "version": ANNOTATIONS_VERSION,
        "classes": scene_classes(classes),
        "samples": samples,
    }


def scenes_as_interchange(
    scenes: Sequence[Scene], *, classes: SceneClasses = "digits", prefix: str = "scene"
) -> InterchangeSet:
    """The scenes as an interchange set (files ``<prefix>-00000.png`` ...; a scene without digits is
    ``no_objects``), as a parser would have read them."""
    names = scene_classes(classes)
    images: list[InterchangeImage] = []
    for index, (image, boxes) in enumerate(scenes):
        annotations: list[AnnotationRecord] = [
            {
                "kind": "box",
                "label": names[box["label"]],
                "geometry": {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]},
            }
            for box in boxes
        ]
        images.append(
            {
                "file": f"{prefix}-{index:05d}.png",
                "width": image.width,
                "height": image.height,
                "status": "annotated" if annotations else "no_objects",
                "annotations": annotations,
            }
        )
    return {"format": "coco", "classes": names, "images": images, "problems": []}


def write_scenes(
    scenes: Sequence[Scene],
    out_dir: Path,
    format: Literal["coco", "voc", "yolo"],
    *,
    classes: SceneClasses = "digits",
) -> InterchangeSet:
    """Write the scenes in an interchange layout under ``out_dir`` (what a user would upload: COCO
    ``annotations.json`` + ``images/``, VOC ``Annotations/`` + ``JPEGImages/``, YOLO ``images/`` +
    ``labels/`` + ``classes.txt`` and ``data.yaml``) and return the set written."""
    from workers.annotation_formats import write_directory

    interchange = scenes_as_interchange(scenes, classes=classes)
    with tempfile.TemporaryDirectory(prefix="sampan-scenes-") as staging:
        for (image, _), entry in zip(scenes, interchange["images"], strict=True):
            image.save(Path(staging) / entry["file"], compress_level=PNG_COMPRESSION)
        write_directory(interchange, Path(out_dir), format, lambda file: Path(staging) / file)
    return interchange
