"""The evaluation report's metrics agree with scikit-learn; its cells and mistakes point at the
right samples; comparing two reports gives per-class deltas."""

from __future__ import annotations

import json

import numpy as np
import pytest
from digits_data import trained_digits
from sklearn import metrics as sk

from workers.image_classification.evaluation import compare, evaluate
from workers.image_classification.predictor import ImageClassifier
from workers.image_classification.preprocessing import open_image
from workers.shared.classification_metrics import classification_metrics


def assert_matches_sklearn(report: dict, y_true: np.ndarray, scores: np.ndarray) -> None:
    n = scores.shape[1]
    labels = list(range(n))
    y_pred = scores.argmax(axis=1)
    assert report["accuracy"] == pytest.approx(sk.accuracy_score(y_true, y_pred), abs=1e-12)
    precision, recall, f1, support = sk.precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0
    )
    for i, row in enumerate(report["per_class"]):
        assert (row["precision"], row["recall"], row["f1"], row["support"]) == pytest.approx(
            (precision[i], recall[i], f1[i], support[i]), abs=1e-12
        )
    for average in ("macro", "weighted"):
        p, r, f, _ = sk.precision_recall_fscore_support(
            y_true, y_pred, labels=labels, average=average, zero_division=0
        )
        assert (
            report[average]["precision"],
            report[average]["recall"],
            report[average]["f1"],
        ) == pytest.approx((p, r, f), abs=1e-12)
    for k, value in report["top_k_accuracy"].items():
        assert value == pytest.approx(
            sk.top_k_accuracy_score(y_true, scores, k=int(k), labels=labels), abs=1e-12
        )
    counts = report["confusion_matrix"]
    counts = counts["counts"] if isinstance(counts, dict) else counts
    assert counts == sk.confusion_matrix(y_true, y_pred, labels=labels).tolist()


@pytest.mark.parametrize("seed", range(5))
def test_numpy_metrics_match_sklearn_including_empty_and_never_predicted_classes(seed):
    rng = np.random.default_rng(seed)
    n_classes, n = 7, 120
    y_true = rng.integers(0, n_classes - 1, size=n)  # the last class has no samples
    scores = rng.random((n, n_classes))
    hits = rng.random(n) < 0.6
    scores[hits, y_true[hits]] += 1.0  # a model that is right about 60 % of the time
    scores[:, 2] = 0.0  # class 2 is never predicted
    report = classification_metrics(y_true, scores, [f"c{i}" for i in range(n_classes)])
    assert report["per_class"][2]["precision"] == 0.0 and report["per_class"][-1]["support"] == 0
    assert list(report["top_k_accuracy"]) == ["1", "3", "5"]
    assert_matches_sklearn(report, y_true, scores)


def test_top_k_is_capped_by_the_number_of_classes():
    report = classification_metrics(
        np.array([0, 1, 1]), np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]), ["a", "b"]
    )
    assert report["top_k_accuracy"] == {"1": pytest.approx(2 / 3)}
    assert report["per_class"][0]["recall"] == 1.0 and report["per_class"][1]["recall"] == 0.5


@pytest.fixture(scope="module")
def digits_report():
    manifest, result, _, _ = trained_digits()
    return manifest, result, evaluate(result["onnx"], manifest, batch_size=7, mistakes=5)


def test_report_on_the_trained_model_matches_sklearn(digits_report):
    manifest, result, report = digits_report
    assert json.loads(json.dumps(report)) == report
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    classifier = ImageClassifier(result["onnx"])
    scores = classifier.probabilities([open_image(s["path"]) for s in test])
    y_true = np.array([s["label"] for s in test])
    assert (
        report["split"] == "test"
        and report["samples"] == len(test)
        and report["classes"] == manifest["classes"]
    )
    assert_matches_sklearn(report, y_true, scores)


