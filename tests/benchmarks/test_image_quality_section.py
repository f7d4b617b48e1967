"""The image section of the model-quality suite: its datasets build offline and deterministically,
and its classical baseline (HOG + pixels, RBF SVM) beats chance on the test split it never saw."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from benchmarks.quality import core, images
from workers.image_classification.manifest import parse_manifest


def _digests(manifest: dict) -> list[str]:
    return [hashlib.sha256(Path(s["path"]).read_bytes()).hexdigest() for s in manifest["samples"]]


def test_the_datasets_build_the_same_files_twice_and_are_valid_manifests(tmp_path):
    for build in (images.build_digits, images.build_digits_cluttered):
        first = build(tmp_path / f"{build.__name__}-a", per_class=5)
        second = build(tmp_path / f"{build.__name__}-b", per_class=5)
        assert first["classes"] == [str(d) for d in range(10)] and len(first["samples"]) == 50
        assert _digests(first) == _digests(second)
        assert [s["label"] for s in first["samples"]] == [s["label"] for s in second["samples"]]
        parsed = parse_manifest(first, check_files=True)  # what the trainer accepts
        assert parsed.counts()["train"] == [5] * 10
    names = {d.name for d in images.DATASETS}
    assert names == {"digits", "digits_cluttered"}
    assert all(d.template == "image_classification" for d in images.DATASETS)


def test_cluttered_digits_are_colour_images_that_differ_from_the_plain_ones(tmp_path):
    from PIL import Image

    manifest = images.build_digits_cluttered(tmp_path, per_class=2)
    with Image.open(manifest["samples"][0]["path"]) as image:
        assert image.mode == "RGB" and image.size == (32, 32)
        pixels = np.asarray(image, dtype=np.float32)
    assert pixels.std(axis=(0, 1)).min() > 10  # a cluttered background, not a flat one


def test_the_baseline_beats_chance_without_seeing_the_test_labels(tmp_path):
    manifest = images.build_digits(tmp_path, per_class=15)
    split = core.split(manifest, 0)
    record = core.run_baseline(images.BASELINES[0], "image_classification", split, 0)
    assert record["metrics"]["accuracy"] > 0.6  # chance is 0.1
    features = images.image_features(images._read([s["path"] for s in split["samples"][:3]]))
    assert features.shape[0] == 3 and np.isfinite(features).all()
