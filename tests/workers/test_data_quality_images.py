"""The quality report on real images: 500 digits (50 per class) as a dataset version with splits,
plus planted problems: copies (pixel-identical, re-encoded as JPEG, resized, re-lit), one crossing
from train into test; blurry, dark, overexposed, tiny, very wide and truncated pictures; and ten
flipped labels. Every planted problem is found, and clean digits are not flagged."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageFilter

from tests.workers.digits_data import Recorder, write_digits
from workers.contracts.smart_labeling import LabelPool, PoolSample
from workers.data_quality import run
from workers.progress import JobCancelled, silent_report

FLIPPED = 10


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("quality-digits")
    manifest = write_digits(root / "digits", per_class=50, seed=3)
    rng = np.random.default_rng(7)
    samples: list[PoolSample] = []
    for i, s in enumerate(manifest["samples"]):
        samples.append(
            {
                "id": 1000 + i,
                "sha256": f"{i:064x}",
                "label": s["label"],
                "image_path": s["path"],
                "width": 32,
                "height": 32,
                "split": s["split"],
            }
        )
    by_id = {s["id"]: s for s in samples}
    flipped = [int(x) for x in rng.choice([s["id"] for s in samples], FLIPPED, replace=False)]
    for sample_id in flipped:
        by_id[sample_id]["label"] = (by_id[sample_id]["label"] + int(rng.integers(1, 10))) % 10
    clean = {s["id"] for s in samples} - set(flipped)

    planted: dict[str, list[int]] = {}
    next_id = [5000]

    def add(
        image: Image.Image, *, like: PoolSample | None = None, fmt: str = "PNG", split: str = "train"
    ) -> int:
        sample_id = next_id[0]
        next_id[0] += 1
        path = root / f"planted-{sample_id}.{fmt.lower()}"
        image.save(path, fmt, **({"quality": 80} if fmt == "JPEG" else {}))
        samples.append(
            {
                "id": sample_id,
                "sha256": f"{sample_id:064x}",
                "label": like["label"] if like else int(rng.integers(0, 10)),
                "image_path": str(path),
                "width": image.width,
                "height": image.height,
                "split": split,
            }
        )
        return sample_id

    def source(position: int) -> tuple[PoolSample, Image.Image]:
        sample = samples[position]
        return sample, Image.open(sample["image_path"]).convert("RGB")

    trains = [i for i, s in enumerate(samples) if s["split"] == "train" and s["id"] in clean]
    original, image = source(trains[0])
    planted["exact"] = [original["id"], add(image, like=original, fmt="BMP")]
    original, image = source(trains[1])
    planted["jpeg"] = [original["id"], add(image, like=original, fmt="JPEG")]
    original, image = source(trains[2])
    planted["resized"] = [
        original["id"],
        add(image.resize((48, 48), Image.Resampling.BILINEAR), like=original),
    ]
    original, image = source(trains[3])
    planted["leak"] = [
        original["id"],
        add(ImageEnhance.Brightness(image).enhance(1.15), like=original, split="test"),
    ]
    original, image = source(trains[4])
    planted["blurry"] = [add(image.resize((96, 96)).filter(ImageFilter.GaussianBlur(6)), like=original)]
    original, image = source(trains[5])
    planted["dark"] = [add(ImageEnhance.Brightness(image).enhance(0.15), like=original)]
    original, image = source(trains[6])
    planted["overexposed"] = [add(Image.new("RGB", (32, 32), (252, 252, 252)), like=original)]
    original, image = source(trains[7])
    planted["tiny"] = [add(image.resize((16, 16)), like=original)]
    original, image = source(trains[8])
    planted["wide"] = [add(image.resize((200, 40)), like=original)]
    # a truncated JPEG: decodable only with LOAD_TRUNCATED_IMAGES; and its re-encoded copy (grey band)
    photo = Image.fromarray((rng.random((64, 64, 3)) * 255).astype(np.uint8)).resize((128, 128))
    buffer = io.BytesIO()
    photo.save(buffer, "JPEG", quality=90)
    truncated_path = root / "truncated.jpg"
    truncated_path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) * 6 // 10])
    planted["truncated"] = [add(photo, like=original)]
    samples[-1]["image_path"] = str(truncated_path)
    from PIL import ImageFile

    ImageFile.LOAD_TRUNCATED_IMAGES = True
    try:
        banded = Image.open(truncated_path).convert("RGB")
        banded.load()
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = False
    planted["grey_band"] = [add(banded, like=original)]
    original, image = source(trains[9])
    unlabeled = add(image.rotate(90), like=original)
    samples[-1]["label"] = None
    planted["unlabeled"] = [unlabeled]
    planted["flipped"] = flipped

    pool: LabelPool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "image_classification",
        "classes": [str(d) for d in range(10)],
        "samples": samples,
    }
    recorder = Recorder()
    report = run(pool, {}, work_dir=root, report=recorder)
    return {"report": report, "planted": planted, "clean": clean, "recorder": recorder, "pool": pool}


def _finding(report, code):
    found = [f for f in report["findings"] if f["code"] == code]
    assert found, f"no {code} finding in {[f['code'] for f in report['findings']]}"
    return found[0]


def _codes_of(report, sample_id):
    return {f["code"] for f in report["findings"] if sample_id in f["sample_ids"]}


def test_planted_duplicates_are_grouped_and_the_one_across_splits_is_leakage(planted):
    report, p = planted["report"], planted["planted"]
    assert p["exact"] in _finding(report, "exact_duplicates")["groups"]
    near_groups = _finding(report, "near_duplicates")["groups"]
    for kind in ("jpeg", "resized", "leak"):
        assert sorted(p[kind]) in [sorted(g) for g in near_groups], kind
    # distinct digits a few pHash bits apart are not near duplicates: every group holds one digit
    # and copies made from it (the planted dark, tiny and wide ones are re-lit or resized copies too)
    assert all(sum(1 for sample_id in g if sample_id < 5000) == 1 for g in near_groups), near_groups
    assert _finding(report, "split_leakage")["groups"] == [p["leak"]]
    assert "split_leakage" in report["checks"]


def test_planted_image_problems_are_found_and_clean_digits_are_not(planted):
    report, p, clean = planted["report"], planted["planted"], planted["clean"]
    expected = {
        "blurry": "blurry_image",
        "dark": "dark_image",
        "overexposed": "overexposed_image",
        "tiny": "tiny_image",
        "wide": "extreme_aspect_ratio",
        "truncated": "corrupt_image",
        "grey_band": "corrupt_image",
    }
    for kind, code in expected.items():
        assert p[kind][0] in _finding(report, code)["sample_ids"], kind
    image_codes = set(expected.values())
    flagged_clean = {s for s in clean if _codes_of(report, s) & image_codes}
    assert flagged_clean == set()
    names = {d["name"]: d for d in report["distributions"]}
    assert set(names) == {"brightness", "sharpness", "aspect_ratio"}
    assert sum(names["brightness"]["counts"]) == report["samples"]
    assert len(names["sharpness"]["edges"]) == len(names["sharpness"]["counts"]) + 1


def test_flipped_labels_are_likely_mislabeled_with_their_true_class_suggested(planted):
    report, p, pool = planted["report"], planted["planted"], planted["pool"]
    mislabeled = _finding(report, "likely_mislabeled")
    found = set(mislabeled["sample_ids"]) & set(p["flipped"])
    assert len(found) >= 8, (len(found), mislabeled["count"])
    assert mislabeled["count"] <= 2 * FLIPPED
    truth = {s["id"]: int(Path(s["image_path"]).parent.name) for s in pool["samples"] if s["id"] < 5000}
    items = {item["sample"]: item for item in mislabeled["items"]}
    right = sum(items[s]["suggested_label"] == truth[s] for s in found)
    assert right >= len(found) - 1
    scores = [item["value"] for item in mislabeled["items"]]
    assert scores == sorted(scores)  # most suspicious (lowest self-confidence) first


def test_balance_unlabeled_and_progress(planted):
    report, recorder = planted["report"], planted["recorder"]
    assert report["kind"] == "quality_report" and report["task_type"] == "image_classification"
    assert report["samples"] == len(planted["pool"]["samples"]) and report["labeled"] == report["samples"] - 1
    counts = [c["count"] for c in report["class_balance"]["classes"]]
    assert sum(counts) == report["labeled"] and report["class_balance"]["tiny_classes"] == []
    assert report["class_balance"]["imbalance_ratio"] < 2
    assert _finding(report, "unlabeled_samples")["sample_ids"] == planted["planted"]["unlabeled"]
    assert not any(f["code"] in ("tiny_class", "class_imbalance") for f in report["findings"])
    fractions = [c["fraction"] for c in recorder.calls if c["fraction"] is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) > 10


def test_a_tiny_and_an_imbalanced_class_are_named(planted, tmp_path: Path):
    pool = planted["pool"]
    few = [s for s in pool["samples"] if s["label"] == 3][:4]
    samples = [s for s in pool["samples"] if s["label"] in (0, 1)] + few
    report = run({**pool, "samples": samples[:80] + few}, {}, work_dir=tmp_path, report=silent_report)
    balance = report["class_balance"]
    assert 3 in balance["tiny_classes"] and balance["imbalance_ratio"] >= 10
    tiny = _finding(report, "tiny_class")
    assert {s["id"] for s in few} <= set(tiny["sample_ids"])
    assert _finding(report, "class_imbalance")["details"]["smallest"] == "3"


def test_cancelling_stops_the_run(planted, tmp_path: Path):
    def cancelling(message="", *, fraction=None, milestone=False, **metrics):
        if fraction and fraction > 0.1:
            raise JobCancelled()

    with pytest.raises(JobCancelled):
        run(planted["pool"], {}, work_dir=tmp_path, report=cancelling)


def test_detection_counts_boxes_and_finds_tiny_ones(planted, tmp_path: Path):
    digits = [s for s in planted["pool"]["samples"] if s["id"] < 1040]
    samples: list[PoolSample] = []
    for i, s in enumerate(digits):
        boxes = [{"label": i % 2, "x": 2.0, "y": 2.0, "width": 20.0, "height": 24.0}] * (1 + i % 3)
        samples.append({**s, "label": None, "boxes": boxes})
    samples[0]["boxes"] = [{"label": 1, "x": 0.0, "y": 0.0, "width": 5.0, "height": 30.0}]
    samples[1]["boxes"] = None  # not annotated yet
    samples[2]["boxes"] = []  # reviewed: nothing to annotate
    pool: LabelPool = {
        **planted["pool"],
        "task_type": "object_detection",
        "classes": ["a", "b"],
        "samples": samples,
    }
    report = run(pool, {}, work_dir=tmp_path, report=silent_report)
    tiny = _finding(report, "tiny_boxes")
    assert tiny["sample_ids"] == [samples[0]["id"]] and tiny["items"][0]["value"] == 5.0
    boxes = [len(s["boxes"] or []) for s in samples]
    counts = [c["count"] for c in report["class_balance"]["classes"]]
    assert sum(counts) == sum(boxes) and report["labeled"] == len(samples) - 1
    assert _finding(report, "unlabeled_samples")["sample_ids"] == [samples[1]["id"]]
    assert "likely_mislabeled" in report["checks"]
    assert "boxes_per_image" in [d["name"] for d in report["distributions"]]


def test_detection_boxes_with_a_changed_class_are_likely_mislabeled(tmp_path):
    from workers.object_detection.synthetic import digit_scenes, scene_classes

    rng = np.random.default_rng(1)
    samples: list[PoolSample] = []
    changed: set[int] = set()
    for i, (image, boxes) in enumerate(digit_scenes(160, size=96, seed=5)):
        path = tmp_path / f"{i}.png"
        image.save(path)
        pool_boxes = [dict(b) for b in boxes]
        if i % 16 == 3:  # one box in ten images gets another digit's class
            pool_boxes[0]["label"] = (pool_boxes[0]["label"] + int(rng.integers(1, 10))) % 10
            changed.add(i)
        samples.append(
            {
                "id": i,
                "sha256": "",
                "label": None,
                "boxes": pool_boxes,
                "image_path": str(path),
                "width": 96,
                "height": 96,
            }  # type: ignore[typeddict-item]
        )
    pool: LabelPool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "object_detection",
        "classes": scene_classes(),
        "samples": samples,
    }
    report = run(pool, {}, work_dir=tmp_path, report=silent_report)
    mislabeled = _finding(report, "likely_mislabeled")
    found = set(mislabeled["sample_ids"]) & changed
    assert len(found) >= 8, (len(found), mislabeled["count"])
    assert mislabeled["count"] <= 3 * len(changed)
