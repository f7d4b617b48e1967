"""Box-aware augmentation moves, clips and drops boxes with the pixels; training targets decode back
to the boxes they were built from."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
import torch
from PIL import Image

from workers.image_classification.preprocessing import make_spec
from workers.object_detection.augment import (
    AUGMENTATIONS,
    EvalBoxTransform,
    TrainBoxTransform,
    flip_boxes,
    random_window,
    scale_boxes,
    visible,
)
from workers.object_detection.data import centernet_targets
from workers.object_detection.decode import decode
from workers.object_detection.models import decode_boxes

SPEC = make_spec(64)


def marked_image(boxes: np.ndarray, size: tuple[int, int] = (128, 96)) -> Image.Image:
    """A black image with each box painted white: the pixels tell where the boxes went."""
    pixels = np.zeros((size[1], size[0], 3), np.uint8)
    for x, y, w, h in boxes.astype(int):
        pixels[y : y + h, x : x + w] = 255
    return Image.fromarray(pixels)


def white_fraction(tensor: torch.Tensor, box: np.ndarray) -> float:
    """How white the model input is inside ``box`` (input pixels, shrunk by a pixel for resampling)."""
    mean = torch.tensor(SPEC["mean"]).view(3, 1, 1)
    std = torch.tensor(SPEC["std"]).view(3, 1, 1)
    pixels = ((tensor * std + mean).mean(0)).numpy()
    x, y, w, h = box
    inside = pixels[int(y) + 1 : int(y + h) - 1, int(x) + 1 : int(x + w) - 1]
    return float(inside.mean())


def test_scale_clip_and_flip_arithmetic():
    boxes = np.asarray([[10, 10, 20, 20], [90, 50, 20, 20]], np.float32)
    scaled = scale_boxes(boxes, (0.0, 0.0, 100.0, 100.0), (50, 50))
    np.testing.assert_allclose(scaled, [[5, 5, 10, 10], [45, 25, 5, 10]])  # the second is cut at the edge
    assert visible(boxes, scaled, (0.0, 0.0, 100.0, 100.0), (50, 50)).tolist() == [True, True]
    cut = scale_boxes(boxes, (0.0, 0.0, 95.0, 100.0), (50, 50))
    assert visible(boxes, cut, (0.0, 0.0, 95.0, 100.0), (50, 50)).tolist() == [True, False]  # 25 % left
    np.testing.assert_allclose(flip_boxes(np.asarray([[5, 1, 10, 2]], np.float32), 50), [[35, 1, 10, 2]])


def test_evaluation_transform_stretches_the_image_and_its_boxes_alike():
    boxes = np.asarray([[16, 24, 32, 24], [80, 8, 40, 40]], np.float32)
    tensor, moved, labels = EvalBoxTransform(SPEC)(marked_image(boxes), boxes, np.asarray([0, 1]))
    assert tuple(tensor.shape) == (3, 64, 64)
    np.testing.assert_allclose(moved, [[8, 16, 16, 16], [40, 16 / 3, 20, 80 / 3]], rtol=1e-5)
    assert labels.tolist() == [0, 1]
    assert all(white_fraction(tensor, box) > 0.9 for box in moved)


@pytest.mark.parametrize("augmentation", ["light", "standard", "strong"])
def test_random_crops_and_flips_keep_boxes_on_their_pixels(augmentation):
    boxes = np.asarray([[4, 6, 30, 30], [60, 40, 36, 28], [100, 70, 26, 24]], np.float32)
    image = marked_image(boxes)
    transform = TrainBoxTransform(SPEC, augmentation=augmentation, horizontal_flip=True)
    transform_no_jitter = TrainBoxTransform(SPEC, augmentation=augmentation, horizontal_flip=True)
    transform_no_jitter.augmentation = dataclasses.replace(AUGMENTATIONS[augmentation], jitter=0.0)
    kept_counts = set()
    for seed in range(12):
        tensor, moved, labels = transform_no_jitter(image, boxes, np.asarray([0, 1, 2]), random.Random(seed))
        assert tuple(tensor.shape) == (3, 64, 64)
        assert len(moved) == len(labels) and set(labels.tolist()) <= {0, 1, 2}
        kept_counts.add(len(moved))
        assert (moved[:, :2] >= 0).all() and (moved[:, 0] + moved[:, 2] <= 64 + 1e-4).all()
        assert (moved[:, 1] + moved[:, 3] <= 64 + 1e-4).all() and (moved[:, 2:] >= 2).all()
        for box in moved:
            if box[2] > 4 and box[3] > 4:
                assert white_fraction(tensor, box) > 0.8, (seed, box)
        # the same random numbers give the same sample (resume and loader workers change nothing)
        again, moved_again, _ = transform(image, boxes, np.asarray([0, 1, 2]), random.Random(seed))
        first, moved_first, _ = transform(image, boxes, np.asarray([0, 1, 2]), random.Random(seed))
        assert torch.equal(again, first) and np.array_equal(moved_again, moved_first)
    assert 3 in kept_counts


def test_crop_windows_cover_or_contain_the_image():
    rng = random.Random(0)
    for _ in range(50):
        left, top, right, bottom = random_window(100, 80, AUGMENTATIONS["strong"], rng)
        assert right > left and bottom > top
        assert min(right, 100) - max(left, 0) > 0 and min(bottom, 80) - max(top, 0) > 0


def test_targets_decode_back_to_their_boxes():
    boxes = np.asarray([[4, 6, 20, 28], [30, 30, 24, 18], [40, 2, 8, 8]], np.float32)
    labels = np.asarray([2, 0, 2])
    heatmap, box_target, weight = centernet_targets(boxes, labels, 3, (64, 64))
    assert heatmap.shape == (3, 16, 16) and box_target.shape == (4, 16, 16) and weight.shape == (16, 16)
    assert heatmap.max() == 1.0 and int((heatmap == 1.0).sum()) == 3 and heatmap[1].max() == 0.0
    assert (weight > 0).sum() >= 3
    # a regression that predicts the targets exactly: distances from each cell's centre
    rows, cols = np.mgrid[0:16, 0:16].astype(np.float32)
    centre_x, centre_y = (cols + 0.5) * 4, (rows + 0.5) * 4
    distances = np.stack(
        [
            centre_x - box_target[0],
            centre_y - box_target[1],
            box_target[2] - centre_x,
            box_target[3] - centre_y,
        ]
    )
    raw = np.log(np.clip(distances, 1e-3, None) / 8.0)
    found = decode(
        heatmap[None], decode_boxes(torch.from_numpy(raw[None])).numpy(), scale_x=2.0, scale_y=1.0
    )[0]
    assert sorted((d[0], round(d[2]), round(d[3]), round(d[4]), round(d[5])) for d in found) == [
        (0, 60, 30, 48, 18),
        (2, 8, 6, 40, 28),
        (2, 80, 2, 16, 8),
    ]
