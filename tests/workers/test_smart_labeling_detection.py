"""Smart labeling for object detection: a quick det_small trained on the annotated synthetic scenes
suggests boxes for the unannotated ones (about a minute on two cores: listed in conftest's SLOW)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workers.object_detection.synthetic import digit_scenes, write_manifest
from workers.smart_labeling import run
from workers.smart_labeling.detection import SUGGEST_SCORE


def iou(a: dict[str, Any], b: dict[str, Any]) -> float:
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    inter = max(0.0, w) * max(0.0, h)
    return inter / (a["width"] * a["height"] + b["width"] * b["height"] - inter)


def test_a_quick_detector_suggests_boxes_for_unannotated_scenes(tmp_path: Path):
    manifest = write_manifest(
        digit_scenes(30, size=64, seed=1, digits_per_image=(1, 2), classes="one"),
        tmp_path / "scenes",
        classes="one",
    )
    samples = [
        {
            "id": 100 + i,
            "sha256": "",
            "label": None,
            "image_path": s["path"],
            "width": s["width"],
            "height": s["height"],
            "boxes": s["boxes"] if i < 20 else None,
        }
        for i, s in enumerate(manifest["samples"])
    ]
    pool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "object_detection",
        "classes": ["digit"],
        "samples": samples,
    }
    fractions: list[float] = []

    def report(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        if fraction is not None:
            fractions.append(fraction)

    result = run(
        pool,
        {"batch_size": 4, "strategy": "uncertainty_diversity", "seed": 0},
        work_dir=tmp_path / "w",
        report=report,
    )

    suggestions = result["suggestions"]
    assert [s["id"] for s in suggestions] == [100 + i for i in range(20, 30)]
    assert sorted(s["rank"] for s in suggestions if s["rank"] is not None) == [1, 2, 3, 4]
    for s in suggestions:
        assert s["label"] is None and 0.0 <= s["confidence"] <= 1.0
        for box in s["boxes"]:
            assert box["label"] == 0 and box["score"] >= SUGGEST_SCORE
            assert box["x"] >= -1 and box["x"] + box["width"] <= 65 and box["width"] > 0
    # the quick detector (60 steps) finds real digits: many suggested boxes sit on a true one
    truth = {100 + i: s["boxes"] for i, s in enumerate(manifest["samples"])}
    suggested = [(s["id"], b) for s in suggestions for b in s["boxes"]]
    assert suggested, "no box suggested at all"
    hits = sum(1 for sid, b in suggested if any(iou(b, t) >= 0.3 for t in truth[sid]))
    # a box of that size put at random hits a digit about one time in ten
    assert hits / len(suggested) >= 0.25, (hits, len(suggested))
    summary = result["summary"]
    assert summary["labeled"] == 20 and summary["unlabeled"] == 10 and "det_small" in summary["model"]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
