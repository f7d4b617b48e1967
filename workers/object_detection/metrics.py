"""Detection metrics as COCO computes them (NumPy only): mAP@[.5:.95], mAP@.5, mAP@.75, per-class
AP, precision-recall curves, plus the class confusion with background and each image's errors.

The AP figures follow pycocotools' ``COCOeval`` for boxes (``iouType="bbox"``, area "all",
``maxDets`` 100, no crowd regions) so that they agree with it to rounding (a test checks 1e-4):

- per image and class, detections are ranked by score (ties keep their given order) and the
  first 100 kept;
- at each IoU threshold (.50, .55, ..., .95) every detection, best first, takes the not yet
  matched object of its class with the highest IoU >= the threshold (among equal IoUs the later
  object, as COCOeval's loop does);
- per class, all images' detections ranked by score give precision/recall; precision is made
  non-increasing from the right and read at 101 recall points (0, .01, ..., 1); AP is its mean;
- a class with no object anywhere has AP -1 and is left out of the means.

The matching runs for all images and classes at once: the k-th detection of every (image, class)
group is matched in one vectorized step (groups bucketed by their number of objects, which bounds
the padding), so 1,000 images take a fraction of a second.

The confusion matrix and the image errors use IoU .5 and detections scoring at least
``score_threshold``: first each detection matches an object of its own class as above (the
diagonal); then the detections and objects left over are paired across classes, largest IoU
first (IoU >= .5; off the diagonal); what is still left is a missed object (its row, background
column) or a false positive (background row, its column).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from workers.contracts.annotations import ClassAP, DetectionBox, DetectionConfusion

Detection = tuple[int, float, float, float, float, float]  # (class, score, x, y, width, height)

# Built exactly as pycocotools builds them, so threshold comparisons agree bit for bit.
IOU_THRESHOLDS = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
RECALL_POINTS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
MAX_DETECTIONS = 100
CONFUSION_IOU = 0.5
BACKGROUND = "background"
_IOU50, _IOU75 = 0, 5  # indexes of .50 and .75 in IOU_THRESHOLDS


class ImageErrors(TypedDict):
    """One image at IoU .5 and the score threshold: ``false_positives`` (detections matching no
    object of their class), ``missed`` (objects no detection of their class found)."""

    false_positives: int
    missed: int


class DetectionMetrics(TypedDict):
    map: float
    map50: float
    map75: float
    per_class: list[ClassAP]
    confusion_matrix: DetectionConfusion
    images: list[ImageErrors]
    score_threshold: float


def box_iou(detections: np.ndarray, objects: np.ndarray) -> np.ndarray:
    """IoU of (x, y, width, height) rows, pairwise along the leading axes that broadcast; the same
    arithmetic as COCO's ``maskUtils.iou`` for boxes (float64)."""
    width = np.minimum(
        detections[..., 2] + detections[..., 0], objects[..., 2] + objects[..., 0]
    ) - np.maximum(detections[..., 0], objects[..., 0])
    height = np.minimum(
        detections[..., 3] + detections[..., 1], objects[..., 3] + objects[..., 1]
    ) - np.maximum(detections[..., 1], objects[..., 1])
    inter = np.where((width > 0) & (height > 0), width * height, 0.0)
    union = detections[..., 2] * detections[..., 3] + objects[..., 2] * objects[..., 3] - inter
    iou: np.ndarray = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return iou


def _flatten_truth(truth: Sequence[Sequence[DetectionBox]], classes: int) -> tuple[np.ndarray, ...]:
    image = np.array([i for i, boxes in enumerate(truth) for _ in boxes], dtype=np.int64)
    label = np.array([box["label"] for boxes in truth for box in boxes], dtype=np.int64)
    xywh = np.array(
        [[box["x"], box["y"], box["width"], box["height"]] for boxes in truth for box in boxes],
        dtype=np.float64,
    ).reshape(-1, 4)
    if len(label) and (label.min() < 0 or label.max() >= classes):
        bad = int(label[(label < 0) | (label >= classes)][0])
        raise ValueError(f"a true box has label {bad}, outside the {classes} classes")
    return image, label, xywh


