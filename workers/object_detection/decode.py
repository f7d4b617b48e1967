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
    (``scores`` shaped [classes, h, w]); CenterNet's NMS-free peak extraction. The neighbourhood's
    maximum is taken along rows, then along columns (the same maximum, four passes, no padding)."""
    rows = scores.copy()
    np.maximum(rows[:, 1:], scores[:, :-1], out=rows[:, 1:])
    np.maximum(rows[:, :-1], scores[:, 1:], out=rows[:, :-1])
    neighbourhood = rows.copy()
    np.maximum(neighbourhood[:, :, 1:], rows[:, :, :-1], out=neighbourhood[:, :, 1:])
    np.maximum(neighbourhood[:, :, :-1], rows[:, :, 1:], out=neighbourhood[:, :, :-1])
    peaks: np.ndarray = scores >= neighbourhood
    return peaks


def _peaks_among(scores: np.ndarray, classes: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """:func:`local_peaks` at a few cells only, each against its 3 x 3 neighbourhood in one gather.
    Indexes past an edge are clamped to it: they land on cells of the same neighbourhood, so the
    maximum is unchanged."""
    _, height, width = scores.shape
    near_rows = np.clip(rows[:, None] + _OFFSETS_Y, 0, height - 1)
    near_cols = np.clip(cols[:, None] + _OFFSETS_X, 0, width - 1)
    neighbourhood = scores[classes[:, None], near_rows, near_cols].max(axis=1)
    peak: np.ndarray = scores[classes, rows, cols] >= neighbourhood
    return peak


_OFFSETS_Y, _OFFSETS_X = (offsets.ravel() for offsets in np.mgrid[-1:2, -1:2])


def iou_matrix(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of each (x1, y1, x2, y2) row of ``boxes`` with each row of ``others``."""
    left = np.maximum(boxes[:, None, 0], others[None, :, 0])
    top = np.maximum(boxes[:, None, 1], others[None, :, 1])
    right = np.minimum(boxes[:, None, 2], others[None, :, 2])
    bottom = np.minimum(boxes[:, None, 3], others[None, :, 3])
    inter = np.maximum(right - left, 0.0) * np.maximum(bottom - top, 0.0)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    union = area[:, None] + areas[None, :] - inter
    result: np.ndarray = np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)
    return result


def non_maximum_suppression(corners: np.ndarray, scores: np.ndarray, iou_threshold: float) -> list[int]:
    """Greedy NMS: indices of the kept boxes, best score first (ties keep the earlier index). Each
    kept box removes the later boxes overlapping it by more than ``iou_threshold``."""
    order = np.argsort(-scores, kind="stable")
    if len(order) < 2:
        return [int(i) for i in order]
    overlaps = iou_matrix(corners[order], corners[order])
    removed = np.zeros(len(order), dtype=bool)
    kept: list[int] = []
    for position in range(len(order)):
        if removed[position]:
            continue
        kept.append(int(order[position]))
        removed[position + 1 :] |= ~(overlaps[position, position + 1 :] <= iou_threshold)
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
    # the threshold first: the peak test then runs on the few cells above it (the whole map only
    # when many are, e.g. at the low thresholds of an evaluation)
    classes, rows, cols = np.unravel_index(np.flatnonzero(scores >= score_threshold), scores.shape)
    if classes.size == 0:
        return []
    if classes.size * 9 < scores.size:
        peak = _peaks_among(scores, classes, rows, cols)
    else:
        peak = local_peaks(scores)[classes, rows, cols]
    classes, rows, cols = classes[peak], rows[peak], cols[peak]
    if classes.size == 0:
        return []
    values = scores[classes, rows, cols].astype(np.float64)
    if values.size > CANDIDATES_PER_IMAGE:
        # the best CANDIDATES_PER_IMAGE, ties at the cut going to the earlier cells
        cut = np.partition(values, values.size - CANDIDATES_PER_IMAGE)[values.size - CANDIDATES_PER_IMAGE]
        keep = values > cut
        keep[np.flatnonzero(values == cut)[: CANDIDATES_PER_IMAGE - int(keep.sum())]] = True
        classes, rows, cols, values = classes[keep], rows[keep], cols[keep], values[keep]
    xywh = boxes[:, rows, cols].astype(np.float64)
    # x1, y1, x2, y2: clipped to the model's input, then scaled to the original image
    limits = np.array([[input_width], [input_height], [input_width], [input_height]], dtype=np.float64)
    scales = np.array([[scale_x], [scale_y], [scale_x], [scale_y]], dtype=np.float64)
    corners = np.clip(np.concatenate([xywh[:2], xywh[:2] + xywh[2:]]), 0.0, limits) * scales
    sizes = corners[2:] - corners[:2]
    keep = (corners[2] > corners[0]) & (corners[3] > corners[1])
    # candidates are in (class, row, column) order, so each class is one run of them; a class
    # with two or more boxes left goes through NMS
    starts = np.flatnonzero(np.diff(classes, prepend=-1))
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(classes)], strict=True):
        if end - start < 2 or np.count_nonzero(keep[start:end]) < 2:
            continue
        members = start + np.flatnonzero(keep[start:end])
        kept = non_maximum_suppression(corners[:, members].T, values[members], iou_threshold)
        keep[members] = False
        keep[members[kept]] = True
    picked = np.flatnonzero(keep)
    # by descending score; equal scores in class order, then cell order (NMS's order too)
    picked = picked[np.argsort(-values[picked], kind="stable")][:max_detections]
    return list(
        zip(
            classes[picked].tolist(),
            values[picked].tolist(),
            corners[0, picked].tolist(),
            corners[1, picked].tolist(),
            sizes[0, picked].tolist(),
            sizes[1, picked].tolist(),
            strict=True,
        )
    )


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
