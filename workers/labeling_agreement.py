"""How far annotators agree on the samples they labeled in common (team labeling's agreement report).

Pure numpy over the submitted answers, so the figures can be checked by hand and against
``sklearn.metrics.cohen_kappa_score``.

An answer is a set of class indices, and two answers agree when their sets are equal. For
classification it is the one label. For object detection the subjects are not the images but the
objects in them: ``detection_units`` matches the annotators' boxes of an image (same class, IoU >=
0.5, at most one box per annotator), and each annotator's answer for an object is its class when
they drew it, nothing when they did not (an image everyone marked as having no objects is one
subject they agree on).

- Percent agreement: over every pair of answers to the same sample, the share that agree
  (Fleiss' mean observed agreement, so a sample with k answers weighs k(k-1)/2 pairs).
- Cohen's kappa per annotator pair, over the samples both answered.
- Fleiss' kappa over all overlapping samples (the number of answers may differ per sample), and
  per class one-vs-rest ("is this class" against "is not").
- Kappa is None where it is undefined: fewer than two samples, or no variation at all (every answer
  the same, so chance agreement is 1).

e.g.::

    agreement_report(
        classes=["cat", "dog"],
        answers=[{"sample": 1, "annotator": 7, "labels": [0]}, {"sample": 1, "annotator": 8, "labels": [0]}],
        annotators={7: "ann", 8: "bo"},
        stats=[],
    )["percent_agreement"]  # -> 1.0
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import TypedDict

import numpy as np

from workers.contracts.labeling import (
    AGREEMENT_VERSION,
    AgreementReport,
    AnnotatorStats,
    ClassAgreement,
    PairAgreement,
)

#: A pause longer than this between two submissions is not counted as labeling time.
ACTIVE_GAP_SECONDS = 30 * 60


class AgreementAnswer(TypedDict):
    sample: int
    annotator: int  # user id
    labels: list[int]  # class indices: one (classification) or the classes with boxes (detection)


Answer = tuple[int, ...]


def fleiss_kappa(counts: np.ndarray) -> tuple[float | None, float | None]:
    """(mean observed agreement, Fleiss' kappa) of a (subjects, categories) matrix of answer counts;
    subjects may have different numbers of answers (each needs at least 2).

    e.g. ``fleiss_kappa(np.array([[2, 0], [0, 2]]))`` -> ``(1.0, 1.0)``"""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return None, None
    n = counts.sum(axis=1)
    counts, n = counts[n >= 2], n[n >= 2]
    if counts.shape[0] == 0:
        return None, None
    observed = float((((counts**2).sum(axis=1) - n) / (n * (n - 1))).mean())
    if counts.shape[0] < 2:
        return observed, None
    shares = counts.sum(axis=0) / n.sum()
    chance = float((shares**2).sum())
    if chance >= 1.0 - 1e-12:
        return observed, None
    return observed, (observed - chance) / (1.0 - chance)


def cohen_kappa(a: Sequence[Answer], b: Sequence[Answer]) -> tuple[float | None, float | None]:
    """(percent agreement, Cohen's kappa) of two annotators' answers to the same samples, in the same
    order. e.g. ``cohen_kappa([(0,), (1,)], [(0,), (0,)])`` -> ``(0.5, 0.0)``"""
    if not a:
        return None, None
    agree = float(np.mean([x == y for x, y in zip(a, b, strict=True)]))
    if len(a) < 2:
        return agree, None
    total = len(a)
    share_a: dict[Answer, int] = defaultdict(int)
    share_b: dict[Answer, int] = defaultdict(int)
    for x, y in zip(a, b, strict=True):
        share_a[x] += 1
        share_b[y] += 1
    chance = sum(share_a[k] * share_b.get(k, 0) for k in share_a) / (total * total)
    if chance >= 1.0 - 1e-12:
        return agree, None
    return agree, (agree - chance) / (1.0 - chance)


def submissions_per_active_hour(times: Sequence[float]) -> float | None:
    """Submissions per hour of active labeling, from submission times in seconds: the time between
    two submissions counts when it is at most 30 minutes (a longer pause is a break), and each
    counted interval is one submission made in it. None without any counted interval.

    e.g. ``submissions_per_active_hour([0, 60, 120, 10_000, 10_060])`` -> 60.0 (3 in 3 minutes)"""
    ordered = sorted(times)
    gaps = [b - a for a, b in zip(ordered, ordered[1:], strict=False) if b - a <= ACTIVE_GAP_SECONDS]
    active = sum(gaps)
    if not gaps or active <= 0:
        return None
    return len(gaps) * 3600.0 / active


Box = tuple[int, float, float, float, float]  # class index, x, y, width, height


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (x, y, width, height; the class is not looked at)."""
    ax1, ay1, bx1, by1 = a[1] + a[3], a[2] + a[4], b[1] + b[3], b[2] + b[4]
    width = max(0.0, min(ax1, bx1) - max(a[1], b[1]))
    height = max(0.0, min(ay1, by1) - max(a[2], b[2]))
    overlap = width * height
    union = a[3] * a[4] + b[3] * b[4] - overlap
    return overlap / union if union > 0 else 0.0


def detection_units(boxes: dict[int, list[Box]], *, iou: float = 0.5) -> list[tuple[int, set[int]]]:
    """The objects of one image as its annotators drew them: ``[(class, {annotators who drew it})]``.
    Greedy, annotators in id order: a box joins the object of its class (first drawn box) it
    overlaps most at IoU >= ``iou`` that the annotator has no box in yet, else it starts one.

    e.g. ``detection_units({7: [(0, 0, 0, 10, 10)], 8: [(0, 1, 1, 10, 10), (1, 50, 50, 5, 5)]})``
    -> ``[(0, {7, 8}), (1, {8})]``"""
    units: list[tuple[Box, set[int]]] = []
    for annotator in sorted(boxes):
        for box in boxes[annotator]:
            best, best_iou = None, iou
            for unit in units:
                if unit[0][0] != box[0] or annotator in unit[1]:
                    continue
                overlap = box_iou(unit[0], box)
                if overlap >= best_iou:
                    best, best_iou = unit, overlap
            if best is None:
                units.append((box, {annotator}))
            else:
                best[1].add(annotator)
    return [(first[0], drawn) for first, drawn in units]


def detection_answers(
    *, sample: int, boxes: dict[int, list[Box]], first_subject: int, iou: float = 0.5
) -> list[AgreementAnswer]:
    """One image's answers as agreement answers about its objects (``detection_units``), numbered
    from ``first_subject``: an annotator's labels for an object are ``[class]`` if they drew it,
    ``[]`` if not. An image without any box is one subject every annotator answered ``[]``."""
    units = detection_units(boxes, iou=iou) or [(-1, set())]
    return [
        {"sample": first_subject + i, "annotator": annotator, "labels": [label] if annotator in drawn else []}
        for i, (label, drawn) in enumerate(units)
        for annotator in sorted(boxes)
    ]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


def agreement_report(
    *,
    classes: list[str],
    answers: list[AgreementAnswer],
    annotators: dict[int, str],
    stats: list[AnnotatorStats],
    objects: bool = False,
) -> AgreementReport:
    """The agreement report of a labeling task's submitted answers (one per sample and annotator;
    a later duplicate replaces an earlier one). ``stats`` are the annotators' counts, returned with
    ``agreement_with_others`` filled in: the share of their pairwise comparisons that agree.
    ``objects``: the samples are detected objects (``detection_answers``), so a class's figures
    are over the objects of that class (found or missed), not over every object."""
    by_sample: dict[int, dict[int, Answer]] = defaultdict(dict)
    for answer in answers:
        by_sample[answer["sample"]][answer["annotator"]] = tuple(sorted(set(answer["labels"])))
    shared = {sample: given for sample, given in by_sample.items() if len(given) >= 2}
    samples = sorted(shared)

    # overall: categories are the distinct answers
    categories = sorted({given_one for given in shared.values() for given_one in given.values()})
    index = {category: i for i, category in enumerate(categories)}
    counts = np.zeros((len(samples), max(1, len(categories))))
    for row, sample in enumerate(samples):
        for category in shared[sample].values():
            counts[row, index[category]] += 1
    observed, kappa = fleiss_kappa(counts) if samples else (None, None)

    per_class: list[ClassAgreement] = []
    for c, name in enumerate(classes):
        subjects = (
            [s for s in samples if any(c in category for category in shared[s].values())]
            if objects
            else samples
        )
        binary = np.zeros((len(subjects), 2))
        for row, sample in enumerate(subjects):
            for category in shared[sample].values():
                binary[row, 0 if c in category else 1] += 1
        class_observed, class_kappa = fleiss_kappa(binary) if subjects else (None, None)
        per_class.append(
            {
                "label": c,
                "name": name,
                "percent_agreement": _rounded(class_observed),
                "kappa": _rounded(class_kappa),
            }
        )

    people = sorted({annotator for given in shared.values() for annotator in given})
    pairs: list[PairAgreement] = []
    compared: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # annotator -> [agreeing, compared]
    for a, b in combinations(people, 2):
        both = [sample for sample in samples if a in shared[sample] and b in shared[sample]]
        if not both:
            continue
        answers_a = [shared[s][a] for s in both]
        answers_b = [shared[s][b] for s in both]
        agree, pair_kappa = cohen_kappa(answers_a, answers_b)
        agreeing = sum(x == y for x, y in zip(answers_a, answers_b, strict=True))
        for person in (a, b):
            compared[person][0] += agreeing
            compared[person][1] += len(both)
        pairs.append(
            {
                "annotator_a": a,
                "annotator_b": b,
                "shared": len(both),
                "percent_agreement": _rounded(agree),
                "cohen_kappa": _rounded(pair_kappa),
            }
        )

    filled: list[AnnotatorStats] = []
    for entry in stats:
        agreeing, total = compared.get(entry["annotator"], (0, 0))
        filled.append(
            {
                **entry,
                "username": entry["username"] or annotators.get(entry["annotator"], ""),
                "agreement_with_others": _rounded(agreeing / total) if total else None,
            }
        )
    return {
        "kind": "agreement_report",
        "version": AGREEMENT_VERSION,
        "classes": list(classes),
        "overlapping_samples": len(samples),
        "percent_agreement": _rounded(observed),
        "fleiss_kappa": _rounded(kappa),
        "pairs": pairs,
        "per_class": per_class,
        "annotators": filled,
    }
