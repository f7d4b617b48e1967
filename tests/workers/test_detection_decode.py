"""Decoding a detector's maps into boxes (NumPy, shared by every serving path), and the Detector
on a constant ONNX model: peaks, thresholds, per-class NMS, scaling to the original image."""

from __future__ import annotations

import numpy as np
import pytest
from detection_models import constant_detector
from PIL import Image

from workers.object_detection.decode import decode, local_peaks, non_maximum_suppression
from workers.object_detection.predictor import Detector


def maps(classes: int = 2, cells: int = 8) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((1, classes, cells, cells), np.float32), np.zeros((1, 4, cells, cells), np.float32)


def test_only_local_maxima_above_the_threshold_become_boxes_scaled_to_the_original_image():
    scores, boxes = maps()
    scores[0, 0, 2, 2], scores[0, 0, 2, 3] = 0.9, 0.6  # a neighbour of a stronger peak: not a peak
    scores[0, 1, 6, 6] = 0.2  # below the threshold
    scores[0, 1, 5, 1] = 0.7
    boxes[0, :, 2, 2] = [4, 6, 10, 8]
    boxes[0, :, 5, 1] = [0, 18, 8, 6]
    boxes[0, :, 6, 6] = [20, 20, 4, 4]
    found = decode(scores, boxes, scale_x=2.0, scale_y=0.5)
    assert found == [
        [(0, pytest.approx(0.9), 8.0, 3.0, 20.0, 4.0), (1, pytest.approx(0.7), 0.0, 9.0, 16.0, 3.0)]
    ]
    low = decode(scores, boxes, scale_x=1.0, scale_y=1.0, score_threshold=0.1)[0]
    assert [d[0] for d in low] == [0, 1, 1] and low[-1][1] == pytest.approx(0.2)
    assert decode(scores, boxes, scale_x=1.0, scale_y=1.0, max_detections=1)[0][0][1] == pytest.approx(0.9)


def test_boxes_are_clipped_to_the_image_and_empty_ones_dropped():
    scores, boxes = maps(classes=1, cells=4)  # a 16 x 16 input
    scores[0, 0, 0, 0], scores[0, 0, 3, 3] = 0.8, 0.9
    boxes[0, :, 0, 0] = [-4, -2, 10, 8]
    boxes[0, :, 3, 3] = [20, 20, 5, 5]  # entirely outside: nothing left after clipping
    assert decode(scores, boxes, scale_x=1.0, scale_y=1.0) == [[(0, pytest.approx(0.8), 0.0, 0.0, 6.0, 6.0)]]


def test_nms_is_per_class_and_keeps_the_best_score():
    scores, boxes = maps()
    for row, col, label, score in ((1, 1, 0, 0.9), (1, 3, 0, 0.8), (5, 5, 0, 0.7), (1, 3, 1, 0.6)):
        scores[0, label, row, col] = score
    boxes[0, :, 1, 1] = [0, 0, 10, 10]
    boxes[0, :, 1, 3] = [1, 0, 10, 10]  # IoU 0.82 with the first
    boxes[0, :, 5, 5] = [18, 18, 8, 8]
    found = decode(scores, boxes, scale_x=1.0, scale_y=1.0)[0]
    assert [(d[0], round(d[1], 2)) for d in found] == [(0, 0.9), (0, 0.7), (1, 0.6)]
    loose = decode(scores, boxes, scale_x=1.0, scale_y=1.0, iou_threshold=0.9)[0]
    assert [round(d[1], 2) for d in loose] == [0.9, 0.8, 0.7, 0.6]


def test_helpers_peaks_and_nms_order():
    grid = np.asarray([[[0.1, 0.5, 0.2], [0.3, 0.4, 0.6], [0.0, 0.0, 0.1]]], np.float32)
    assert local_peaks(grid).tolist() == [
        [[False, False, False], [False, False, True], [False, False, False]]
    ]
    corners = np.asarray([[0, 0, 10, 10], [0, 0, 10, 10], [20, 20, 30, 30]], np.float64)
    assert non_maximum_suppression(corners, np.asarray([0.5, 0.5, 0.9]), 0.5) == [2, 0]


def test_one_scale_per_image_for_a_batch_of_different_sizes():
    scores, boxes = maps(classes=1)
    scores = np.repeat(scores, 2, axis=0)
    boxes = np.repeat(boxes, 2, axis=0)
    scores[:, 0, 4, 4] = 0.5
    boxes[:, :, 4, 4] = [16, 16, 4, 4]
    first, second = decode(scores, boxes, scale_x=[1.0, 3.0], scale_y=[1.0, 2.0])
    assert first[0][2:] == (16.0, 16.0, 4.0, 4.0) and second[0][2:] == (48.0, 32.0, 12.0, 8.0)
    with pytest.raises(ValueError, match="expected scores"):
        decode(scores[0], boxes, scale_x=1.0, scale_y=1.0)


def test_detector_answers_in_each_images_pixels(tmp_path):
    model_dir = constant_detector(
        tmp_path / "model", ["cat", "dog"], [(1, 0.9, 8, 8, 20, 16), (0, 0.5, 40, 30, 10, 10)], image_size=64
    )
    detector = Detector(model_dir)
    assert (detector.template, detector.data_kind, detector.prediction_kind) == (
        "object_detection",
        "image",
        "detection_prediction",
    )
    assert detector.classes == ["cat", "dog"]
    wide, grey = Image.new("RGB", (128, 64), (200, 10, 10)), Image.new("L", (64, 32))
    answers = detector.detect([wide, grey], score_threshold=0.4)
    assert [(a["width"], a["height"]) for a in answers] == [(128, 64), (64, 32)]
    first = answers[0]["boxes"]
    assert [b["label"] for b in first] == ["dog", "cat"] and [b["index"] for b in first] == [1, 0]
    assert (first[0]["x"], first[0]["y"], first[0]["width"], first[0]["height"]) == (16.0, 8.0, 40.0, 16.0)
    assert first[0]["score"] == pytest.approx(0.9)
    second = answers[1]["boxes"]
    assert (second[1]["x"], second[1]["y"], second[1]["width"], second[1]["height"]) == (
        40.0,
        15.0,
        10.0,
        5.0,
    )
    assert detector.detect([wide], score_threshold=0.6)[0]["boxes"][0]["label"] == "dog"
    assert len(detector.detect([wide], max_detections=1)[0]["boxes"]) == 1
    assert detector.detect([]) == []


def test_detector_takes_a_bare_onnx_file_with_its_metadata_or_the_arguments(tmp_path):
    model_dir = constant_detector(tmp_path / "model", ["cat", "dog"], [(1, 0.9, 8, 8, 20, 16)], image_size=64)
    bare = tmp_path / "bare.onnx"
    bare.write_bytes((model_dir / "model.onnx").read_bytes())
    from_metadata = Detector(bare)
    assert from_metadata.classes == ["cat", "dog"] and from_metadata.preprocessing["image_size"] == [64, 64]
    renamed = Detector(bare, classes=["a", "b"])
    assert renamed.detect([Image.new("RGB", (64, 64))])[0]["boxes"][0]["label"] == "b"
    with pytest.raises(ValueError, match="scores 2 classes but 1 class names"):
        Detector(bare, classes=["only"])
