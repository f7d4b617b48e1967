"""workers.object_detection.evaluation on a detector whose answers are known (tests' constant
detector: the same boxes in every image, scaled to its size): the COCO figures, the confusion with
background, the bad cases ranked by errors, the sample references, progress, the bare-ONNX-file
path the platform uses, and the comparison of two reports."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.workers.detection_models import constant_detector
from workers.contracts.annotations import DetectionManifest, DetectionReport
from workers.object_detection.evaluation import compare_reports, evaluate

CLASSES = ["cat", "dog"]
# in the model's 64 x 64 input pixels; the last one scores under the report's threshold (0.3)
CONSTANT = [(0, 0.9, 8.0, 8.0, 16.0, 16.0), (1, 0.6, 36.0, 36.0, 20.0, 20.0), (1, 0.2, 40.0, 4.0, 12.0, 12.0)]
CAT = {"label": 0, "x": 8.0, "y": 8.0, "width": 16.0, "height": 16.0}
DOG = {"label": 1, "x": 36.0, "y": 36.0, "width": 20.0, "height": 20.0}


def _image(path: Path, width: int, height: int, seed: int) -> str:
    pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(path)
    return str(path)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("detection-evaluation")
    model_dir = constant_detector(root / "model", CLASSES, CONSTANT)
    samples: list[dict[str, Any]] = [
        {"id": 1, "width": 64, "height": 64, "boxes": [CAT, DOG], "split": "train"},
        {"id": 2, "width": 64, "height": 64, "boxes": [CAT], "split": "val"},
        # found: both objects
        {"id": 10, "width": 64, "height": 64, "boxes": [CAT, DOG], "split": "test"},
        # twice as wide, 1.5 times as high: the same boxes scaled, found
        {
            "id": 11,
            "width": 128,
            "height": 96,
            "boxes": [
                {"label": 0, "x": 16.0, "y": 12.0, "width": 32.0, "height": 24.0},
                {"label": 1, "x": 72.0, "y": 54.0, "width": 40.0, "height": 30.0},
            ],
            "split": "test",
        },
        # no id: referred to by its position (4); the dog is a false positive
        {"width": 64, "height": 64, "boxes": [CAT], "split": "test"},
        # reviewed, no objects: two false positives
        {"id": 13, "width": 64, "height": 64, "boxes": [], "split": "test"},
        # a dog where the model says cat (confused), and the model's dog finds nothing
        {"id": 14, "width": 64, "height": 64, "boxes": [{**CAT, "label": 1}], "split": "test"},
    ]
    for n, sample in enumerate(samples):
        sample["path"] = _image(root / f"{n}.png", sample["width"], sample["height"], n)
    manifest: DetectionManifest = {"kind": "detection", "version": 1, "classes": CLASSES, "samples": samples}
    events: list[dict[str, Any]] = []

    def record(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        events.append({"message": message, "fraction": fraction, "milestone": milestone, **metrics})

    report = evaluate(model_dir, manifest, report=record)
    return {"model_dir": model_dir, "manifest": manifest, "report": report, "events": events}


def test_map_figures_are_coco_on_the_known_answers(setup: dict[str, Any]) -> None:
    report: DetectionReport = setup["report"]
    # cat: 3 objects, 5 equal-score detections (3 right, image order first) -> AP 1 at every IoU;
    # dog: 3 objects, the 0.6 detections right in 2 of 5 images first -> precision 1 up to recall
    # 2/3 (67 of COCO's 101 recall points), then nothing
    dog = 67 / 101
    assert report["kind"] == "detection_report" and report["version"] == 1
    assert report["split"] == "test" and report["samples"] == 5 and report["classes"] == CLASSES
    assert [row["label"] for row in report["per_class"]] == CLASSES
    assert [row["ground_truth"] for row in report["per_class"]] == [3, 3]
    assert [row["ap"] for row in report["per_class"]] == pytest.approx([1.0, dog])
    assert [row["ap50"] for row in report["per_class"]] == pytest.approx([1.0, dog])
    assert [row["ap75"] for row in report["per_class"]] == pytest.approx([1.0, dog])
    assert report["map"] == pytest.approx((1 + dog) / 2)
    assert report["map50"] == pytest.approx((1 + dog) / 2)
    assert report["headline"] == {"map": report["map"], "map50": report["map50"], "map75": report["map75"]}
    curve = report["per_class"][1]["pr_curve"]
    assert len(curve["recall"]) == len(curve["precision"]) == 101
    assert curve["precision"][:67] == [1.0] * 67 and curve["precision"][67:] == [0.0] * 34


def test_confusion_with_background_at_the_score_threshold(setup: dict[str, Any]) -> None:
    confusion = setup["report"]["confusion_matrix"]
    assert setup["report"]["score_threshold"] == 0.3
    assert confusion["labels"] == ["cat", "dog", "background"]
    # rows: true cat, dog, background; columns: predicted. The 0.2 dog never counts here.
    assert confusion["matrix"] == [
        [3, 0, 0],  # every cat found
        [1, 2, 0],  # a dog taken for a cat (image 14)
        [1, 3, 0],  # a cat box on the empty image; dog boxes on images 4, 13 and 14
    ]


def test_bad_cases_most_errors_first_with_every_box(setup: dict[str, Any]) -> None:
    cases = setup["report"]["bad_cases"]
    assert [(c["sample"], c["false_positives"], c["missed"]) for c in cases] == [
        (14, 2, 1),
        (13, 2, 0),
        (4, 1, 0),
    ]
    worst = cases[0]
    assert worst["path"].endswith("6.png") and (worst["width"], worst["height"]) == (64, 64)
    assert worst["truth"] == [{"label": "dog", "x": 8.0, "y": 8.0, "width": 16.0, "height": 16.0}]
    # the boxes drawn are the confident ones, with their scores
    assert [(b["label"], round(b["score"], 4)) for b in worst["predicted"]] == [("cat", 0.9), ("dog", 0.6)]
    assert worst["predicted"][0]["x"] == pytest.approx(8.0) and worst["predicted"][0][
        "width"
    ] == pytest.approx(16.0)


def test_progress_is_reported_to_the_last_image(setup: dict[str, Any]) -> None:
    last = setup["events"][-1]
    assert last["milestone"] and last["fraction"] == 1.0
    assert (last["evaluated"], last["total"]) == (5, 5)


def test_a_bare_onnx_file_as_the_platform_passes_it(setup: dict[str, Any]) -> None:
    onnx_file = setup["model_dir"] / "model.onnx"
    report = evaluate(onnx_file, setup["manifest"], split="val", bad_cases=0)
    assert report["split"] == "val" and report["samples"] == 1
    assert report["model"] == {
        "path": str(onnx_file),
        "sha256": hashlib.sha256(onnx_file.read_bytes()).hexdigest(),
    }
    assert [row["ap"] for row in report["per_class"]] == pytest.approx([1.0, -1.0])  # no dog in val: no AP
    assert report["map"] == pytest.approx(1.0) and report["bad_cases"] == []


def test_a_model_of_other_classes_is_refused(setup: dict[str, Any], tmp_path: Path) -> None:
    other = constant_detector(tmp_path / "other", ["cat", "horse"], CONSTANT)
    with pytest.raises(ValueError, match="horse"):
        evaluate(other, setup["manifest"])


def test_compare_reports_per_class_ap_deltas(setup: dict[str, Any]) -> None:
    a: DetectionReport = setup["report"]
    b: DetectionReport = {
        **a,
        "map": 0.5,
        "map50": 0.75,
        "per_class": [
            {**a["per_class"][1], "ap": 0.25},
            {**a["per_class"][0], "label": "bird", "ap": -1.0, "ground_truth": 0},
        ],
    }
    comparison = compare_reports(a, b)
    assert comparison["kind"] == "detection_comparison" and comparison["split"] == "test"
    assert comparison["map"]["a"] == a["map"] and comparison["map"]["delta"] == pytest.approx(0.5 - a["map"])
    assert comparison["map50"]["label"] == "map50"
    rows = {row["label"]: row for row in comparison["per_class"]}
    assert list(rows) == ["cat", "dog", "bird"]  # a's order, then b's new classes
    assert rows["dog"]["delta"] == pytest.approx(0.25 - 67 / 101)
    assert (rows["cat"]["b"], rows["cat"]["delta"]) == (-1.0, 0.0)  # gone from b: nothing to compare
    assert (rows["bird"]["a"], rows["bird"]["delta"]) == (-1.0, 0.0)
