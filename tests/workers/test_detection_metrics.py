"""workers.object_detection.metrics beyond COCO's figures: the confusion with background, each
image's errors at the score threshold, and the edge cases (no objects, no detections, bad input)."""

from __future__ import annotations

import numpy as np
import pytest

from workers.contracts.annotations import DetectionBox
from workers.object_detection.metrics import Detection, box_iou, coco_evaluate

CLASSES = ["cat", "dog"]


def box(label: int, x: float, y: float, w: float = 20.0, h: float = 20.0) -> DetectionBox:
    return {"label": label, "x": x, "y": y, "width": w, "height": h}


def test_confusion_pairs_same_class_first_then_across_classes_then_background() -> None:
    truth = [
        [box(0, 10, 10)],  # found, and a dog box on the same cat: a false positive
        [box(1, 10, 10)],  # a dog taken for a cat
        [box(0, 10, 10)],  # missed
        [],  # nothing there: a confident dog is a false positive, an unsure cat is not counted
        [box(0, 10, 10)],  # a cat box overlapping too little (IoU < .5): missed and a false positive
    ]
    predicted: list[list[Detection]] = [
        [(0, 0.9, 10, 10, 20, 20), (1, 0.8, 11, 10, 20, 20)],
        [(0, 0.7, 10, 11, 20, 20)],
        [],
        [(1, 0.9, 50, 50, 10, 10), (0, 0.1, 0, 0, 10, 10)],
        [(0, 0.9, 22, 22, 20, 20)],
    ]
    result = coco_evaluate(truth, predicted, CLASSES, score_threshold=0.3)
    assert result["confusion_matrix"] == {
        "labels": ["cat", "dog", "background"],
        "matrix": [[1, 0, 2], [1, 0, 0], [1, 2, 0]],
    }
    assert [(e["false_positives"], e["missed"]) for e in result["images"]] == [
        (1, 0),
        (1, 1),
        (0, 1),
        (1, 0),
        (1, 1),
    ]
    # the threshold only moves the confusion and the errors, never the AP
    lower = coco_evaluate(truth, predicted, CLASSES, score_threshold=0.05)
    assert lower["images"][3] == {"false_positives": 2, "missed": 0}
    assert lower["confusion_matrix"]["matrix"][2] == [2, 2, 0]
    assert (lower["map"], lower["per_class"]) == (result["map"], result["per_class"])


def test_a_detection_takes_the_best_overlapping_free_object() -> None:
    # two cats side by side; the best detection overlaps the second more: the second detection
    # still finds the first cat (greedy by score, each object matched once)
    truth = [[box(0, 0, 0), box(0, 15, 0)]]
    predicted: list[list[Detection]] = [[(0, 0.9, 14, 0, 20, 20), (0, 0.8, 1, 0, 20, 20)]]
    result = coco_evaluate(truth, predicted, ["cat"])
    assert result["map50"] == pytest.approx(1.0)
    assert result["images"] == [{"false_positives": 0, "missed": 0}]
    assert result["confusion_matrix"]["matrix"] == [[2, 0], [0, 0]]


def test_perfect_answers_score_one_everywhere() -> None:
    truth = [[box(0, 5, 5), box(1, 40, 40, 10, 30)], [box(1, 0, 0, 64, 64)], []]
    predicted = [
        [(b["label"], 0.99, b["x"], b["y"], b["width"], b["height"]) for b in boxes] for boxes in truth
    ]
    result = coco_evaluate(truth, predicted, CLASSES)
    assert (result["map"], result["map50"], result["map75"]) == pytest.approx((1.0, 1.0, 1.0))
    assert [row["ground_truth"] for row in result["per_class"]] == [1, 2]
    assert result["confusion_matrix"]["matrix"] == [[1, 0, 0], [0, 2, 0], [0, 0, 0]]
    assert all(e == {"false_positives": 0, "missed": 0} for e in result["images"])


def test_no_objects_anywhere_gives_no_ap_and_only_false_positives() -> None:
    result = coco_evaluate([[], []], [[(1, 0.9, 0, 0, 5, 5)], []], CLASSES)
    assert (result["map"], result["map50"], result["map75"]) == (-1.0, -1.0, -1.0)
    assert [row["ap"] for row in result["per_class"]] == [-1.0, -1.0]
    assert result["confusion_matrix"]["matrix"] == [[0, 0, 0], [0, 0, 0], [0, 1, 0]]


def test_no_detections_scores_zero_and_misses_everything() -> None:
    result = coco_evaluate([[box(0, 1, 1)], [box(1, 2, 2), box(1, 30, 30)]], [[], []], CLASSES)
    assert (result["map"], result["map50"]) == (0.0, 0.0)
    assert result["confusion_matrix"]["matrix"] == [[0, 0, 1], [0, 0, 2], [0, 0, 0]]
    assert [e["missed"] for e in result["images"]] == [1, 2]


def test_bad_input_is_refused_naming_the_problem() -> None:
    with pytest.raises(ValueError, match="2 images of truth but predictions for 1"):
        coco_evaluate([[], []], [[]], CLASSES)
    with pytest.raises(ValueError, match="label 2, outside the 2 classes"):
        coco_evaluate([[box(2, 0, 0)]], [[]], CLASSES)
    with pytest.raises(ValueError, match="class 5, outside the 2 classes"):
        coco_evaluate([[]], [[(5, 0.5, 0, 0, 1, 1)]], CLASSES)


def test_box_iou_is_cocos_arithmetic() -> None:
    a = np.array([[0.0, 0.0, 10.0, 10.0]])
    b = np.array([[5.0, 0.0, 10.0, 10.0], [10.0, 10.0, 5.0, 5.0], [0.0, 0.0, 10.0, 10.0]])
    assert box_iou(a[:, None, :], b[None, :, :]).tolist() == [[pytest.approx(50 / 150), 0.0, 1.0]]
