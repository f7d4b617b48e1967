"""pycocotools' COCOeval on Sampan's detection answers: the reference the detection metrics are
checked against (tests/workers/test_detection_metrics_match_pycocotools.py) and measured against
(benchmarks/detection_metrics.py). pycocotools is a test dependency."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence

import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from workers.contracts.annotations import DetectionBox
from workers.object_detection.metrics import Detection, coco_format


def cocoeval(
    truth: Sequence[Sequence[DetectionBox]],
    predicted: Sequence[Sequence[Detection]],
    classes: Sequence[str],
    sizes: Sequence[tuple[int, int]],
) -> COCOeval:
    """pycocotools' evaluated, accumulated and summarized box evaluation (its printing muted)."""
    dataset, results = coco_format(truth, predicted, classes, sizes)
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO()
        coco.dataset = dataset
        coco.createIndex()
        evaluation = COCOeval(coco, coco.loadRes(results), iouType="bbox")
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return evaluation


def class_ap(precision: np.ndarray) -> list[float]:
    """Per class (last axis), the mean of the precision entries COCO counts (-1: no object)."""
    flat = precision.reshape(-1, precision.shape[-1])
    return [float(column[column > -1].mean()) if (column > -1).any() else -1.0 for column in flat.T]
