"""The device SDK of an object detector: the fp32 model and an int8 one (ONNX Runtime static
quantization calibrated on training images), mAP@.5 of each on the test split and the drop, test
vectors (images and the platform's boxes for each model), a Python sample running the platform's own
preprocessing and box decoding (``workers/object_detection/decode.py``, vendored byte for byte) and a
JavaScript sample (onnxruntime-web; the decoding ported, boxes drawn on a canvas in the HTML page)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workers.contracts.annotations import DetectionBox, DetectionPrediction
from workers.packaging.artifacts import ModelArtifacts
from workers.packaging.device_sdk import (
    ALREADY_QUANTIZED,
    MAX_CALIBRATION_IMAGES,
    ONNXRUNTIME_WEB_VERSION,
    archive_device_sdk,
    is_quantized,
    quantize_int8,
)
from workers.packaging.package_contents import (
    TEMPLATES_DIR,
    VECTORS_FORMAT,
    PackagingError,
    copy_template_tree,
    created_at,
    describe_onnx,
    pick_test_vectors,
    pinned_requirements,
    vendor_runtime,
    write_json,
    write_vector_images,
)
from workers.packaging.server_package import stage_model_files, template_values
from workers.progress import Report, silent_report

# the answer's defaults (the hosted API's): the test vectors hold the boxes a default request returns
SCORE_THRESHOLD = 0.3
MAX_DETECTIONS = 100
# mAP is measured over the whole ranking, as the evaluation report does: boxes down to this score
MAP_SCORE_THRESHOLD = 0.001
MATCH_IOU = 0.5
EVALUATION_BATCH = 32
# what the Python sample runs of the platform's own code (copied as it is into python/workers/)
# the classifier SDK's Pillow-exact preprocessing and page helpers, shipped as they are
SHARED_JAVASCRIPT = ("preprocess.mjs", "sdk_page.mjs")
SAMPLE_MODULES = ("workers.object_detection.decode", "workers.image_classification.preprocessing")
QUANTIZATION = {
    "format": "QDQ",
    "activations": "uint8 (per tensor)",
    "weights": "int8 (per channel)",
    "calibration": "MinMax",
    "tool": "onnxruntime.quantization.quantize_static",
}


def model_dir_for(model_path: Path, root: Path, folder: Path) -> Path:
    """A model directory (model.onnx + the JSON companions) that the platform's Detector loads."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(model_path, folder / "model.onnx")
    for name in ("preprocess.json", "labels.json"):
        shutil.copyfile(root / name, folder / name)
    write_json(folder / "manifest.json", {"template": "object_detection"})
    return folder


def load_detector(model_dir: Path) -> Any:
    from workers.object_detection.predictor import Detector

    try:
        return Detector(model_dir)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise PackagingError(f"the model cannot be served as object_detection ({exc})") from None


def detect_files(
    detector: Any,
    paths: Sequence[str | os.PathLike[str]],
    *,
    score_threshold: float = SCORE_THRESHOLD,
    max_detections: int = MAX_DETECTIONS,
) -> list[DetectionPrediction]:
    """The platform's answers for image files, in batches (the images opened as the server opens them)."""
    from workers.image_classification.preprocessing import open_image

    answers: list[DetectionPrediction] = []
    for start in range(0, len(paths), EVALUATION_BATCH):
        images = [open_image(path) for path in paths[start : start + EVALUATION_BATCH]]
        answers.extend(
            detector.detect(images, score_threshold=score_threshold, max_detections=max_detections)
        )
    return answers