def test_confusion_cells_and_mistakes_point_at_the_samples_behind_them(digits_report):
    manifest, _, report = digits_report
    by_id = {s["id"]: s for s in manifest["samples"]}
    counts, cells = report["confusion_matrix"]["counts"], report["confusion_matrix"]["samples"]
    seen = []
    for true in range(10):
        for predicted in range(10):
            assert len(cells[true][predicted]) == counts[true][predicted]
            for ref in cells[true][predicted]:
                assert by_id[ref]["label"] == true and by_id[ref]["split"] == "test"
            seen.extend(cells[true][predicted])
    assert sorted(seen) == sorted(s["id"] for s in manifest["samples"] if s["split"] == "test")
    mistakes = report["most_confident_mistakes"]
    n_wrong = sum(counts[t][p] for t in range(10) for p in range(10) if t != p)
    assert len(mistakes) == min(5, n_wrong)
    assert [m["confidence"] for m in mistakes] == sorted((m["confidence"] for m in mistakes), reverse=True)
    for mistake in mistakes:
        sample = manifest["samples"][mistake["index"]]
        assert mistake["sample"] == sample["id"] and mistake["path"] == sample["path"]
        assert mistake["true"] == sample["label"] != mistake["predicted"]
        assert mistake["sample"] in cells[mistake["true"]][mistake["predicted"]]
        assert mistake["true_class"] == manifest["classes"][mistake["true"]]


def test_samples_without_ids_are_referred_to_by_position(digits_report):
    manifest, result, _ = digits_report
    anonymous = {
        "classes": manifest["classes"],
        "samples": [{k: v for k, v in s.items() if k != "id"} for s in manifest["samples"]],
    }
    report = evaluate(result["onnx"], anonymous, split="val")
    refs = [ref for row in report["confusion_matrix"]["samples"] for cell in row for ref in cell]
    assert sorted(refs) == [i for i, s in enumerate(manifest["samples"]) if s["split"] == "val"]


def test_compare_gives_per_class_deltas(digits_report):
    manifest, result, test_report = digits_report
    val_report = evaluate(result["onnx"], manifest, split="val")
    comparison = compare(test_report, val_report)
    assert json.loads(json.dumps(comparison)) == comparison
    assert comparison["accuracy"] == {
        "a": test_report["accuracy"],
        "b": val_report["accuracy"],
        "delta": val_report["accuracy"] - test_report["accuracy"],
    }
    assert comparison["macro_f1"]["delta"] == pytest.approx(
        val_report["macro"]["f1"] - test_report["macro"]["f1"]
    )
    for row, a, b in zip(
        comparison["per_class"], test_report["per_class"], val_report["per_class"], strict=True
    ):
        assert row["class"] == a["class"] == b["class"]
        for metric in ("precision", "recall", "f1"):
            assert row[metric]["delta"] == pytest.approx(b[metric] - a[metric])
        assert row["support"] == {"a": a["support"], "b": b["support"]}
    renamed = json.loads(json.dumps(val_report))
    renamed["per_class"][0]["class"] = "zero"
    partial = compare(test_report, renamed)
    assert partial["per_class"][0]["class"] == "0" and partial["per_class"][0]["f1"]["b"] is None
    assert partial["per_class"][0]["f1"]["delta"] is None
    assert partial["per_class"][-1]["class"] == "zero" and partial["per_class"][-1]["f1"]["a"] is None


def test_the_report_and_its_comparison_hold_their_contracts(digits_report):
    """workers.contracts.evaluation, as the OpenAPI schema describes it (no key more, none missing)."""
    from tests.openapi_conformance import _validate

    _, _, report = digits_report
    assert (report["kind"], report["version"]) == ("classification_report", 1)
    _validate(json.loads(json.dumps(report)), {"$ref": "#/components/schemas/ClassificationReport"}, "report")
    comparison = compare(report, report)
    assert comparison["kind"] == "classification_comparison" and "task" not in comparison
    answered = {"a": 1, "b": 2, "a_name": "V1", "b_name": "V2", **comparison}
    _validate(
        json.loads(json.dumps(answered)),
        {"$ref": "#/components/schemas/ModelVersionClassificationComparison"},
        "comparison",
    )