def _flatten_predictions(
    predicted: Sequence[Sequence[Detection]], classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    image = np.array([i for i, found in enumerate(predicted) for _ in found], dtype=np.int64)
    position = np.array([j for found in predicted for j in range(len(found))], dtype=np.int64)
    rows = np.array([d for found in predicted for d in found], dtype=np.float64).reshape(-1, 6)
    label = rows[:, 0].astype(np.int64)
    if len(label) and (label.min() < 0 or label.max() >= classes):
        bad = int(label[(label < 0) | (label >= classes)][0])
        raise ValueError(f"a detection has class {bad}, outside the {classes} classes")
    return image, position, label, rows[:, 1], rows[:, 2:6]


def _match(
    d_group: np.ndarray,
    d_rank: np.ndarray,
    d_xywh: np.ndarray,
    g_start: np.ndarray,
    g_count: np.ndarray,
    g_xywh: np.ndarray,
) -> np.ndarray:
    """COCO's greedy matching at every IoU threshold: for each detection (grouped by image and
    class, ranked by score within its group) the index of the object it matched per threshold,
    -1 for none. Shape [detections, thresholds]."""
    n, thresholds = len(d_group), len(IOU_THRESHOLDS)
    matched = np.full((n, thresholds), -1, dtype=np.int64)
    widest = int(g_count.max()) if len(g_count) else 0
    if n == 0 or widest == 0:
        return matched
    slots = np.arange(widest)
    candidates = g_start[:, None] + slots[None, :]  # [groups, widest] object indexes
    present = slots[None, :] < g_count[:, None]
    candidates = np.where(present, candidates, 0)
    taken = np.zeros((len(g_start), thresholds, widest), dtype=bool)
    ious = box_iou(d_xywh[:, None, :], g_xywh[candidates[d_group]])
    ious[~present[d_group]] = -1.0
    by_rank = np.argsort(d_rank, kind="stable")
    bounds = np.searchsorted(d_rank[by_rank], np.arange(int(d_rank.max()) + 2))
    for rank in range(len(bounds) - 1):
        chosen = by_rank[bounds[rank] : bounds[rank + 1]]  # one detection per group at this rank
        group = d_group[chosen]
        iou = np.broadcast_to(ious[chosen][:, None, :], (len(chosen), thresholds, widest))
        eligible = ~taken[group] & (iou >= IOU_THRESHOLDS[None, :, None])
        value = np.where(eligible, iou, -np.inf)
        # the last slot holding the largest value (COCOeval keeps a later object on equal IoU)
        slot = widest - 1 - np.argmax(value[:, :, ::-1], axis=2)
        hit = eligible.any(axis=2)
        rows, thresholds_hit = np.nonzero(hit)
        slots_hit = slot[rows, thresholds_hit]
        taken[group[rows], thresholds_hit, slots_hit] = True
        matched[chosen[rows], thresholds_hit] = candidates[group[rows], slots_hit]
    return matched


def _precision(scores: np.ndarray, hits: np.ndarray, objects: int) -> np.ndarray:
    """COCO's interpolated precision at ``RECALL_POINTS`` per IoU threshold, shaped [T, R], for
    one class's detections (``hits`` [n, T]: matched or not) and its count of objects."""
    order = np.argsort(-scores, kind="mergesort")
    tp = np.cumsum(hits[order], axis=0).astype(np.float64)
    fp = np.cumsum(~hits[order], axis=0).astype(np.float64)
    precision = np.zeros((len(IOU_THRESHOLDS), len(RECALL_POINTS)))
    if len(order) == 0:
        return precision
    recall = tp / objects
    interpolated = np.maximum.accumulate((tp / (fp + tp + np.spacing(1)))[::-1], axis=0)[::-1]
    for t in range(len(IOU_THRESHOLDS)):
        at = np.searchsorted(recall[:, t], RECALL_POINTS, side="left")
        inside = at < len(order)
        precision[t, inside] = interpolated[at[inside], t]
    return precision


def _confusion(
    n_classes: int,
    g_image: np.ndarray,
    g_label: np.ndarray,
    g_xywh: np.ndarray,
    g_found: np.ndarray,
    d_image: np.ndarray,
    d_label: np.ndarray,
    d_xywh: np.ndarray,
    d_true: np.ndarray,
) -> np.ndarray:
    """The [classes + 1]² confusion counts (last row/column: background) from the same-class
    matches (``g_found``/``d_true``) and a cross-class pairing of what is left, per image."""
    background = n_classes
    matrix = np.zeros((n_classes + 1, n_classes + 1), dtype=np.int64)
    found = np.bincount(g_label[g_found], minlength=n_classes)
    matrix[np.arange(n_classes), np.arange(n_classes)] += found
    # every (left detection, left object) pair of one image; both arrays are sorted by image
    objects = np.flatnonzero(~g_found)
    detections = np.flatnonzero(~d_true)
    first = np.searchsorted(g_image[objects], d_image[detections], side="left")
    counts = np.searchsorted(g_image[objects], d_image[detections], side="right") - first
    pair_detection = np.repeat(detections, counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    pair_object = objects[np.repeat(first, counts) + offsets]
    ious = box_iou(d_xywh[pair_detection], g_xywh[pair_object])
    close = np.flatnonzero(ious >= CONFUSION_IOU)
    object_paired = np.zeros(len(g_label), dtype=bool)
    detection_paired = np.zeros(len(d_label), dtype=bool)
    # largest IoU first (pairs never span images, so one pass serves every image)
    for k in close[np.argsort(-ious[close], kind="stable")]:
        d, g = pair_detection[k], pair_object[k]
        if detection_paired[d] or object_paired[g]:
            continue
        detection_paired[d] = object_paired[g] = True
        matrix[g_label[g], d_label[d]] += 1
    missed = ~g_found & ~object_paired
    matrix[:background, background] += np.bincount(g_label[missed], minlength=n_classes)
    spurious = ~d_true & ~detection_paired
    matrix[background, :background] += np.bincount(d_label[spurious], minlength=n_classes)
    return matrix


def coco_evaluate(
    truth: Sequence[Sequence[DetectionBox]],
    predicted: Sequence[Sequence[Detection]],
    classes: Sequence[str],
    *,
    score_threshold: float = 0.3,
) -> DetectionMetrics:
    """COCO box metrics of ``predicted`` (per image: (class, score, x, y, width, height), as
    :func:`workers.object_detection.decode.decode` returns them) against ``truth`` (per image:
    manifest boxes), plus the confusion with background and each image's errors at IoU .5 among
    detections scoring at least ``score_threshold``.

    >>> truth = [[{"label": 0, "x": 10, "y": 10, "width": 20, "height": 20}], []]
    >>> found = [[(0, 0.9, 11, 10, 20, 20)], [(0, 0.8, 0, 0, 5, 5)]]
    >>> result = coco_evaluate(truth, found, ["cat"])
    >>> round(result["map50"], 4), result["confusion_matrix"]["matrix"], result["images"][1]
    (1.0, [[1, 0], [1, 0]], {'false_positives': 1, 'missed': 0})
    """
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} images of truth but predictions for {len(predicted)}")
    n_classes, n_images = len(classes), len(truth)
    g_image, g_label, g_xywh = _flatten_truth(truth, n_classes)
    d_image, d_position, d_label, d_score, d_xywh = _flatten_predictions(predicted, n_classes)

    # objects grouped by (image, class) in their given order; detections by group, then score
    g_key = g_image * n_classes + g_label
    g_order = np.argsort(g_key, kind="stable")
    g_image, g_label, g_xywh, g_key = g_image[g_order], g_label[g_order], g_xywh[g_order], g_key[g_order]
    d_key = d_image * n_classes + d_label
    d_order = np.lexsort((d_position, -d_score, d_key))
    d_image, d_label, d_score, d_xywh, d_key = (
        d_image[d_order],
        d_label[d_order],
        d_score[d_order],
        d_xywh[d_order],
        d_key[d_order],
    )
    keys, d_first, d_group = np.unique(d_key, return_index=True, return_inverse=True)
    d_rank = np.arange(len(d_key)) - d_first[d_group]
    kept = d_rank < MAX_DETECTIONS
    g_start = np.searchsorted(g_key, keys, side="left")
    g_count = np.searchsorted(g_key, keys, side="right") - g_start
    matched = np.full((len(d_key), len(IOU_THRESHOLDS)), -1, dtype=np.int64)
    # groups are matched in buckets of similar object counts (1, 2-3, 4-7, ...), so one image
    # crowded with objects does not pad every other group's arrays to its width
    bucket = np.ceil(np.log2(g_count + 1)).astype(np.int64)
    for width in np.unique(bucket[d_group[kept]]):
        groups = np.flatnonzero(bucket == width)
        local = np.full(len(keys), -1, dtype=np.int64)
        local[groups] = np.arange(len(groups))
        members = np.flatnonzero(kept & (bucket[d_group] == width))
        matched[members] = _match(
            local[d_group[members]],
            d_rank[members],
            d_xywh[members],
            g_start[groups],
            g_count[groups],
            g_xywh,
        )

    objects_per_class = np.bincount(g_label, minlength=n_classes)
    per_class: list[ClassAP] = []
    averages = []
    for k, name in enumerate(classes):
        objects = int(objects_per_class[k])
        if objects == 0:
            per_class.append(
                {
                    "label": name,
                    "ap": -1.0,
                    "ap50": -1.0,
                    "ap75": -1.0,
                    "ground_truth": 0,
                    "pr_curve": {"recall": [], "precision": []},
                }
            )
            continue
        mine = kept & (d_label == k)  # in (image, rank) order, as COCOeval concatenates them
        precision = _precision(d_score[mine], matched[mine] >= 0, objects)
        averages.append(precision)
        per_class.append(
            {
                "label": name,
                "ap": float(precision.mean()),
                "ap50": float(precision[_IOU50].mean()),
                "ap75": float(precision[_IOU75].mean()),
                "ground_truth": objects,
                "pr_curve": {
                    "recall": [round(float(r), 2) for r in RECALL_POINTS],
                    "precision": [round(float(p), 6) for p in precision[_IOU50]],
                },
            }
        )
    stacked = np.stack(averages) if averages else np.zeros((0, len(IOU_THRESHOLDS), len(RECALL_POINTS)))

    # errors and confusion at IoU .5 among confident detections: a detection ranked past
    # MAX_DETECTIONS in its group never matched, so it counts as a false positive
    confident = d_score >= score_threshold
    d_true = confident & (matched[:, _IOU50] >= 0)
    g_found = np.zeros(len(g_key), dtype=bool)
    g_found[matched[d_true, _IOU50]] = True
    matrix = _confusion(
        n_classes,
        g_image,
        g_label,
        g_xywh,
        g_found,
        d_image[confident],
        d_label[confident],
        d_xywh[confident],
        d_true[confident],
    )
    false_positives = np.bincount(d_image[confident & ~d_true], minlength=n_images)
    missed = np.bincount(g_image[~g_found], minlength=n_images)
    return {
        "map": float(stacked.mean()) if len(stacked) else -1.0,
        "map50": float(stacked[:, _IOU50].mean()) if len(stacked) else -1.0,
        "map75": float(stacked[:, _IOU75].mean()) if len(stacked) else -1.0,
        "per_class": per_class,
        "confusion_matrix": {"labels": [*classes, BACKGROUND], "matrix": matrix.tolist()},
        "images": [
            {"false_positives": int(f), "missed": int(m)}
            for f, m in zip(false_positives, missed, strict=True)
        ],
        "score_threshold": float(score_threshold),
    }


def coco_format(
    truth: Sequence[Sequence[DetectionBox]],
    predicted: Sequence[Sequence[Detection]],
    classes: Sequence[str],
    sizes: Sequence[tuple[int, int]],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The same boxes in COCO's JSON shapes, to check :func:`coco_evaluate` with COCO's own tools
    (pycocotools, faster-coco-eval): the ground-truth dataset (image ids 1..n in order, ``sizes``
    their (width, height); category ids 1..k in ``classes`` order; no crowd regions) and the
    results list (``loadRes``'s input).

    >>> dataset, results = coco_format([[{"label": 0, "x": 1, "y": 2, "width": 3, "height": 4}]],
    ...                                [[(0, 0.9, 1, 2, 3, 4)]], ["cat"], [(8, 8)])
    >>> dataset["annotations"][0]["bbox"], results[0]["category_id"]
    ([1, 2, 3, 4], 1)
    """
    annotations = [
        {
            "id": n + 1,
            "image_id": i + 1,
            "category_id": box["label"] + 1,
            "bbox": [box["x"], box["y"], box["width"], box["height"]],
            "area": box["width"] * box["height"],
            "iscrowd": 0,
        }
        for n, (i, box) in enumerate((i, box) for i, boxes in enumerate(truth) for box in boxes)
    ]
    dataset = {
        "images": [{"id": i + 1, "width": w, "height": h} for i, (w, h) in enumerate(sizes)],
        "categories": [{"id": k + 1, "name": name} for k, name in enumerate(classes)],
        "annotations": annotations,
    }
    results = [
        {"image_id": i + 1, "category_id": label + 1, "bbox": [x, y, w, h], "score": score}
        for i, found in enumerate(predicted)
        for label, score, x, y, w, h in found
    ]
    return dataset, results