def iou(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """Intersection over union of two ``{x, y, width, height}`` boxes."""
    left, top = max(a["x"], b["x"]), max(a["y"], b["y"])
    right = min(a["x"] + a["width"], b["x"] + b["width"])
    bottom = min(a["y"] + a["height"], b["y"] + b["height"])
    inter = max(0.0, right - left) * max(0.0, bottom - top)
    union = a["width"] * a["height"] + b["width"] * b["height"] - inter
    return float(inter / union) if union > 0 else 0.0


def match_boxes(
    reference: Sequence[Mapping[str, Any]], other: Sequence[Mapping[str, Any]], *, min_iou: float = MATCH_IOU
) -> list[tuple[int, int | None]]:
    """Each reference box (by descending score) paired greedily with the unused box of ``other`` of the
    same class that overlaps it most (IoU >= ``min_iou``), or None when none does."""
    used: set[int] = set()
    pairs: list[tuple[int, int | None]] = []
    order = sorted(range(len(reference)), key=lambda i: -float(reference[i]["score"]))
    for i in order:
        best, best_iou = None, min_iou
        for j, box in enumerate(other):
            if j in used or box["index"] != reference[i]["index"]:
                continue
            overlap = iou(reference[i], box)
            if overlap >= best_iou:
                best, best_iou = j, overlap
        if best is not None:
            used.add(best)
        pairs.append((i, best))
    return pairs


def box_agreement(
    reference: Sequence[DetectionPrediction], other: Sequence[DetectionPrediction]
) -> float | None:
    """The share of the reference's boxes that ``other`` finds too (same class, IoU >= 0.5)."""
    found = total = 0
    for a, b in zip(reference, other, strict=True):
        pairs = match_boxes(a["boxes"], b["boxes"])
        total += len(pairs)
        found += sum(1 for _, j in pairs if j is not None)
    return found / total if total else None


def map50(
    predictions: Sequence[DetectionPrediction],
    truth: Sequence[Sequence[DetectionBox]],
    classes: Sequence[str],
) -> float:
    """COCO mAP@.5 of the predictions (the evaluation report's own metric code)."""
    from workers.object_detection.metrics import coco_evaluate

    ranked = [
        [(b["index"], b["score"], b["x"], b["y"], b["width"], b["height"]) for b in p["boxes"]]
        for p in predictions
    ]
    return float(coco_evaluate([list(t) for t in truth], ranked, list(classes))["map50"])


def at_default_threshold(prediction: DetectionPrediction) -> DetectionPrediction:
    """The answer a default request gets, from one decoded at a lower threshold (NMS only lets a box
    suppress lower-scoring ones, so the boxes above the default threshold are the same)."""
    kept = [box for box in prediction["boxes"] if box["score"] >= SCORE_THRESHOLD][:MAX_DETECTIONS]
    return {"boxes": kept, "width": prediction["width"], "height": prediction["height"]}


def compression_report(
    detectors: Mapping[str, Any], paths: Mapping[str, Path], artifacts: ModelArtifacts, calibration_count: int
) -> dict[str, Any]:
    """Size and test mAP@.5 of both models, the drop, and how many of fp32's boxes int8 finds too."""
    test = list(artifacts.test_images)
    ranked = {
        name: detect_files(detector, test, score_threshold=MAP_SCORE_THRESHOLD)
        for name, detector in detectors.items()
    }
    default = {name: [at_default_threshold(p) for p in answers] for name, answers in ranked.items()}
    truth = artifacts.test_boxes
    scores = {
        name: (map50(ranked[name], truth, artifacts.classes) if truth is not None and test else None)
        for name in ranked
    }
    size32, size8 = paths["fp32"].stat().st_size, paths["int8"].stat().st_size
    drop = (
        scores["fp32"] - scores["int8"] if scores["fp32"] is not None and scores["int8"] is not None else None
    )
    return {
        "format": "sampan.compression_report/1",
        "task": "detection",
        "test_images": len(test),
        "fp32": {"file": paths["fp32"].name, "bytes": size32, "map50": scores["fp32"]},
        "int8": {"file": paths["int8"].name, "bytes": size8, "map50": scores["int8"]},
        "size_ratio": round(size8 / size32, 4),
        "map50_drop": None if drop is None else round(drop, 6),
        "box_agreement": box_agreement(default["fp32"], default["int8"]),
        "score_threshold": SCORE_THRESHOLD,
        "quantization": {**QUANTIZATION, "calibration_images": calibration_count},
    }


def expected_detections(
    detector: Any, vectors: Sequence[Mapping[str, Any]], folder: Path, classes: Sequence[str]
) -> dict[str, Any]:
    """The platform's answer to a default request (score >= 0.3, at most 100 boxes) for each vector."""
    answers = detect_files(detector, [folder / vector["file"] for vector in vectors])
    return {
        "format": VECTORS_FORMAT,
        "data_kind": "image",
        "task": "detection",
        "classes": list(classes),
        "score_threshold": SCORE_THRESHOLD,
        "max_detections": MAX_DETECTIONS,
        "vectors": [{**vector, **answer} for vector, answer in zip(vectors, answers, strict=True)],
    }


def build_detection_device_sdk(
    *,
    artifacts: ModelArtifacts,
    out_path: str | os.PathLike[str],
    calibration_images: Sequence[str | os.PathLike[str]],
    report: Report = silent_report,
) -> dict[str, Any]:
    """Build a detector's device SDK archive (zip) at ``out_path``; returns its report, the compression
    report (mAP@.5 of fp32 and int8 on ``artifacts.test_images`` against ``artifacts.test_boxes``)
    under ``"compression"``."""
    if not calibration_images:
        raise PackagingError(
            "static int8 quantization needs calibration images (training images); none were given"
        )
    if artifacts.test_instances:
        raise PackagingError("object_detection takes images: give test_images, not test_instances")
    when = created_at()
    spec = dict(artifacts.preprocessing)
    classes = list(artifacts.classes)
    with (
        tempfile.TemporaryDirectory(prefix="sampan-device-sdk-") as temp,
        tempfile.TemporaryDirectory(prefix="sampan-quantize-") as workdir,
    ):
        root, work = Path(temp), Path(workdir)
        report("Checking and copying the model", fraction=0.05)
        stage_model_files(artifacts, root, model_name="model.fp32.onnx")
        paths = {"fp32": root / "model.fp32.onnx", "int8": root / "model.int8.onnx"}
        already = is_quantized(paths["fp32"])
        if already:  # a compressed int8 model version: quantizing its QDQ graph again is invalid
            report("The model is already int8: shipped as it is", fraction=0.15)
            shutil.copyfile(paths["fp32"], paths["int8"])
            calibration_count = 0
        else:
            report(
                f"Quantizing to int8, calibrated on {min(len(calibration_images), MAX_CALIBRATION_IMAGES)} "
                "training images",
                fraction=0.15,
            )
            calibration_count = quantize_int8(
                paths["fp32"], paths["int8"], calibration_images, spec, work, symbolic_shape=False
            )
        detectors = {
            name: load_detector(model_dir_for(path, root, work / name)) for name, path in paths.items()
        }
        report("Measuring mAP@.5 of fp32 and int8 on the test images", fraction=0.45)
        compression = compression_report(detectors, paths, artifacts, calibration_count)
        if already:
            compression["quantization"] = ALREADY_QUANTIZED
            compression["int8_note"] = ALREADY_QUANTIZED["method"]
        write_json(root / "compression_report.json", compression)
        report("Writing the test vectors and samples", fraction=0.75)
        vectors = write_vector_images(
            pick_test_vectors(artifacts.test_images, None), root / "test_vectors" / "images"
        )
        for name, detector in detectors.items():
            expected = expected_detections(detector, vectors, root / "test_vectors", classes)
            write_json(
                root / "test_vectors" / f"expected.{name}.json", {**expected, "model": f"model.{name}.onnx"}
            )
        write_samples(root, artifacts, when)
        models = {name: {"file": path.name, **describe_onnx(path)} for name, path in paths.items()}
        return archive_device_sdk(
            root,
            out_path,
            artifacts,
            when,
            models=models,
            compression=compression,
            vectors=len(vectors),
            tolerance={"box_atol_px": 0.01, "score_atol": 1e-4, "min_iou": MATCH_IOU},
            report=report,
            manifest_fields={
                "samples": {
                    "python": "python/detect.py",
                    "javascript": "javascript/sampan_detector.mjs",
                    "html": "javascript/index.html",
                }
            },
        )


def write_samples(root: Path, artifacts: ModelArtifacts, when: str) -> None:
    """README, the Python sample with the platform's decode and preprocessing, its pinned requirements,
    and the JavaScript sample with the classification SDK's preprocessing and page modules."""
    values = {**template_values(artifacts, when), "onnxruntime_web_version": ONNXRUNTIME_WEB_VERSION}
    copy_template_tree(TEMPLATES_DIR / "device_detection", root, values)
    for shared in SHARED_JAVASCRIPT:
        shutil.copyfile(TEMPLATES_DIR / "device" / "javascript" / shared, root / "javascript" / shared)
    _, imports = vendor_runtime(SAMPLE_MODULES, root / "python")
    pins = pinned_requirements(imports) + [f"onnxruntime=={importlib.metadata.version('onnxruntime')}"]
    (root / "python" / "requirements.txt").write_text("\n".join(sorted(set(pins), key=str.lower)) + "\n")
