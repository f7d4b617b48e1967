"""The image section of the model-quality suite: datasets built offline as PNG files, and a strong
classical baseline (pixels + histograms of oriented gradients, an RBF SVM tuned by internal CV).

- ``digits``: scikit-learn's 1,797 handwritten 8x8 digits, upscaled to 32x32 grey PNGs.
- ``digits_cluttered``: 1,500 of those digits (150 per class) drawn at a random scale, rotation,
  position and colour onto 32x32 colour backgrounds cluttered with strokes, blobs and fragments of
  other digits: the same ten classes, much harder for features that look at fixed pixels.

Both are deterministic (numpy seeds and Pillow drawing only; no fonts, no downloads).

e.g.::

    from benchmarks.quality import core, images
    results = core.run("images", images.DATASETS, images.BASELINES, presets=("fast",), seeds=(0,))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from benchmarks.quality.core import Baseline, Dataset

TEMPLATE = "image_classification"
CLASSES = [str(d) for d in range(10)]
SIZE = 32  # side of every PNG written
FEATURE_SIZE = 32  # images are read back at this size for the baseline


def _digits() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits  # type: ignore[import-untyped]

    digits = load_digits()
    return digits.images, digits.target


def _manifest(samples: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "image", "version": 1, "classes": list(CLASSES), "samples": samples}


def build_digits(root: Path, *, per_class: int | None = None) -> dict[str, Any]:
    """Write the digits as 32x32 grey PNGs under ``root`` (``per_class``: the first n of each class,
    for tests) and return their manifest (every sample in ``train``; the runner splits)."""
    images, target = _digits()
    samples = []
    for label in range(10):
        folder = root / CLASSES[label]
        folder.mkdir(parents=True, exist_ok=True)
        indices = np.flatnonzero(target == label)[:per_class]
        for index in indices:
            pixels = (images[index] * (255 / 16)).round().astype(np.uint8)
            path = folder / f"{index:04d}.png"
            Image.fromarray(pixels, mode="L").resize((SIZE, SIZE), Image.Resampling.BILINEAR).save(path)
            samples.append({"id": int(index), "path": str(path), "label": label, "split": "train"})
    return _manifest(samples)


def _random_colour(rng: np.random.Generator, low: int = 0, high: int = 256) -> tuple[int, int, int]:
    r, g, b = (int(v) for v in rng.integers(low, high, size=3))
    return r, g, b


def _digit_layer(pixels: np.ndarray, side: int, angle: float) -> Image.Image:
    """An 8x8 digit (0..16) as a ``side`` x ``side`` mask (L), rotated by ``angle`` degrees."""
    mask = Image.fromarray((pixels * (255 / 16)).round().astype(np.uint8), mode="L")
    mask = mask.resize((side, side), Image.Resampling.BILINEAR)
    return mask.rotate(angle, resample=Image.Resampling.BILINEAR, expand=True)


def _cluttered(
    rng: np.random.Generator, digit: np.ndarray, distractors: Sequence[np.ndarray], size: int
) -> Image.Image:
    base = np.asarray(_random_colour(rng, 0, 256), dtype=np.float32)
    # a smooth colour gradient plus pixel noise as the background
    ramp = np.linspace(-1.0, 1.0, size, dtype=np.float32)
    direction = rng.normal(size=(2, 3)).astype(np.float32) * 40
    background = (
        base[None, None, :]
        + ramp[:, None, None] * direction[0][None, None, :]
        + ramp[None, :, None] * direction[1][None, None, :]
        + rng.normal(0, 18, size=(size, size, 3)).astype(np.float32)
    )
    canvas = Image.fromarray(np.clip(background, 0, 255).astype(np.uint8), mode="RGB")
    draw = ImageDraw.Draw(canvas)
    for _ in range(int(rng.integers(2, 5))):  # strokes and blobs
        x0, y0, x1, y1 = (int(v) for v in rng.integers(-4, size + 4, size=4))
        if rng.random() < 0.5:
            draw.line((x0, y0, x1, y1), fill=_random_colour(rng), width=int(rng.integers(1, 3)))
        else:
            box = (min(x0, x1), min(y0, y1), min(x0, x1) + int(rng.integers(3, 9)), min(y0, y1) + 6)
            draw.ellipse(box, fill=_random_colour(rng))
    for other in distractors:  # a fragment of another digit, small and partly off the canvas
        fragment = _digit_layer(other, int(rng.integers(10, 16)), float(rng.uniform(0, 360)))
        position = (int(rng.integers(-8, size - 4)), int(rng.integers(-8, size - 4)))
        canvas.paste(Image.new("RGB", fragment.size, _random_colour(rng)), position, fragment)
    # the digit itself: random scale, rotation, position and a colour apart from the background's
    side = int(rng.integers(16, 27))
    mask = _digit_layer(digit, side, float(rng.uniform(-30, 30)))
    colour = np.asarray(_random_colour(rng), dtype=np.float32)
    if np.abs(colour - base).sum() < 200:  # keep it visible: push the colour away from the background
        colour = np.where(base > 127, colour * 0.3, 255 - (255 - colour) * 0.3)
    slack_x, slack_y = max(0, size - mask.size[0]), max(0, size - mask.size[1])
    position = (int(rng.integers(0, slack_x + 1)), int(rng.integers(0, slack_y + 1)))
    ink = Image.new("RGB", mask.size, tuple(int(c) for c in colour))
    canvas.paste(ink, position, mask)
    return canvas


def build_digits_cluttered(root: Path, *, per_class: int = 150, seed: int = 19) -> dict[str, Any]:
    """Write ``per_class`` cluttered digits per class as 32x32 RGB PNGs under ``root`` and return
    their manifest. The same ``seed`` writes the same images."""
    images, target = _digits()
    rng = np.random.default_rng(seed)
    samples = []
    for label in range(10):
        folder = root / CLASSES[label]
        folder.mkdir(parents=True, exist_ok=True)
        indices = np.flatnonzero(target == label)
        for position in range(per_class):
            index = int(indices[position % len(indices)])
            others = rng.choice(np.flatnonzero(target != label), size=int(rng.integers(0, 3)), replace=False)
            image = _cluttered(rng, images[index], [images[o] for o in others], SIZE)
            path = folder / f"{position:04d}.png"
            image.save(path)
            samples.append({"id": f"{label}-{position}", "path": str(path), "label": label, "split": "train"})
    return _manifest(samples)


# ---------------------------------------------------------------------------------------------- baseline


def _read(paths: Sequence[str], size: int = FEATURE_SIZE) -> np.ndarray:
    """Images as float32 [n, size, size, 3] in 0..1."""
    out = np.empty((len(paths), size, size, 3), dtype=np.float32)
    for i, path in enumerate(paths):
        with Image.open(path) as image:
            rgb = image.convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
        out[i] = np.asarray(rgb, dtype=np.float32) / 255.0
    return out


def hog_features(images: np.ndarray, *, cell: int = 4, bins: int = 9) -> np.ndarray:
    """Histograms of oriented gradients (unsigned, ``bins`` orientations per ``cell`` x ``cell``
    cell, each 2x2 block of cells L2-normalised, Dalal-Triggs style) of [n, h, w, 3] images in 0..1;
    the gradient of each pixel is the strongest over its colour channels."""
    gy, gx = np.gradient(images, axis=(1, 2))
    magnitude = np.hypot(gx, gy)
    strongest = magnitude.argmax(axis=3)[..., None]
    gx = np.take_along_axis(gx, strongest, axis=3)[..., 0]
    gy = np.take_along_axis(gy, strongest, axis=3)[..., 0]
    magnitude = np.take_along_axis(magnitude, strongest, axis=3)[..., 0]
    angle = np.mod(np.arctan2(gy, gx), np.pi)  # unsigned orientation in [0, pi)
    position = angle / np.pi * bins
    low = np.floor(position).astype(np.int64) % bins
    high = (low + 1) % bins
    share = position - np.floor(position)
    n, h, w = magnitude.shape
    cells_y, cells_x = h // cell, w // cell
    histograms = np.zeros((n, cells_y, cells_x, bins), dtype=np.float32)
    cy = (np.arange(h) // cell).clip(max=cells_y - 1)
    cx = (np.arange(w) // cell).clip(max=cells_x - 1)
    flat_cell = (cy[:, None] * cells_x + cx[None, :]).reshape(-1)
    for b, weight in ((low, 1 - share), (high, share)):  # linear interpolation between two bins
        index = (flat_cell[None, :] * bins + b.reshape(n, -1)).astype(np.int64)
        values = (magnitude * weight).reshape(n, -1)
        flat = histograms.reshape(n, -1)
        for i in range(n):
            flat[i] += np.bincount(index[i], weights=values[i], minlength=flat.shape[1]).astype(np.float32)
    blocks = np.concatenate(
        [
            histograms[:, :-1, :-1],
            histograms[:, 1:, :-1],
            histograms[:, :-1, 1:],
            histograms[:, 1:, 1:],
        ],
        axis=3,
    )  # [n, cells_y - 1, cells_x - 1, 4 * bins]
    blocks /= np.sqrt((blocks**2).sum(axis=3, keepdims=True) + 1e-6)
    blocks = np.minimum(blocks, 0.2)  # clip and renormalise (L2-Hys)
    blocks /= np.sqrt((blocks**2).sum(axis=3, keepdims=True) + 1e-6)
    return blocks.reshape(n, -1)


def image_features(images: np.ndarray) -> np.ndarray:
    """HOG at two cell sizes plus 16x16 grey pixels (standardised per image)."""
    n = len(images)
    grey = images.mean(axis=3)
    small = grey.reshape(n, 16, grey.shape[1] // 16, 16, grey.shape[2] // 16).mean(axis=(2, 4)).reshape(n, -1)
    small = (small - small.mean(axis=1, keepdims=True)) / (small.std(axis=1, keepdims=True) + 1e-6)
    return np.concatenate(
        [hog_features(images, cell=4), hog_features(images, cell=8), small * 0.1], axis=1
    ).astype(np.float32)


def hog_svm_fit_predict(manifest: Mapping[str, Any], seed: int) -> np.ndarray:
    """Fit the HOG + pixels RBF SVM on the train and val samples (C and gamma chosen by 3-fold CV on
    them) and return class indices for the test samples in manifest order."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold  # type: ignore[import-untyped]
    from sklearn.pipeline import make_pipeline  # type: ignore[import-untyped]
    from sklearn.preprocessing import StandardScaler  # type: ignore[import-untyped]
    from sklearn.svm import SVC  # type: ignore[import-untyped]

    fit = [s for s in manifest["samples"] if s["split"] in ("train", "val")]
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    x_fit = image_features(_read([s["path"] for s in fit]))
    y_fit = np.asarray([s["label"] for s in fit], dtype=np.int64)
    x_test = image_features(_read([s["path"] for s in test]))
    folds = max(2, min(3, int(np.bincount(y_fit).min())))
    search = GridSearchCV(
        make_pipeline(StandardScaler(), SVC(kernel="rbf")),
        {"svc__C": [1.0, 3.0, 10.0, 30.0], "svc__gamma": ["scale"]},
        cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
        n_jobs=1,
    )
    search.fit(x_fit, y_fit)
    predicted: np.ndarray = search.predict(x_test)
    return predicted.astype(np.int64)


DATASETS: tuple[Dataset, ...] = (
    Dataset(
        name="digits",
        template=TEMPLATE,
        source="scikit-learn's bundled handwritten digits (1,797 8x8 images, 10 classes), written as "
        "32x32 grey PNGs",
        build=build_digits,
    ),
    Dataset(
        name="digits_cluttered",
        template=TEMPLATE,
        source="generated (benchmarks/quality/images.py): 1,500 of those digits at a random scale, "
        "rotation, position and colour on 32x32 colour backgrounds cluttered with strokes, blobs "
        "and fragments of other digits",
        build=build_digits_cluttered,
    ),
)

BASELINES: tuple[Baseline, ...] = (
    Baseline(
        name="hog_svm",
        title="histograms of oriented gradients (two cell sizes) + 16x16 pixels, RBF SVM with C "
        "chosen by 3-fold CV on train + val (scikit-learn)",
        templates=(TEMPLATE,),
        fit_predict=hog_svm_fit_predict,
    ),
)
