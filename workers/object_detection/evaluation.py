"""The evaluation report of an exported detector on a manifest's split, and report comparison.

Runs the ONNX model through :class:`workers.object_detection.predictor.Detector`, the predictor the
hosted API and the packages use, so the report describes the boxes users get. Detections down to
``AP_SCORE_THRESHOLD`` enter the COCO figures (as COCO evaluates: a higher cut only lowers recall);
the confusion matrix and the bad cases use the report's ``score_threshold``, the deployment
default. No torch here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.annotations import (
    BadCase,
    BadCaseBox,
    ClassAPDelta,
    DetectionBox,
    DetectionComparison,
    DetectionHeadline,
    DetectionManifest,
    DetectionPrediction,
    DetectionReport,
)
from workers.contracts.evaluation import COMPARISON_VERSION, REPORT_VERSION
from workers.image_classification.preprocessing import open_image
from workers.object_detection.manifest import ManifestError, Sample, parse_manifest
from workers.object_detection.metrics import Detection, ImageErrors, coco_evaluate
from workers.object_detection.predictor import Detector
from workers.progress import Report, silent_report
from workers.shared.atomic_files import sha256_of

AP_SCORE_THRESHOLD = 0.001  # detections kept for mAP (COCO-style evaluation keeps the low scores)
MAX_DETECTIONS = 100  # per image, as COCO's maxDets
BATCH_SIZE = 32
REPORT_INTERVAL_S = 0.5


def _detections(prediction: DetectionPrediction) -> list[Detection]:
    return [(b["index"], b["score"], b["x"], b["y"], b["width"], b["height"]) for b in prediction["boxes"]]


def _truth(sample: Sample) -> list[DetectionBox]:
    return [{"label": label, "x": x, "y": y, "width": w, "height": h} for label, x, y, w, h in sample.boxes]


def _bad_case(
    sample: Sample,
    prediction: DetectionPrediction,
    errors: ImageErrors,
    classes: Sequence[str],
    score_threshold: float,
) -> BadCase:
    predicted: list[BadCaseBox] = [
        {
            "label": b["label"],
            "x": b["x"],
            "y": b["y"],
            "width": b["width"],
            "height": b["height"],
            "score": b["score"],
        }
        for b in prediction["boxes"]
        if b["score"] >= score_threshold
    ]
    truth: list[BadCaseBox] = [
        {"label": classes[label], "x": x, "y": y, "width": w, "height": h}
        for label, x, y, w, h in sample.boxes
    ]
    return {
        "sample": sample.ref,
        "path": sample.path,
        "width": prediction["width"],
        "height": prediction["height"],
        "false_positives": errors["false_positives"],
        "missed": errors["missed"],
        "predicted": predicted,
        "truth": truth,
    }


def evaluate(
    model_path: str | os.PathLike[str],
    manifest: DetectionManifest,
    *,
    preprocessing: Mapping[str, Any] | None = None,
    split: str = "test",
    score_threshold: float = 0.3,
    bad_cases: int = 20,
    threads: int | None = None,
    report: Report = silent_report,
) -> DetectionReport:
    """Evaluate the detector at ``model_path`` (a model directory, or a bare ``model.onnx``: what
    the platform passes, with ``preprocessing``; else the spec stored in the model) on the
    ``split`` images of ``manifest``. The model's class names must be the manifest's.

    Samples are referred to by their manifest ``id`` when given, else by their position. Returns
    (``workers.contracts.annotations.DetectionReport``)::

        {"kind": "detection_report", "version": 1, "split": "test", "samples": n, "classes": [names],
         "map": m, "map50": m50, "map75": m75, "headline": {"map", "map50", "map75"},
         "per_class": [{"label", "ap", "ap50", "ap75", "ground_truth", "pr_curve": {"recall", "precision"}}],
         "confusion_matrix": {"labels": [names..., "background"], "matrix": [[int]]},  # rows: true
         "score_threshold": 0.3,
         "bad_cases": [{"sample", "path", "width", "height", "false_positives", "missed",
                        "predicted": [{"label", "x", "y", "width", "height", "score"}], "truth": [...]}],
         "model": {"path", "sha256"}}

    ``bad_cases``: at most that many images with errors, most errors (false positives + missed)
    first. mAP figures are -1 when the split holds no object at all.
    """
    if not 0.0 <= score_threshold <= 1.0:
        raise ValueError(f"score_threshold must be within 0..1, got {score_threshold}")
    data = parse_manifest(manifest, check_files=True, min_boxes_per_class=0)
    samples = data.split(split)
    if not samples:
        raise ManifestError(f"the {split} split is empty: nothing to evaluate")
    classes = list(data.classes)
    predictions: list[DetectionPrediction] = []
    detector = Detector(model_path, preprocessing=preprocessing, threads=threads)
    if detector.classes != classes:
        raise ValueError(
            f"the model detects {detector.classes} but the dataset's classes are {classes}; "
            "evaluate a model on the classes it was trained on"
        )
    last_report = time.monotonic()
    for start in range(0, len(samples), BATCH_SIZE):
        batch = samples[start : start + BATCH_SIZE]
        images = [open_image(s.path, detector.preprocessing) for s in batch]
        predictions.extend(
            detector.detect(images, score_threshold=AP_SCORE_THRESHOLD, max_detections=MAX_DETECTIONS)
        )
        done = start + len(batch)
        if time.monotonic() - last_report >= REPORT_INTERVAL_S or done == len(samples):
            last_report = time.monotonic()
            report(
                f"evaluated {done}/{len(samples)} images",
                fraction=done / len(samples),
                milestone=done == len(samples),
                evaluated=done,
                total=len(samples),
            )
    model_file = Path(model_path) / "model.onnx" if Path(model_path).is_dir() else Path(model_path)

    metrics = coco_evaluate(
        [_truth(s) for s in samples],
        [_detections(p) for p in predictions],
        classes,
        score_threshold=score_threshold,
    )
    errors = np.array([[e["false_positives"], e["missed"]] for e in metrics["images"]], dtype=np.int64)
    totals = errors.sum(axis=1)
    worst = [int(i) for i in np.argsort(-totals, kind="stable")[: max(0, bad_cases)] if totals[i] > 0]
    headline: DetectionHeadline = {
        "map": metrics["map"],
        "map50": metrics["map50"],
        "map75": metrics["map75"],
    }
    return {
        "kind": "detection_report",
        "version": REPORT_VERSION,
        "split": split,
        "samples": len(samples),
        "classes": classes,
        "map": metrics["map"],
        "map50": metrics["map50"],
        "map75": metrics["map75"],
        "headline": headline,
        "per_class": metrics["per_class"],
        "confusion_matrix": metrics["confusion_matrix"],
        "score_threshold": float(score_threshold),
        "bad_cases": [
            _bad_case(samples[i], predictions[i], metrics["images"][i], classes, score_threshold)
            for i in worst
        ],
        "model": {"path": os.fspath(model_path), "sha256": sha256_of(model_file)},
    }


def _delta(label: str, a: float, b: float) -> ClassAPDelta:
    # -1 marks "no AP" (no ground truth in that split, or the class is unknown to that report)
    return {"label": label, "a": a, "b": b, "delta": b - a if a >= 0 and b >= 0 else 0.0}


def compare_reports(report_a: DetectionReport, report_b: DetectionReport) -> DetectionComparison:
    """Two detection reports side by side; every ``delta`` is b minus a.

    Classes are matched by name (a's order, then b's new classes). An AP is -1 where the class has
    no ground truth in that report's split or is not among its classes; the delta is then 0 (there
    is nothing to compare). Returns (``workers.contracts.annotations.DetectionComparison``)::

        {"kind": "detection_comparison", "version": 1, "split": "test",
         "map": {"label": "map", "a", "b", "delta"}, "map50": {"label": "map50", ...},
         "per_class": [{"label", "a", "b", "delta"}]}    # AP@[.5:.95]
    """
    ap_a = {row["label"]: row["ap"] for row in report_a["per_class"]}
    ap_b = {row["label"]: row["ap"] for row in report_b["per_class"]}
    labels = list(ap_a) + [label for label in ap_b if label not in ap_a]
    return {
        "kind": "detection_comparison",
        "version": COMPARISON_VERSION,
        "split": report_a["split"],
        "map": _delta("map", report_a["map"], report_b["map"]),
        "map50": _delta("map50", report_a["map50"], report_b["map50"]),
        "per_class": [_delta(label, ap_a.get(label, -1.0), ap_b.get(label, -1.0)) for label in labels],
    }
