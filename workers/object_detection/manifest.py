"""The detection training data spec (``workers.contracts.annotations.DetectionManifest``) and its checks.

No torch here: the web process may check a manifest before it queues a job. Samples with no boxes
(``no_objects``) are kept: they teach the model what background looks like.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workers.contracts.annotations import DetectionManifest
from workers.image_classification.manifest import SPLITS, ManifestError, portable_paths
from workers.object_detection.template import MIN_BOXES_PER_CLASS

__all__ = ["SPLITS", "Manifest", "ManifestError", "Sample", "check_manifest", "parse_manifest"]


@dataclass(frozen=True)
class Sample:
    index: int
    path: str
    width: int
    height: int
    boxes: tuple[tuple[int, float, float, float, float], ...]  # (label, x, y, width, height)
    split: str
    id: str | int | None = None

    @property
    def ref(self) -> str | int:
        """How reports refer to this sample: its ``id`` when given, else its position."""
        return self.index if self.id is None else self.id


@dataclass(frozen=True)
class Manifest:
    classes: tuple[str, ...]
    samples: tuple[Sample, ...]

    def split(self, name: str) -> list[Sample]:
        return [s for s in self.samples if s.split == name]

    def counts(self) -> dict[str, list[int]]:
        """Boxes per class in each split."""
        counts = {split: [0] * len(self.classes) for split in SPLITS}
        for sample in self.samples:
            for box in sample.boxes:
                counts[sample.split][box[0]] += 1
        return counts

    def fingerprint(self) -> str:
        """A digest of classes, paths, boxes and splits: a checkpoint belongs to one manifest (paths
        relative to their common folder, so another host's cached copy of the data matches)."""
        paths = portable_paths([s.path for s in self.samples])
        canonical = json.dumps(
            [
                list(self.classes),
                [[p, [list(b) for b in s.boxes], s.split] for p, s in zip(paths, self.samples, strict=True)],
            ],
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).hexdigest()

    def summary(self) -> dict[str, Any]:
        images = {split: 0 for split in SPLITS}
        for sample in self.samples:
            images[sample.split] += 1
        return {
            "classes": list(self.classes),
            "samples": len(self.samples),
            "counts": self.counts(),
            "images": images,
        }


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def parse_manifest(
    manifest: DetectionManifest, *, check_files: bool = True, min_boxes_per_class: int = MIN_BOXES_PER_CLASS
) -> Manifest:
    """Validate a detection manifest and return it typed; raises :class:`ManifestError` naming the
    problem (and the sample and box)."""
    if not isinstance(manifest, Mapping) or manifest.get("kind", "detection") != "detection":
        raise ManifestError(
            "the manifest must be a detection manifest (kind 'detection') with classes and samples"
        )
    classes = manifest.get("classes")
    if (
        not isinstance(classes, list | tuple)
        or not classes
        or not all(isinstance(c, str) and c.strip() for c in classes)
    ):
        raise ManifestError("'classes' must be a non-empty list of non-empty class names")
    duplicates = sorted({c for c in classes if classes.count(c) > 1})
    if duplicates:
        raise ManifestError(f"class names must be unique; repeated: {', '.join(duplicates)}")
    raw_samples = manifest.get("samples")
    if not isinstance(raw_samples, list | tuple) or not raw_samples:
        raise ManifestError("'samples' must be a non-empty list")
    samples = []
    for index, raw in enumerate(raw_samples):
        where = f"samples[{index}]"
        if not isinstance(raw, Mapping):
            raise ManifestError(f"{where} must be an object with path, width, height, boxes and split")
        path, split, ref = raw.get("path"), raw.get("split"), raw.get("id")
        width, height = raw.get("width"), raw.get("height")
        if not isinstance(path, str) or not path:
            raise ManifestError(f"{where}.path must be a file path")
        if split not in SPLITS:
            raise ManifestError(f"{where}.split must be one of {', '.join(SPLITS)}, got {split!r}")
        if ref is not None and (isinstance(ref, bool) or not isinstance(ref, str | int)):
            raise ManifestError(f"{where}.id must be a string or an integer, got {ref!r}")
        for name, value in (("width", width), ("height", height)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ManifestError(f"{where}.{name} must be a positive integer (pixels), got {value!r}")
        assert isinstance(width, int) and isinstance(height, int)
        raw_boxes = raw.get("boxes")
        if not isinstance(raw_boxes, list | tuple):
            raise ManifestError(f"{where}.boxes must be a list (empty for an image with no objects)")
        boxes = []
        for b, box in enumerate(raw_boxes):
            at = f"{where}.boxes[{b}]"
            if not isinstance(box, Mapping):
                raise ManifestError(f"{at} must be an object with label, x, y, width and height")
            label = box.get("label")
            if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(classes):
                raise ManifestError(
                    f"{at}.label must be a class index in 0..{len(classes) - 1}, got {label!r}"
                )
            values = [box.get(k) for k in ("x", "y", "width", "height")]
            if not all(_number(v) for v in values):
                raise ManifestError(f"{at}: x, y, width and height must be numbers, got {values!r}")
            x, y, w, h = (float(v) for v in values)  # type: ignore[arg-type]
            if w <= 0 or h <= 0:
                raise ManifestError(f"{at} has zero or negative size ({w} x {h})")
            if x < -0.5 or y < -0.5 or x + w > width + 0.5 or y + h > height + 0.5:
                raise ManifestError(f"{at} ({x}, {y}, {w} x {h}) lies outside the {width} x {height} image")
            boxes.append((label, x, y, w, h))
        samples.append(
            Sample(
                index=index, path=path, width=width, height=height, boxes=tuple(boxes), split=split, id=ref
            )
        )
    parsed = Manifest(classes=tuple(classes), samples=tuple(samples))
    counts = parsed.counts()
    if not parsed.split("train"):
        raise ManifestError("the train split is empty")
    for label, name in enumerate(classes):
        total = sum(counts[split][label] for split in SPLITS)
        if total < min_boxes_per_class:
            raise ManifestError(
                f"class {name!r} has {total} box{'es' if total != 1 else ''}; "
                f"at least {min_boxes_per_class} are needed"
            )
        if counts["train"][label] == 0:
            raise ManifestError(f"class {name!r} has no boxes in the train split")
    if check_files:
        missing = [s.path for s in samples if not os.path.isfile(s.path)]
        if missing:
            shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            raise ManifestError(
                f"{len(missing)} image file{'s are' if len(missing) > 1 else ' is'} missing: {shown}"
            )
    return parsed


def check_manifest(manifest: DetectionManifest, *, check_files: bool = False) -> dict[str, Any]:
    """The template's ``check_data`` entry point: validate before queueing a job.

    Returns ``{"classes": [...], "samples": n, "counts": {"train": [boxes per class], "val": [...],
    "test": [...]}, "images": {"train": n, ...}}``; raises :class:`ManifestError` for a 400 answer.
    """
    return parse_manifest(manifest, check_files=check_files).summary()
