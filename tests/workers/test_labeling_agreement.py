"""Team labeling's agreement figures against hand-computed values and scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from workers.labeling_agreement import (
    agreement_report,
    box_iou,
    cohen_kappa,
    detection_answers,
    detection_units,
    fleiss_kappa,
    submissions_per_active_hour,
)


def _stats(annotator: int, username: str = ""):
    return {
        "annotator": annotator,
        "username": username,
        "assigned": 0,
        "submitted": 0,
        "accepted": 0,
        "rejected": 0,
        "rejection_rate": None,
        "per_hour": None,
        "agreement_with_others": None,
    }


def test_cohen_kappa_matches_scikit_learn_on_random_answers():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a = rng.integers(0, 4, 40)
        b = np.where(rng.random(40) < 0.6, a, rng.integers(0, 4, 40))
        agree, kappa = cohen_kappa([(int(x),) for x in a], [(int(y),) for y in b])
        assert agree == pytest.approx(float(np.mean(a == b)))
        assert kappa == pytest.approx(cohen_kappa_score(a, b))


def test_fleiss_kappa_of_the_textbook_table():
    # Fleiss (1971) as on Wikipedia: 10 subjects, 14 raters, 5 categories -> kappa 0.210
    table = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    observed, kappa = fleiss_kappa(table)
    assert observed == pytest.approx(0.378, abs=1e-3)
    assert kappa == pytest.approx(0.210, abs=1e-3)


def test_kappa_is_undefined_without_variation_or_with_one_sample():
    assert cohen_kappa([(1,), (1,)], [(1,), (1,)]) == (1.0, None)
    assert cohen_kappa([(1,)], [(0,)]) == (0.0, None)
    assert fleiss_kappa(np.array([[3, 0], [3, 0]])) == (1.0, None)


def test_report_of_three_annotators_by_hand():
    # samples 1-4 answered by annotators 7 and 8, samples 3-4 also by 9; sample 5 by 7 alone
    given = {
        (1, 7): 0, (1, 8): 0,
        (2, 7): 1, (2, 8): 0,
        (3, 7): 1, (3, 8): 1, (3, 9): 1,
        (4, 7): 0, (4, 8): 0, (4, 9): 1,
        (5, 7): 1,
    }  # fmt: skip
    answers = [{"sample": s, "annotator": a, "labels": [c]} for (s, a), c in given.items()]
    report = agreement_report(
        classes=["cat", "dog"],
        answers=answers,
        annotators={7: "ann", 8: "bo", 9: "cy"},
        stats=[_stats(7), _stats(8), _stats(9)],
    )
    assert report["overlapping_samples"] == 4  # sample 5 has one answer
    # pairs agreeing per sample: 1/1, 0/1, 3/3, 1/3 -> mean of per-sample shares
    assert report["percent_agreement"] == pytest.approx(round((1 + 0 + 1 + 1 / 3) / 4, 4))
    # Fleiss by hand: category shares cat 5/10, dog 5/10 -> chance 0.5
    observed = (1 + 0 + 1 + 1 / 3) / 4
    assert report["fleiss_kappa"] == pytest.approx(round((observed - 0.5) / 0.5, 4))
    pairs = {(p["annotator_a"], p["annotator_b"]): p for p in report["pairs"]}
    assert set(pairs) == {(7, 8), (7, 9), (8, 9)}
    assert pairs[(7, 8)]["shared"] == 4
    assert pairs[(7, 8)]["percent_agreement"] == 0.75
    assert pairs[(7, 8)]["cohen_kappa"] == pytest.approx(
        round(cohen_kappa_score([0, 1, 1, 0], [0, 0, 1, 0]), 4)
    )
    assert pairs[(8, 9)]["cohen_kappa"] is not None and pairs[(8, 9)]["shared"] == 2
    # two classes: one-vs-rest is the same split for both, so the same figures
    assert [c["name"] for c in report["per_class"]] == ["cat", "dog"]
    assert report["per_class"][0]["kappa"] == report["fleiss_kappa"]
    # annotator 9 compared twice (with 7 and 8): agrees on sample 3 with both, on 4 with neither
    by_id = {s["annotator"]: s for s in report["annotators"]}
    assert by_id[9]["agreement_with_others"] == 0.5
    assert by_id[9]["username"] == "cy"
    # annotator 7: with 8 3/4 agree, with 9 1/2 -> 4/6
    assert by_id[7]["agreement_with_others"] == pytest.approx(round(4 / 6, 4))


def test_answers_are_sets_of_classes():
    answers = [
        {"sample": 1, "annotator": 1, "labels": [0, 1, 1]},
        {"sample": 1, "annotator": 2, "labels": [1, 0]},
        {"sample": 2, "annotator": 1, "labels": [0]},
        {"sample": 2, "annotator": 2, "labels": [0, 1]},
    ]
    report = agreement_report(classes=["car", "person"], answers=answers, annotators={}, stats=[])
    assert report["percent_agreement"] == 0.5
    per_class = {c["name"]: c for c in report["per_class"]}
    assert per_class["car"]["percent_agreement"] == 1.0  # both chose class 0 in both samples
    assert per_class["car"]["kappa"] is None  # no variation
    assert per_class["person"]["percent_agreement"] == 0.5


def test_throughput_skips_breaks():
    assert submissions_per_active_hour([0, 60, 120, 10_000, 10_060]) == pytest.approx(60.0)
    assert submissions_per_active_hour([0]) is None
    assert submissions_per_active_hour([0, 3 * 3600]) is None


def test_boxes_are_matched_into_objects_by_class_and_iou():
    assert box_iou((0, 0, 0, 10, 8), (0, 2, 0, 10, 8)) == pytest.approx(64 / 96)
    units = detection_units(
        {
            7: [(0, 0, 0, 10, 10), (0, 40, 40, 10, 10), (1, 0, 0, 10, 10)],
            8: [(0, 1, 1, 10, 10), (1, 41, 41, 10, 10)],  # the second is a class-1 box where 7 saw a 0
            9: [(0, 20, 20, 10, 10), (0, 1, 0, 10, 10)],  # an extra object, then 7's first one
        }
    )
    assert sorted((label, sorted(drawn)) for label, drawn in units) == [
        (0, [7]),  # 40,40: only 7
        (0, [7, 8, 9]),
        (0, [9]),  # 20,20: only 9
        (1, [7]),
        (1, [8]),  # IoU with 7's class-1 box at 0,0 is 0
    ]


def test_detection_agreement_is_over_objects():
    # image 1: both drew the car; image 2: only bo drew a person; image 3: both saw nothing
    answers = [
        *detection_answers(sample=1, boxes={1: [(0, 2, 3, 10, 8)], 2: [(0, 4, 3, 10, 8)]}, first_subject=1),
        *detection_answers(sample=2, boxes={1: [], 2: [(1, 2, 3, 10, 8)]}, first_subject=10),
        *detection_answers(sample=3, boxes={1: [], 2: []}, first_subject=20),
    ]
    report = agreement_report(
        classes=["car", "person"], answers=answers, annotators={}, stats=[], objects=True
    )
    assert report["overlapping_samples"] == 3  # objects: the car, the person, image 3's nothing
    assert report["percent_agreement"] == pytest.approx(round(2 / 3, 4))
    per_class = {c["name"]: c["percent_agreement"] for c in report["per_class"]}
    assert per_class == {"car": 1.0, "person": 0.0}  # over the objects of each class only
