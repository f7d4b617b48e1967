"""Smart labeling for object detection: the detection template's ``fast`` detector (``det_small`` at
64x64 pixels) trained for a few epochs on the annotated images, then run on every unannotated one.

A suggestion holds the boxes found with a score of at least ``SUGGEST_SCORE``; its confidence is
their mean score (1.0 when none is found). The acquisition score is the most hesitant detection
in the image: ``max(1 - |2 score - 1|)`` over the boxes scoring at least ``LOOK_SCORE`` (a box at
0.5 is the least sure), and the diversity half of the ranking uses the images' features
(:mod:`workers.smart_labeling.features`).

Classes with fewer annotated boxes than the template needs are left out of the quick detector
(their boxes are not suggested this round). With 10 or more annotated images a fifth is held out and
the detector's mAP@.5 on it is the round's estimated accuracy.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from workers.contracts.annotations import DetectionManifest, DetectionSample
from workers.contracts.smart_labeling import (
    LabelPool,
    SampleSuggestion,
    SmartLabelingParams,
    SmartLabelingResult,
    SuggestedBox,
)
from workers.progress import Report

MIN_ANNOTATED_IMAGES = 4
SUGGEST_SCORE = 0.3
LOOK_SCORE = 0.1
TARGET_STEPS = 150  # optimizer steps: under a minute on two idle CPU cores at 64x64
MIN_EPOCHS, MAX_EPOCHS = 3, 30
BATCH_SIZE = 8
DETECT_BATCH = 64


def run_detection(
    pool: LabelPool,
    params: SmartLabelingParams,
    *,
    work_dir: Path,
    report: Report,
    cache_dir: Path | None = None,
) -> SmartLabelingResult:
    from workers import smart_labeling as sl
    from workers.object_detection.template import MIN_BOXES_PER_CLASS

    samples = pool["samples"]
    annotated = [i for i, s in enumerate(samples) if s.get("boxes") is not None]
    unannotated = [i for i, s in enumerate(samples) if s.get("boxes") is None]
    if not unannotated:
        raise sl.NothingToSuggest("every image is annotated: there is nothing to suggest")
    with_boxes = [i for i in annotated if samples[i].get("boxes")]
    if len(with_boxes) < MIN_ANNOTATED_IMAGES:
        raise sl.NotEnoughLabels(
            f"smart labeling needs at least {MIN_ANNOTATED_IMAGES} annotated images with boxes; "
            f"{len(with_boxes)} have boxes"
        )
    counts = np.zeros(len(pool["classes"]), dtype=np.int64)
    for i in annotated:
        for box in samples[i].get("boxes") or []:
            counts[box["label"]] += 1
    kept = [c for c in range(len(pool["classes"])) if counts[c] >= MIN_BOXES_PER_CLASS]
    if not kept:
        raise sl.NotEnoughLabels(
            f"smart labeling needs a class with at least {MIN_BOXES_PER_CLASS} annotated boxes"
        )
    features = sl.read_features(pool, work_dir, sl.scaled_report(report, 0.0, 0.1), cache_dir)
    manifest = _manifest(pool, annotated, kept, seed=params["seed"])
    steps_per_epoch = max(1, math.ceil(sum(s["split"] == "train" for s in manifest["samples"]) / BATCH_SIZE))
    epochs = max(MIN_EPOCHS, min(MAX_EPOCHS, math.ceil(TARGET_STEPS / steps_per_epoch)))
    from workers.object_detection.trainer import train

    report(f"training a quick detector ({epochs} epochs)", fraction=0.1)
    result = train(
        {"preset": "fast", "epochs": epochs, "batch_size": BATCH_SIZE, "seed": params["seed"]},
        manifest,
        work_dir / "quick-detector",
        sl.scaled_report(report, 0.1, 0.8),
        threads=None,
    )
    estimated = result["metrics"].get("best_val_map50")
    detected = _detect(pool, unannotated, work_dir / "quick-detector", kept, report)
    priority = np.zeros(len(unannotated))
    suggestions: list[SampleSuggestion] = []
    per_class = [0] * len(pool["classes"])
    for position, boxes in enumerate(detected):
        looked = [b["score"] for b in boxes]
        priority[position] = max((1.0 - abs(2.0 * s - 1.0) for s in looked), default=0.0)
    order = sl.rank_batch(
        params["strategy"],
        priority,
        features[unannotated],
        features[annotated],
        params["batch_size"],
        seed=params["seed"],
    )
    ranks = {int(position): r + 1 for r, position in enumerate(order)}
    for position, (index, boxes) in enumerate(zip(unannotated, detected, strict=True)):
        suggested = [b for b in boxes if b["score"] >= SUGGEST_SCORE]
        for b in suggested:
            per_class[b["label"]] += 1
        suggestions.append(
            {
                "id": samples[index]["id"],
                "label": None,
                "confidence": round(float(np.mean([b["score"] for b in suggested])) if suggested else 1.0, 6),
                "scores": [],
                "boxes": suggested,
                "value": None,
                "priority": round(float(priority[position]), 6),
                "rank": ranks.get(position),
            }
        )
    return sl.round_result(
        pool,
        params,
        suggestions,
        labeled=len(annotated),
        estimated=None if estimated is None else float(estimated),
        per_class=per_class,
        model=f"det_small detector at 64x64, {epochs} epochs",
    )


def _manifest(pool: LabelPool, annotated: list[int], kept: list[int], *, seed: int) -> DetectionManifest:
    """The annotated images as a detection manifest over the ``kept`` classes; a fifth held out as val
    when there are 10 or more and every kept class keeps a box in train."""
    samples = pool["samples"]
    remap = {c: i for i, c in enumerate(kept)}
    rows: list[DetectionSample] = []
    for i in annotated:
        s = samples[i]
        rows.append(
            {
                "id": s["id"],
                "path": s.get("image_path", ""),
                "width": int(s.get("width", 0)),
                "height": int(s.get("height", 0)),
                "boxes": [
                    {
                        "label": remap[b["label"]],
                        "x": b["x"],
                        "y": b["y"],
                        "width": b["width"],
                        "height": b["height"],
                    }
                    for b in s.get("boxes") or []
                    if b["label"] in remap
                ],
                "split": "train",
            }
        )
    if len(rows) >= 10:
        order = np.random.default_rng(seed).permutation(len(rows))
        held = set(order[: len(rows) // 5].tolist())
        trained = {b["label"] for r, row in enumerate(rows) if r not in held for b in row["boxes"]}
        if trained == set(range(len(kept))):
            for r in held:
                rows[r]["split"] = "val"
    return {"kind": "detection", "version": 1, "classes": [pool["classes"][c] for c in kept], "samples": rows}


def _detect(
    pool: LabelPool, indices: list[int], model_dir: Path, kept: list[int], report: Report
) -> list[list[SuggestedBox]]:
    """Boxes (pool class indices, image pixels, score >= LOOK_SCORE) for each of ``indices``."""
    from PIL import Image, ImageOps

    from workers.object_detection.predictor import Detector

    detector = Detector(model_dir)
    samples = pool["samples"]
    out: list[list[SuggestedBox]] = []
    for start in range(0, len(indices), DETECT_BATCH):
        report(f"detecting ({start}/{len(indices)} images)", fraction=0.8 + 0.15 * start / len(indices))
        images = []
        for i in indices[start : start + DETECT_BATCH]:
            with Image.open(samples[i].get("image_path", "")) as image:
                images.append(ImageOps.exif_transpose(image).convert("RGB"))
        for found in detector.detect(images, score_threshold=LOOK_SCORE):
            out.append(
                _one_label_per_object(
                    [
                        {
                            "label": kept[b["index"]],
                            "x": round(float(b["x"]), 2),
                            "y": round(float(b["y"]), 2),
                            "width": round(float(b["width"]), 2),
                            "height": round(float(b["height"]), 2),
                            "score": round(float(b["score"]), 4),
                        }
                        for b in found["boxes"]
                    ]
                )
            )
    return out


def _one_label_per_object(boxes: list[SuggestedBox], overlap: float = 0.7) -> list[SuggestedBox]:
    """The decoder scores every class at an object's centre; a person labels it once: keep the best
    scoring box among those overlapping it by IoU > ``overlap`` whatever their class."""
    kept: list[SuggestedBox] = []
    for box in sorted(boxes, key=lambda b: -b["score"]):
        if all(_iou(box, other) <= overlap for other in kept):
            kept.append(box)
    return kept


def _iou(a: SuggestedBox, b: SuggestedBox) -> float:
    width = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    height = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    inter = max(0.0, width) * max(0.0, height)
    union = a["width"] * a["height"] + b["width"] * b["height"] - inter
    return inter / union if union > 0 else 0.0
