"""Turning a detector's two output maps into boxes: peaks, thresholds and per-class NMS (NumPy only).

The same function runs in the hosted API, the server package and the device SDK's Python sample
(the JavaScript sample ports it line by line), so every path gives the same boxes.

The ONNX model's outputs, for an input of S x S pixels (``OUTPUT_STRIDE`` = 4, so maps of
S/4 x S/4 cells):

- ``scores`` [batch, classes, S/4, S/4]: the probability (sigmoid applied) that an object of the
  class is centred in the cell;
- ``boxes`` [batch, 4, S/4, S/4]: the box of the object centred in the cell, already decoded in
  the model's input pixels: left ``x``, top ``y``, ``width``, ``height``.

Decoding keeps the cells that are a class's local maximum in their 3 x 3 neighbourhood and score
at least ``score_threshold``, scales their boxes to the original image (``scale_x`` = original
width / S, ``scale_y`` = original height / S), clips them to the image, removes overlaps per class
(greedy NMS at ``iou_threshold``) and returns at most ``max_detections`` by descending score.
"""

from __future__ import annotations

import numpy as np

OUTPUT_STRIDE = 4
CANDIDATES_PER_IMAGE = 1000  # peaks kept (best first) before NMS

Detection = tuple[int, float, float, float, float, float]  # (class, score, x, y, width, height)


def local_peaks(scores: np.ndarray) -> np.ndarray:
    """A boolean mask of cells that are the maximum of their 3 x 3 neighbourhood, per class map
    (``scores`` shaped [classes, h, w]); CenterNet's NMS-free peak extraction."""
    classes, height, width = scores.shape
    padded = np.full((classes, height + 2, width + 2), -np.inf, dtype=scores.dtype)
    padded[:, 1:-1, 1:-1] = scores
    neighbourhood = scores.copy()
    for dy in range(3):
        for dx in range(3):
            np.maximum(neighbourhood, padded[:, dy : dy + height, dx : dx + width], out=neighbourhood)
    peaks: np.ndarray = scores >= neighbourhood
    return peaks


def iou_one_to_many(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one (x1, y1, x2, y2) box with each row of ``others``."""
    left = np.maximum(box[0], others[:, 0])
    top = np.maximum(box[1], others[:, 1])
    right = np.minimum(box[2], others[:, 2])
    bottom = np.minimum(box[3], others[:, 3])
    inter = np.clip(right - left, 0, None) * np.clip(bottom - top, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    union = area + areas - inter
    result: np.ndarray = np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)
    return result


def non_maximum_suppression(corners: np.ndarray, scores: np.ndarray, iou_threshold: float) -> list[int]:
    """Greedy NMS: indices of the kept boxes, best score first (ties keep the earlier index)."""
    order = list(np.argsort(-scores, kind="stable"))
    kept: list[int] = []
    while order:
        best = order.pop(0)
        kept.append(int(best))
        if not order:
            break
        rest = np.asarray(order)
        overlaps = iou_one_to_many(corners[best], corners[rest])
        order = [int(i) for i, overlap in zip(rest, overlaps, strict=True) if overlap <= iou_threshold]
    return kept


def decode_image(
    scores: np.ndarray,
    boxes: np.ndarray,
    *,
    scale_x: float,
    scale_y: float,
    score_threshold: float = 0.3,
    max_detections: int = 100,
    iou_threshold: float = 0.5,
) -> list[Detection]:
    """One image's detections from its ``scores`` [classes, h, w] and ``boxes`` [4, h, w] maps."""
    input_height, input_width = scores.shape[1] * OUTPUT_STRIDE, scores.shape[2] * OUTPUT_STRIDE
    candidates = local_peaks(scores) & (scores >= score_threshold)
    classes, rows, cols = np.nonzero(candidates)
    if classes.size == 0:
        return []
    values = scores[classes, rows, cols].astype(np.float64)
    if values.size > CANDIDATES_PER_IMAGE:
        top = np.argsort(-values, kind="stable")[:CANDIDATES_PER_IMAGE]
        classes, rows, cols, values = classes[top], rows[top], cols[top], values[top]
    x, y, w, h = (boxes[channel, rows, cols].astype(np.float64) for channel in range(4))
    x1 = np.clip(x, 0.0, input_width) * scale_x
    y1 = np.clip(y, 0.0, input_height) * scale_y
    x2 = np.clip(x + w, 0.0, input_width) * scale_x
    y2 = np.clip(y + h, 0.0, input_height) * scale_y
    corners = np.stack([x1, y1, x2, y2], axis=1)
    found: list[Detection] = []
    for label in np.unique(classes):
        members = np.flatnonzero((classes == label) & (x2 > x1) & (y2 > y1))
        for kept in non_maximum_suppression(corners[members], values[members], iou_threshold):
            i = members[kept]
            found.append(
                (
                    int(label),
                    float(values[i]),
                    float(x1[i]),
                    float(y1[i]),
                    float(x2[i] - x1[i]),
                    float(y2[i] - y1[i]),
                )
            )
    found.sort(key=lambda detection: -detection[1])
    return found[:max_detections]


def decode(
    scores: np.ndarray,
    boxes: np.ndarray,
    *,
    scale_x: float | list[float],
    scale_y: float | list[float],
    score_threshold: float = 0.3,
    max_detections: int = 100,
    iou_threshold: float = 0.5,
) -> list[list[Detection]]:
    """Per image of the batch: ``(class, score, x, y, width, height)`` in the original image's pixels,
    NMS per class, by descending score. ``scale_x``/``scale_y``: one factor for the whole batch or
    one per image (images of different sizes).

    >>> scores = np.zeros((1, 2, 4, 4), np.float32); scores[0, 1, 2, 2] = 0.9
    >>> boxes = np.zeros((1, 4, 4, 4), np.float32); boxes[0, :, 2, 2] = [6, 7, 4, 3]
    >>> decode(scores, boxes, scale_x=2.0, scale_y=1.0)
    [[(1, 0.8999999761581421, 12.0, 7.0, 8.0, 3.0)]]
    """
    if scores.ndim != 4 or boxes.ndim != 4 or boxes.shape[1] != 4 or scores.shape[0] != boxes.shape[0]:
        raise ValueError(
            "expected scores [batch, classes, h, w] and boxes [batch, 4, h, w], "
            f"got {scores.shape} and {boxes.shape}"
        )
    batch = scores.shape[0]
    scales_x = scale_x if isinstance(scale_x, list) else [float(scale_x)] * batch
    scales_y = scale_y if isinstance(scale_y, list) else [float(scale_y)] * batch
    return [
        decode_image(
            scores[i],
            boxes[i],
            scale_x=scales_x[i],
            scale_y=scales_y[i],
            score_threshold=score_threshold,
            max_detections=max_detections,
            iou_threshold=iou_threshold,
        )
        for i in range(batch)
    ]
