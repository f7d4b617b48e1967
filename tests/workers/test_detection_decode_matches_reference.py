"""workers.object_detection.decode (vectorized: threshold first, peaks of the survivors, NMS on an
IoU matrix) gives exactly the boxes of the algorithm its docstring states, written here cell by
cell in plain Python: 3 x 3 peaks at or above the threshold, the best CANDIDATES_PER_IMAGE peaks
(ties: earlier cells), boxes clipped to the input and scaled, greedy NMS per class, descending
score (ties: class, then cell order), at most max_detections. The JavaScript sample ports that
algorithm, so the Python side must not drift from it. Maps: uniform noise (peaks everywhere),
quantized scores and boxes (ties everywhere), and trained-like maps (low background, a few peaks)."""

from __future__ import annotations

import numpy as np
import pytest

from workers.object_detection.decode import (
    CANDIDATES_PER_IMAGE,
    OUTPUT_STRIDE,
    Detection,
    decode,
    local_peaks,
)


def reference_decode_image(
    scores: np.ndarray,
    boxes: np.ndarray,
    scale_x: float,
    scale_y: float,
    score_threshold: float,
    max_detections: int,
    iou_threshold: float,
) -> list[Detection]:
    classes, height, width = scores.shape
    threshold = np.float32(score_threshold)  # compared as float32, as the maps are
    cells = []
    for k in range(classes):
        for r in range(height):
            for c in range(width):
                value = scores[k, r, c]
                if not value >= threshold:
                    continue
                neighbours = [
                    scores[k, rr, cc]
                    for rr in range(max(0, r - 1), min(height, r + 2))
                    for cc in range(max(0, c - 1), min(width, c + 2))
                ]
                if all(value >= n for n in neighbours):
                    cells.append((k, r, c, float(value)))
    # the best peaks, ties to the earlier cell, then back in cell order
    best = sorted(range(len(cells)), key=lambda i: (-cells[i][3], i))[:CANDIDATES_PER_IMAGE]
    cells = [cells[i] for i in sorted(best)]
    size_x, size_y = width * OUTPUT_STRIDE, height * OUTPUT_STRIDE
    found: list[Detection] = []
    for k in range(classes):
        candidates = []
        for label, r, c, value in cells:
            if label != k:
                continue
            x, y, w, h = (float(boxes[ch, r, c]) for ch in range(4))
            x1, y1 = min(max(x, 0.0), size_x) * scale_x, min(max(y, 0.0), size_y) * scale_y
            x2, y2 = min(max(x + w, 0.0), size_x) * scale_x, min(max(y + h, 0.0), size_y) * scale_y
            if x2 > x1 and y2 > y1:
                candidates.append((value, x1, y1, x2, y2))
        order = sorted(range(len(candidates)), key=lambda i: -candidates[i][0])  # stable
        while order:
            best_i = order.pop(0)
            value, x1, y1, x2, y2 = candidates[best_i]
            found.append((k, value, x1, y1, x2 - x1, y2 - y1))
            survivors = []
            for j in order:
                _, a1, b1, a2, b2 = candidates[j]
                inter = max(min(x2, a2) - max(x1, a1), 0.0) * max(min(y2, b2) - max(y1, b1), 0.0)
                union = (x2 - x1) * (y2 - y1) + (a2 - a1) * (b2 - b1) - inter
                overlap = inter / max(union, 1e-12) if union > 0 else 0.0
                if overlap <= iou_threshold:
                    survivors.append(j)
            order = survivors
    found.sort(key=lambda d: -d[1])
    return found[:max_detections]


def maps(
    rng: np.random.Generator, kind: str, classes: int, height: int, width: int
) -> tuple[np.ndarray, ...]:
    if kind == "noise":
        scores = rng.random((classes, height, width)).astype(np.float32)
    elif kind == "ties":
        scores = (rng.integers(0, 5, (classes, height, width)) / 4).astype(np.float32)
    else:
        scores = (rng.random((classes, height, width)) * 0.02).astype(np.float32)
        for _ in range(int(rng.integers(1, 6))):
            k, r, c = rng.integers(0, classes), rng.integers(0, height), rng.integers(0, width)
            scores[k, r, c] = rng.uniform(0.2, 1.0)
    boxes = np.stack(
        [
            rng.uniform(-8, width * OUTPUT_STRIDE, (height, width)),
            rng.uniform(-8, height * OUTPUT_STRIDE, (height, width)),
            rng.uniform(-2, 24, (height, width)),
            rng.uniform(-2, 24, (height, width)),
        ]
    ).astype(np.float32)
    if kind == "ties":
        boxes = np.round(boxes / 4) * 4  # identical boxes: IoU ties and exact overlaps
    return scores, boxes


@pytest.mark.parametrize("kind", ["noise", "ties", "trained"])
def test_vectorized_decode_equals_the_cell_by_cell_algorithm(kind: str) -> None:
    rng = np.random.default_rng({"noise": 0, "ties": 1, "trained": 2}[kind])
    for _ in range(12):
        classes, height, width = int(rng.integers(1, 5)), int(rng.integers(1, 14)), int(rng.integers(1, 14))
        batch = [maps(rng, kind, classes, height, width) for _ in range(2)]
        scores, boxes = np.stack([s for s, _ in batch]), np.stack([b for _, b in batch])
        for threshold in (0.0, 0.05, 0.3):
            options = {
                "score_threshold": threshold,
                "max_detections": int(rng.integers(1, 60)),
                "iou_threshold": float(rng.choice([0.3, 0.5])),
            }
            got = decode(scores, boxes, scale_x=[1.5, 0.5], scale_y=[1.0, 3.0], **options)
            want = [
                reference_decode_image(scores[i], boxes[i], sx, sy, **options)
                for i, (sx, sy) in enumerate(((1.5, 1.0), (0.5, 3.0)))
            ]
            assert got == want


def test_more_peaks_than_candidates_keeps_the_best_with_ties_to_earlier_cells() -> None:
    rng = np.random.default_rng(3)
    scores, boxes = maps(rng, "ties", 12, 32, 32)
    scores = scores + (rng.integers(0, 3, scores.shape) / 64).astype(np.float32)  # ties, many peaks
    options = {"score_threshold": 0.0, "max_detections": 5000, "iou_threshold": 0.5}
    got = decode(scores[None], boxes[None], scale_x=1.0, scale_y=1.0, **options)[0]
    want = reference_decode_image(scores, boxes, 1.0, 1.0, **options)
    assert got == want
    assert int(local_peaks(scores).sum()) > CANDIDATES_PER_IMAGE  # the cut at the 1000 best ran
    assert 100 < len(got) <= CANDIDATES_PER_IMAGE
