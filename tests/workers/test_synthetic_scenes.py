"""The digit scenes the detection tests and benchmarks train on: deterministic from the seed, boxes
inside the image around the digits, several digits per image, some overlapping a little, some cut
by the border, and the manifest a detector reads."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from workers.contracts.annotations import DetectionBox
from workers.object_detection.synthetic import (
    GLYPH_SIDE,
    MAX_COVERED,
    MAX_OVERLAP_IOU,
    digit_scenes,
    scene_classes,
    write_manifest,
)

SIZE = 64


@pytest.fixture(scope="module")
def scenes() -> list[tuple[Image.Image, list[DetectionBox]]]:
    return digit_scenes(150, size=SIZE, seed=11)


def _intersection(a: DetectionBox, b: DetectionBox) -> float:
    width = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    height = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(0.0, width) * max(0.0, height)


def test_the_same_seed_gives_the_same_scenes_and_another_seed_others() -> None:
    first, again, other = (digit_scenes(4, size=SIZE, seed=seed) for seed in (5, 5, 6))
    for (image, boxes), (image_again, boxes_again) in zip(first, again, strict=True):
        assert np.array_equal(np.asarray(image), np.asarray(image_again))
        assert boxes == boxes_again
    assert not np.array_equal(np.asarray(first[0][0]), np.asarray(other[0][0]))


def test_scenes_are_rgb_images_with_boxes_inside_them(scenes: list) -> None:
    largest_glyph = GLYPH_SIDE[1] * SIZE + 1
    for image, boxes in scenes:
        assert image.mode == "RGB" and image.size == (SIZE, SIZE)
        assert 1 <= len(boxes) <= 4
        for box in boxes:
            assert 0 <= box["label"] <= 9
            assert box["x"] >= 0 and box["y"] >= 0
            assert box["x"] + box["width"] <= SIZE and box["y"] + box["height"] <= SIZE
            assert 4 <= box["width"] <= largest_glyph and 4 <= box["height"] <= largest_glyph
    labels = {box["label"] for _, boxes in scenes for box in boxes}
    assert labels == set(range(10))
    assert np.mean([len(boxes) for _, boxes in scenes]) > 2


def test_some_digits_overlap_a_little_and_some_touch_the_border(scenes: list) -> None:
    overlapping = touching = 0
    for _, boxes in scenes:
        for a, b in itertools.combinations(boxes, 2):
            inter = _intersection(a, b)
            union = a["width"] * a["height"] + b["width"] * b["height"] - inter
            assert inter <= MAX_OVERLAP_IOU * union + 1e-9
            assert inter <= MAX_COVERED * min(a["width"] * a["height"], b["width"] * b["height"]) + 1e-9
            overlapping += inter > 0
        for box in boxes:
            touching += box["x"] == 0 or box["y"] == 0
            touching += box["x"] + box["width"] == SIZE or box["y"] + box["height"] == SIZE
    assert overlapping >= 5
    assert touching >= 10


def test_boxes_hold_the_ink(scenes: list) -> None:
    """The image varies far more inside a box (dark-on-light or light-on-dark strokes) than just
    outside it (smooth background and noise)."""
    ratios = []
    for image, boxes in scenes:
        if len(boxes) != 1:
            continue
        pixels = np.asarray(image.convert("L"), dtype=np.float32)
        box = boxes[0]
        x0, y0 = int(box["x"]), int(box["y"])
        x1, y1 = x0 + int(box["width"]), y0 + int(box["height"])
        inside = pixels[y0:y1, x0:x1]
        mask = np.ones_like(pixels, dtype=bool)
        mask[max(0, y0 - 2) : y1 + 2, max(0, x0 - 2) : x1 + 2] = False
        ratios.append(inside.std() / max(1.0, float(pixels[mask].std())))
    assert len(ratios) >= 10
    assert float(np.median(ratios)) > 2.0


def test_one_class_scenes_label_every_box_digit() -> None:
    scenes = digit_scenes(5, size=SIZE, seed=2, classes="one", digits_per_image=(2, 3))
    assert scene_classes("one") == ["digit"]
    assert {box["label"] for _, boxes in scenes for box in boxes} == {0}
    assert all(2 <= len(boxes) <= 3 for _, boxes in scenes)


def test_the_manifest_splits_and_points_at_written_pngs(tmp_path: Path) -> None:
    scenes = digit_scenes(20, size=SIZE, seed=4)
    manifest = write_manifest(scenes, tmp_path / "scenes")
    assert manifest["kind"] == "detection" and manifest["version"] == 1
    assert manifest["classes"] == [str(d) for d in range(10)]
    splits = [sample["split"] for sample in manifest["samples"]]
    assert (splits.count("train"), splits.count("val"), splits.count("test")) == (14, 3, 3)
    for index, (sample, (image, boxes)) in enumerate(zip(manifest["samples"], scenes, strict=True)):
        assert sample["id"] == index
        assert sample["boxes"] == boxes
        assert (sample["width"], sample["height"]) == image.size
        with Image.open(sample["path"]) as written:
            assert np.array_equal(np.asarray(written), np.asarray(image))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="digits_per_image"):
        digit_scenes(1, digits_per_image=(3, 1))
    with pytest.raises(ValueError, match="splits"):
        write_manifest([], Path("/nonexistent"), splits=(0.5, 0.1, 0.1))
