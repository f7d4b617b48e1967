"""The SDK's views of a detector's payloads, on answers shaped as the platform sends them
(workers.contracts.annotations): DetectionReport's accessors and DataFrame, Prediction.boxes, the
predict body's detector options and AnnotationConflict told from other 409s. No server needed: these
read JSON (the live round trips are in test_sdk_detection_annotations.py and the docs examples)."""

from __future__ import annotations

import math

import pytest
import sampan
from sampan.deployments import Prediction, predict_body
from sampan.errors import error_for
from sampan.models import DetectionReport, RegressionReport, evaluation_report

CURVE = {"recall": [0.0, 0.5, 1.0], "precision": [1.0, 0.8, -1.0]}
REPORT = {
    "kind": "detection_report",
    "version": 1,
    "split": "test",
    "samples": 9,
    "classes": ["猫", "dog"],
    "map": 0.5,
    "map50": 0.8,
    "map75": 0.55,
    "headline": {"map": 0.5, "map50": 0.8, "map75": 0.55},
    "per_class": [
        {"label": "猫", "ap": 0.6, "ap50": 0.9, "ap75": 0.7, "ground_truth": 7, "pr_curve": CURVE},
        {"label": "dog", "ap": 0.4, "ap50": 0.7, "ap75": 0.4, "ground_truth": 5, "pr_curve": CURVE},
    ],
    "confusion_matrix": {"labels": ["猫", "dog", "background"], "matrix": [[6, 0, 1], [1, 3, 1], [2, 0, 0]]},
    "score_threshold": 0.3,
    "bad_cases": [
        {
            "sample": 14,
            "path": "/x.png",
            "width": 64,
            "height": 48,
            "false_positives": 1,
            "missed": 1,
            "predicted": [{"label": "dog", "x": 1, "y": 2, "width": 10, "height": 12, "score": 0.7}],
            "truth": [{"label": "猫", "x": 1, "y": 2, "width": 10, "height": 12}],
        }
    ],
    "model": {"path": "/m.onnx", "sha256": "f00"},
}


def test_a_detection_report_reads_its_figures_curves_and_bad_cases():
    report = evaluation_report({"id": 5, "name": "V2", "evaluation": REPORT})
    assert isinstance(report, DetectionReport) and report.model_version == 5
    assert (report.map, report.map50, report.map75) == (0.5, 0.8, 0.55)
    assert report.ap_per_class() == {"猫": 0.6, "dog": 0.4}
    assert report.ap_per_class("ap50") == {"猫": 0.9, "dog": 0.7}
    assert report.pr_curve("dog") == CURVE
    assert report.confusion_labels[-1] == "background" and report.confusion_matrix[2] == [2, 0, 0]
    assert report.bad_cases[0]["sample"] == 14 and report.score_threshold == 0.3
    assert repr(report).startswith(
        "DetectionReport(model_version=5, name='V2', split='test', samples=9, map=0.5000"
    )
    frame = report.to_dataframe()
    assert list(frame.index) == ["猫", "dog"] and list(frame.columns) == [
        "ap",
        "ap50",
        "ap75",
        "ground_truth",
    ]
    assert frame.loc["dog", "ap75"] == pytest.approx(0.4)
    with pytest.raises(KeyError, match="No class 'cat'"):
        report.pr_curve("cat")
    with pytest.raises(ValueError, match="iou must be"):
        report.ap_per_class("ap90")
    with pytest.raises(
        ValueError, match="is not a regression model: its report is a DetectionReport"
    ):  # a detection report is no regression report
        RegressionReport.from_api({"id": 5, "name": "V2", "evaluation": REPORT})  # type: ignore[typeddict-item]


def test_plot_pr_curves_draws_one_line_per_class(monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    report = DetectionReport(5, "V2", REPORT)  # type: ignore[arg-type]
    ax = report.plot_pr_curves()
    assert [line.get_label() for line in ax.get_lines()] == ["猫", "dog"]
    assert list(ax.get_lines()[0].get_xdata()) == [0.0, 0.5]  # a precision of -1 is no point


def test_a_detector_prediction_has_boxes_and_its_best_box_as_label():
    boxes = [
        {"label": "dog", "index": 1, "score": 0.9, "x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0},
        {"label": "猫", "index": 0, "score": 0.4, "x": 5.0, "y": 6.0, "width": 7.0, "height": 8.0},
    ]
    version = {"id": 3, "name": "V1", "template": "object_detection"}
    found = Prediction({"boxes": boxes, "width": 64, "height": 48}, version, "detection_prediction")
    assert found.detection and not found.regression
    assert found.boxes == boxes and found.classes == [] and found.top_k == []
    assert (found.label, found.score, found.index) == ("dog", 0.9, 1)
    assert repr(found) == "Prediction(boxes=2: [dog 0.90, 猫 0.40])"
    nothing = Prediction({"boxes": [], "width": 64, "height": 48}, version, "detection_prediction")
    assert nothing.label == "" and math.isnan(nothing.score) and nothing.index == -1
    classified = Prediction({"top_k": [{"label": "3", "index": 3, "score": 0.99}]}, version)
    assert classified.boxes == [] and classified.label == "3"


def test_predict_body_sends_detector_options_only_when_given():
    assert predict_body([{"image": "x"}], 5) == {"instances": [{"image": "x"}], "top_k": 5}
    assert predict_body([], 5, 0.5, 20) == {
        "instances": [],
        "top_k": 5,
        "score_threshold": 0.5,
        "max_detections": 20,
    }


def test_a_stale_annotation_write_is_an_annotation_conflict_carrying_the_current_state():
    current = {"sample": 7, "status": "annotated", "revision": 4, "width": 8, "height": 8, "annotations": []}
    single = error_for(409, "annotation_conflict", "changed", {"current": current})
    assert isinstance(single, sampan.AnnotationConflict) and isinstance(single, sampan.Conflict)
    assert single.current == current and single.conflicts == [current]
    bulk = error_for(
        409, "annotation_conflict", "changed", {"conflicts": [current, {**current, "sample": 8}]}
    )
    assert bulk.current is None and [c["sample"] for c in bulk.conflicts] == [7, 8]
    other = error_for(409, "label_conflict", "changed", {"current": current})
    assert type(other) is sampan.Conflict
    assert sampan.box("cat", 1, 2, 3, 4, difficult=True) == {
        "kind": "box",
        "label": "cat",
        "geometry": {"x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0},
        "attributes": {"difficult": True},
    }
