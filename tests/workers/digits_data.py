"""Real images for the compute-plane tests: scikit-learn's bundled digits written as PNG files.

Each 8x8 digit (16 grey levels) becomes a 32x32 grayscale PNG in a folder per class; the manifest
splits them stratified and seeded. The loader converts them to RGB, as it does any upload.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from sklearn.datasets import load_digits

CLASSES = [str(d) for d in range(10)]


def write_digits(
    root: Path,
    *,
    size: int = 32,
    per_class: int | None = None,
    fractions: tuple[float, float] = (0.7, 0.15),
    seed: int = 0,
) -> dict[str, Any]:
    """Write digits PNGs under ``root`` and return the training manifest (train/val/test = 70/15/15 %)."""
    digits = load_digits()
    rng = np.random.default_rng(seed)
    samples: list[dict[str, Any]] = []
    for label in range(10):
        indices = np.flatnonzero(digits.target == label)
        rng.shuffle(indices)
        if per_class is not None:
            indices = indices[:per_class]
        n_train = round(len(indices) * fractions[0])
        n_val = round(len(indices) * fractions[1])
        folder = root / CLASSES[label]
        folder.mkdir(parents=True, exist_ok=True)
        for position, index in enumerate(indices):
            pixels = (digits.images[index] * (255 / 16)).round().astype(np.uint8)
            path = folder / f"{index:04d}.png"
            Image.fromarray(pixels, mode="L").resize((size, size), Image.Resampling.BILINEAR).save(path)
            split = "train" if position < n_train else "val" if position < n_train + n_val else "test"
            samples.append({"path": str(path), "label": label, "split": split, "id": int(index)})
    return {"classes": list(CLASSES), "samples": samples}


@functools.cache
def shared_digits() -> dict[str, Any]:
    """All 1,797 digits, written once per test session into a temporary folder."""
    root = Path(tempfile.mkdtemp(prefix="sampan-digits-"))
    atexit.register(shutil.rmtree, root, True)
    return write_digits(root)


# The shared training run: the configuration the accuracy test states, trained once per session.
# validation="holdout": these tests check the holdout run (val split, per-epoch val_acc); the folds of
# small data are tested in test_image_cross_validation.py
TRAINED_SPEC = {
    "preset": "balanced",
    "image_size": 32,
    "epochs": 6,
    "horizontal_flip": False,
    "validation": "holdout",
}


class Recorder:
    """A ``report`` that keeps every call (and when it came)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        import time

        self.calls.append(
            {
                "message": message,
                "fraction": fraction,
                "milestone": milestone,
                "at": time.monotonic(),
                **metrics,
            }
        )

    def epoch_ends(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["milestone"] and "val_acc" in c]

    def steps(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if not c["milestone"] and "validated" not in c]

    def validations(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if "validated" in c]


@functools.cache
def trained_digits() -> tuple[dict[str, Any], dict[str, Any], Recorder, Path]:
    """(manifest, result, recorder, out_dir) of TRAINED_SPEC on all digits."""
    from workers.image_classification.trainer import train

    manifest = shared_digits()
    out_dir = Path(tempfile.mkdtemp(prefix="sampan-digits-run-"))
    atexit.register(shutil.rmtree, out_dir, True)
    recorder = Recorder()
    result = train(TRAINED_SPEC, manifest, out_dir, recorder)
    return manifest, result, recorder, out_dir
