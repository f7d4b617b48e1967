"""Object detection: boxes whose class looks wrong. Each box is cut out of its image (32x32), the
crops become a classification pool, and the mislabel finder (:mod:`.mislabels`) runs on them: a box
labeled "3" whose crop the out-of-fold models call an "8" is flagged. It checks the class of boxes
people drew, not boxes missing or misplaced (that would need a detector)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from workers.contracts.quality import FindingItem
from workers.contracts.smart_labeling import LabelPool, PoolSample
from workers.data_quality.findings import stage
from workers.progress import Report

CROP_SIZE = 32
MIN_BOX_SIDE = 4.0
MAX_CROPS = 20_000


def box_mislabels(
    pool: LabelPool, positions: Sequence[int], *, work_dir: Path, report: Report, seed: int = 0
) -> list[FindingItem]:
    """Items (``sample`` = the sample's id, ``label`` the box's class, ``suggested_label``,
    ``confidence``, ``value``) for samples with a box whose class looks wrong, most suspicious first,
    one per sample. Raises ``mislabels.TooFewLabels`` with under 2 classes of 2 boxes."""
    from PIL import Image, ImageOps

    from workers.data_quality.mislabels import TooFewLabels, find_mislabels
    from workers.smart_labeling.features import pool_features

    samples = pool["samples"]
    folder = work_dir / "box-crops"
    folder.mkdir(parents=True, exist_ok=True)
    crops: list[PoolSample] = []
    owners: list[int] = []
    labels: list[int] = []
    step = max(1, len(positions) // 20)
    for n, position in enumerate(positions):
        if n % step == 0:
            report(
                f"cutting out boxes ({n}/{len(positions)} images)", fraction=0.4 * n / max(len(positions), 1)
            )
        sample = samples[position]
        boxes = [b for b in sample.get("boxes") or [] if min(b["width"], b["height"]) >= MIN_BOX_SIDE]
        if not boxes or len(crops) >= MAX_CROPS:
            continue
        try:
            with Image.open(sample.get("image_path", "")) as image:
                ImageOps.exif_transpose(image, in_place=True)
                rgb = image.convert("RGB")
        except (OSError, ValueError, Image.DecompressionBombError):
            continue  # the image checks report it
        for box in boxes:
            left, top = max(0, int(box["x"])), max(0, int(box["y"]))
            right = min(rgb.width, int(np.ceil(box["x"] + box["width"])))
            bottom = min(rgb.height, int(np.ceil(box["y"] + box["height"])))
            if right - left < MIN_BOX_SIDE or bottom - top < MIN_BOX_SIDE:
                continue
            path = folder / f"{len(crops)}.png"
            rgb.crop((left, top, right, bottom)).resize(
                (CROP_SIZE, CROP_SIZE), Image.Resampling.BILINEAR
            ).save(path)
            crops.append({"id": len(crops), "sha256": "", "label": box["label"], "image_path": str(path)})
            owners.append(sample["id"])
            labels.append(box["label"])
    if len(crops) < 4:
        raise TooFewLabels("fewer than 4 boxes to compare")
    crop_pool: LabelPool = {**pool, "task_type": "image_classification", "samples": crops}
    features = pool_features(crop_pool, work_dir=work_dir, report=stage(report, 0.4, 0.8))
    report(f"comparing the classes of {len(crops)} boxes", fraction=0.85)
    items = find_mislabels(features, np.array(labels, dtype=np.int64), seed=seed)
    seen: set[int] = set()
    out: list[FindingItem] = []
    for item in items:
        owner = owners[item["sample"]]
        if owner not in seen:
            seen.add(owner)
            out.append({**item, "sample": owner})
    return out
