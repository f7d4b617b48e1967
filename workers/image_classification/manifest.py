"""The training data spec: a manifest of labeled image files on local disk, and its checks.

A manifest is a JSON-able dict::

    {"classes": ["cat", "dog"],
     "samples": [{"path": "/data/v3/a1b2.png", "label": 0, "split": "train", "id": 17}, ...]}

``label`` indexes ``classes``; ``split`` is ``train``, ``val`` or ``test``; ``id`` is optional (any
string or integer, e.g. the platform's sample id) and is echoed back in evaluation reports, which
otherwise refer to a sample by its position in ``samples``. Images may be in any format Pillow
reads; they are converted to RGB. No torch here: the web process may check a manifest before it
queues a job.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workers.contracts.manifest import ImageManifest
from workers.image_classification.template import MIN_SAMPLES_PER_CLASS

SPLITS = ("train", "val", "test")


class ManifestError(ValueError):
    """The manifest cannot be trained on; the message names the problem (and the sample, if one)."""


@dataclass(frozen=True)
class Sample:
    index: int
    path: str
    label: int
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
        counts = {split: [0] * len(self.classes) for split in SPLITS}
        for sample in self.samples:
            counts[sample.split][sample.label] += 1
        return counts

    def fingerprint(self) -> str:
        """A digest of classes, paths, labels and splits: a checkpoint belongs to one manifest. Paths
        count relative to their common folder (``portable_paths``), so the same data cached under
        another host's SAMPAN_HOME has the same fingerprint and a moved job resumes there."""
        paths = portable_paths([s.path for s in self.samples])
        canonical = json.dumps(
            [list(self.classes), [[p, s.label, s.split] for p, s in zip(paths, self.samples, strict=True)]],
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).hexdigest()

    def summary(self) -> dict[str, Any]:
        return {"classes": list(self.classes), "samples": len(self.samples), "counts": self.counts()}


def portable_paths(paths: list[str]) -> list[str]:
    """``paths`` relative to the folder they all share: ``/a/cache/s/1.png`` and ``/b/cache/s/1.png``
    (one host's copy and another's) give the same list.

    >>> portable_paths(["/h1/cache/samples/ab/ab1.png", "/h1/cache/samples/cd/cd2.png"])
    ['ab/ab1.png', 'cd/cd2.png']
    """
    if not paths:
        return []
    try:
        root = os.path.commonpath(paths)
    except ValueError:  # absolute and relative paths mixed: keep them as given
        return list(paths)
    if len(set(paths)) == 1:
        root = os.path.dirname(root)
    return [os.path.relpath(path, root) for path in paths]


def parse_manifest(
    manifest: ImageManifest,
    *,
    check_files: bool = True,
    min_samples_per_class: int = MIN_SAMPLES_PER_CLASS,
    min_classes: int = 2,
    required_splits: tuple[str, ...] = ("train",),
) -> Manifest:
    """Validate a manifest dict and return it typed; raises :class:`ManifestError`."""
    if not isinstance(manifest, Mapping):
        raise ManifestError(
            f"the manifest must be an object with 'classes' and 'samples', got {type(manifest).__name__}"
        )
    classes = manifest.get("classes")
    if not isinstance(classes, list | tuple) or not all(isinstance(c, str) and c.strip() for c in classes):
        raise ManifestError("'classes' must be a list of non-empty class names")
    duplicates = sorted({c for c in classes if classes.count(c) > 1})
    if duplicates:
        raise ManifestError(f"class names must be unique; repeated: {', '.join(duplicates)}")
    if len(classes) < min_classes:
        raise ManifestError(f"at least {min_classes} classes are needed, the manifest has {len(classes)}")
    raw_samples = manifest.get("samples")
    if not isinstance(raw_samples, list | tuple) or not raw_samples:
        raise ManifestError("'samples' must be a non-empty list")
    samples = []
    for index, raw in enumerate(raw_samples):
        where = f"samples[{index}]"
        if not isinstance(raw, Mapping):
            raise ManifestError(f"{where} must be an object with path, label and split")
        path, label, split, ref = raw.get("path"), raw.get("label"), raw.get("split"), raw.get("id")
        if not isinstance(path, str) or not path:
            raise ManifestError(f"{where}.path must be a file path")
        if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(classes):
            raise ManifestError(
                f"{where}.label must be an integer class index in 0..{len(classes) - 1}, got {label!r}"
            )
        if split not in SPLITS:
            raise ManifestError(f"{where}.split must be one of {', '.join(SPLITS)}, got {split!r}")
        if ref is not None and (isinstance(ref, bool) or not isinstance(ref, str | int)):
            raise ManifestError(f"{where}.id must be a string or an integer, got {ref!r}")
        samples.append(Sample(index=index, path=path, label=label, split=split, id=ref))
    parsed = Manifest(classes=tuple(classes), samples=tuple(samples))

    counts = parsed.counts()
    for required in required_splits:
        if not sum(counts[required]):
            raise ManifestError(f"the {required} split is empty")
    for label, name in enumerate(classes):
        total = sum(counts[split][label] for split in SPLITS)
        if total < min_samples_per_class:
            raise ManifestError(
                f"class {name!r} has {total} labeled sample{'s' if total != 1 else ''}; "
                f"at least {min_samples_per_class} are needed"
            )
        if "train" in required_splits and counts["train"][label] == 0:
            raise ManifestError(f"class {name!r} has no samples in the train split")
    if check_files:
        missing = [s.path for s in samples if not os.path.isfile(s.path)]
        if missing:
            shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            raise ManifestError(
                f"{len(missing)} image file{'s are' if len(missing) > 1 else ' is'} missing: {shown}"
            )
    return parsed


def check_manifest(manifest: ImageManifest, *, check_files: bool = False) -> dict[str, Any]:
    """The template's ``check_data`` entry point: validate before queueing a job.

    Returns ``{"classes": [...], "samples": n, "counts": {"train": [per class], "val": [...],
    "test": [...]}}``; raises :class:`ManifestError` with a message fit for a 400 answer.
    """
    return parse_manifest(manifest, check_files=check_files).summary()
