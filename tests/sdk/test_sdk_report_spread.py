"""The SDK's reports read the spread without a server: each test metric's bootstrap interval, the
cross-validation's folds (a DataFrame and a plot), in the reports' reprs and the notebook view; an
older report without either reads as empty, and plotting folds that do not exist says why."""

from __future__ import annotations

import matplotlib
import pytest
from sampan import _html
from sampan.models import EvaluationReport, RegressionReport

matplotlib.use("Agg")

CV = {
    "kind": "cross_validation",
    "version": 1,
    "method": "kfold",
    "folds": 3,
    "metric": "accuracy",
    "direction": "maximize",
    "samples": 120,
    "scores": [
        {"fold": 0, "train_samples": 80, "samples": 40, "score": 0.9},
        {"fold": 1, "train_samples": 80, "samples": 40, "score": 0.95},
        {"fold": 2, "train_samples": 80, "samples": 40, "score": 0.85},
    ],
    "mean": 0.9,
    "std": 0.05,
    "chosen": {"n_estimators": 212},
    "reason": "120 samples (fewer than 5,000): 3-fold cross-validation chooses the model",
}
CLASSIFIER = {
    "kind": "classification_report",
    "version": 1,
    "split": "test",
    "samples": 36,
    "classes": ["a", "b"],
    "accuracy": 0.9444,
    "top_k_accuracy": {"1": 0.9444},
    "macro": {"precision": 0.95, "recall": 0.94, "f1": 0.9441},
    "weighted": {"precision": 0.95, "recall": 0.94, "f1": 0.9448},
    "per_class": [],
    "confusion_matrix": {"counts": [[17, 1], [1, 17]], "samples": [[[], []], [[], []]]},
    "most_confident_mistakes": [],
    "model": {"path": "m.onnx", "sha256": "f00"},
    "intervals": [
        {
            "metric": "accuracy",
            "value": 0.9444,
            "low": 0.8611,
            "high": 1.0,
            "confidence": 0.95,
            "resamples": 1000,
        },
        {
            "metric": "macro_f1",
            "value": 0.9441,
            "low": 0.8533,
            "high": 1.0,
            "confidence": 0.95,
            "resamples": 1000,
        },
    ],
    "cross_validation": CV,
}
REGRESSOR = {
    "kind": "regression_report",
    "version": 1,
    "split": "test",
    "samples": 89,
    "mae": 35.64,
    "rmse": 44.19,
    "r2": 0.5904,
    "residuals": {"points": [], "histogram": {"edges": [0.0, 1.0], "counts": [0]}},
    "largest_errors": [],
    "feature_importance": [],
    "model": {"path": "m.onnx", "sha256": "f00"},
    "intervals": [
        {"metric": "mae", "value": 35.64, "low": 31.2, "high": 40.1, "confidence": 0.95, "resamples": 1000},
        {"metric": "rmse", "value": 44.19, "low": 39.0, "high": 49.5, "confidence": 0.95, "resamples": 1000},
        {
            "metric": "r2",
            "value": 0.5904,
            "low": 0.4812,
            "high": 0.6755,
            "confidence": 0.95,
            "resamples": 1000,
        },
    ],
}


def test_a_classifier_report_reads_its_intervals_and_folds():
    report = EvaluationReport(7, "V1", CLASSIFIER)  # type: ignore[arg-type]
    assert report.intervals["accuracy"]["low"] == 0.8611 and report.intervals["macro_f1"]["high"] == 1.0
    assert report.cross_validation is not None and report.cross_validation["mean"] == 0.9
    frame = report.folds_frame()
    assert list(frame.columns) == ["fold", "train_samples", "samples", "score"]
    assert frame["score"].tolist() == [0.9, 0.95, 0.85]
    assert "accuracy=0.9444 [0.8611, 1]" in repr(report) and "macro_f1=0.9441 [0.8533, 1]" in repr(report)
    ax = report.plot_cross_validation()
    assert len(ax.collections[-1].get_offsets()) == 3  # a dot per fold
    assert "accuracy 0.9 ± 0.05 over 3 folds" in ax.get_title()


def test_a_regression_report_reads_its_intervals_and_has_no_folds():
    report = RegressionReport(8, "V2", REGRESSOR)  # type: ignore[arg-type]
    assert set(report.intervals) == {"mae", "rmse", "r2"}
    assert "r2=0.5904 [0.4812, 0.6755]" in repr(report)
    assert report.cross_validation is None and report.folds_frame().empty
    with pytest.raises(ValueError, match="V2 did not cross-validate"):
        report.plot_cross_validation()


def test_an_older_report_without_the_spread_reads_as_before():
    older = {key: value for key, value in CLASSIFIER.items() if key not in ("intervals", "cross_validation")}
    report = EvaluationReport(7, "V1", older)  # type: ignore[arg-type]
    assert report.intervals == {} and report.cross_validation is None
    assert repr(report).endswith("accuracy=0.9444, macro_f1=0.9441)")


def test_the_notebook_view_shows_the_intervals_and_the_folds_mean():
    version = {
        "id": 7,
        "name": "V1",
        "project": 1,
        "source": "trained",
        "template": "tabular_classification",
        "preset": "fast",
        "dataset_version": 3,
        "classes": ["a", "b"],
        "metrics": {"test": {"accuracy": 0.9444}},
    }
    html = _html.model_version(version, CLASSIFIER)  # type: ignore[arg-type]
    assert "test accuracy 95% interval" in html and "0.8611 – 1" in html
    assert "accuracy 0.9 ± 0.05 over 3 folds" in html
