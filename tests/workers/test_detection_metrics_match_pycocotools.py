"""workers.object_detection.metrics agrees with pycocotools' COCOeval (the reference mAP code) on
the same seeded random predictions: mAP@[.5:.95], mAP@.5, mAP@.75 and every class's AP to 1e-4.

The predictions exercise COCO's corners: boxes jittered so IoUs spread over all thresholds,
duplicates, wrong classes, spurious boxes, tied scores, images without objects, images without
detections, a class with objects but no detection (AP 0), a class with detections but no object
(AP -1, left out of the means), a crowded image and an image with more than 100 detections of
one class.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.workers.coco_reference import class_ap, cocoeval
from workers.contracts.annotations import DetectionBox
from workers.object_detection.metrics import Detection, coco_evaluate

CLASSES = ["cat", "dog", "bird", "only_truth", "only_predicted"]


def random_set(
    seed: int, images: int = 90
) -> tuple[list[list[DetectionBox]], list[list[Detection]], list[tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    truth: list[list[DetectionBox]] = []
    predicted: list[list[Detection]] = []
    sizes = []
    for i in range(images):
        width, height = int(rng.integers(64, 160)), int(rng.integers(64, 160))
        sizes.append((width, height))
        boxes: list[DetectionBox] = []
        found: list[Detection] = []
        count = 0 if rng.random() < 0.15 else int(rng.integers(1, 7))
        for _ in range(count):
            w, h = rng.uniform(6, width / 2), rng.uniform(6, height / 2)
            x, y = rng.uniform(0, width - w), rng.uniform(0, height - h)
            label = 3 if rng.random() < 0.08 else int(rng.integers(0, 3))
            boxes.append(
                {"label": label, "x": float(x), "y": float(y), "width": float(w), "height": float(h)}
            )
            if label == 3 or rng.random() < 0.15:
                continue  # never detected
            for _ in range(1 + int(rng.random() < 0.3)):  # sometimes a duplicate
                spread = rng.choice([0.02, 0.08, 0.2])
                dx, dy = rng.normal(0, spread * w), rng.normal(0, spread * h)
                dw, dh = w * np.exp(rng.normal(0, spread)), h * np.exp(rng.normal(0, spread))
                guess = label if rng.random() > 0.1 else int(rng.integers(0, 3))
                score = round(float(rng.uniform(0.05, 1.0)), 2)  # ties across and within images
                found.append((guess, score, float(x + dx), float(y + dy), float(dw), float(dh)))
        for _ in range(int(rng.integers(0, 4))):  # spurious boxes, some of a class with no object
            w, h = rng.uniform(4, width / 3), rng.uniform(4, height / 3)
            label = 4 if rng.random() < 0.2 else int(rng.integers(0, 3))
            score = round(float(rng.uniform(0.0, 0.7)), 2)
            found.append(
                (
                    label,
                    score,
                    float(rng.uniform(0, width - w)),
                    float(rng.uniform(0, height - h)),
                    float(w),
                    float(h),
                )
            )
        if i == 7:  # more detections of one class than COCO keeps (maxDets 100)
            for _ in range(120):
                found.append(
                    (
                        1,
                        round(float(rng.uniform(0, 1)), 3),
                        float(rng.uniform(0, 40)),
                        float(rng.uniform(0, 40)),
                        20.0,
                        20.0,
                    )
                )
        if i == 3:  # a crowded image: 40 small objects of one class, most found, some twice
            for n in range(40):
                x, y = 2.0 + (n % 8) * 7.5, 2.0 + (n // 8) * 11.0
                boxes.append({"label": 2, "x": x, "y": y, "width": 6.0, "height": 9.0})
                for _ in range(int(rng.integers(0, 3))):
                    jitter = rng.normal(0, 0.8, size=2)
                    score = round(float(rng.uniform(0.1, 1)), 2)
                    found.append((2, score, float(x + jitter[0]), float(y + jitter[1]), 6.0, 9.0))
        if i == 11:
            found = []  # objects but no detection at all
        order = rng.permutation(len(found))  # the given order is not the score order
        truth.append(boxes)
        predicted.append([found[j] for j in order])
    return truth, predicted, sizes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_map_and_per_class_ap_match_cocoeval(seed: int) -> None:
    truth, predicted, sizes = random_set(seed)
    reference = cocoeval(truth, predicted, CLASSES, sizes)
    precision = reference.eval["precision"][:, :, :, 0, -1]  # [T, R, K] at area all, maxDets 100
    map_all, map50, map75 = (float(v) for v in reference.stats[:3])

    ours = coco_evaluate(truth, predicted, CLASSES)

    assert ours["map"] == pytest.approx(map_all, abs=1e-4)
    assert ours["map50"] == pytest.approx(map50, abs=1e-4)
    assert ours["map75"] == pytest.approx(map75, abs=1e-4)
    assert [row["ap"] for row in ours["per_class"]] == pytest.approx(class_ap(precision), abs=1e-4)
    assert [row["ap50"] for row in ours["per_class"]] == pytest.approx(class_ap(precision[0]), abs=1e-4)
    assert [row["ap75"] for row in ours["per_class"]] == pytest.approx(class_ap(precision[5]), abs=1e-4)
    # the PR curve at .5 is COCO's interpolated precision at its 101 recall points
    assert ours["per_class"][0]["pr_curve"]["precision"] == pytest.approx(
        precision[0, :, 0].tolist(), abs=1e-5
    )
    assert ours["per_class"][0]["pr_curve"]["recall"] == pytest.approx(list(np.linspace(0, 1, 101)))
    # the set is not degenerate: spread figures, the two special classes as COCO has them
    assert 0.05 < map_all < map50 < 0.95 and map75 < map50
    assert ours["per_class"][3]["ap"] == 0.0 and ours["per_class"][3]["ground_truth"] > 0
    assert ours["per_class"][4]["ap"] == -1.0 and ours["per_class"][4]["ground_truth"] == 0
    assert ours["per_class"][4]["pr_curve"] == {"recall": [], "precision": []}
