"""The SDK's report and prediction classes are typed accessors over the generated payload types
(sampan._schema), chosen by the payload's ``kind`` (reports) or the answering model's template
(predictions), never by which keys are present; ``client.models`` is a deprecated alias of
``client.model_versions``. No server: the payloads are written as the schema types them (the live
tests read real ones)."""

from __future__ import annotations

import math
import warnings

import pytest
import sampan
from sampan import _schema as schema
from sampan.deployments import Prediction
from sampan.models import ClassMetrics, ModelVersions, evaluation_report

MODEL_FILE: schema.ModelFile = {"path": "model.onnx", "sha256": "0" * 64}

CLASSIFICATION: schema.ClassificationReport = {
    "kind": "classification_report",
    "version": 1,
    "split": "test",
    "samples": 4,
    "classes": ["cat", "dog"],
    "accuracy": 0.75,
    "top_k_accuracy": {"1": 0.75, "2": 1.0},
    "macro": {"precision": 0.8, "recall": 0.75, "f1": 0.73},
    "weighted": {"precision": 0.8, "recall": 0.75, "f1": 0.74},
    "per_class": [
        {"class": "cat", "index": 0, "precision": 1.0, "recall": 0.5, "f1": 0.67, "support": 2},
        {"class": "dog", "index": 1, "precision": 0.67, "recall": 1.0, "f1": 0.8, "support": 2},
    ],
    "confusion_matrix": {"counts": [[1, 1], [0, 2]], "samples": [[[1], [2]], [[], [3, 4]]]},
    "most_confident_mistakes": [
        {
            "sample": 2,
            "index": 1,
            "true": 0,
            "true_class": "cat",
            "predicted": 1,
            "predicted_class": "dog",
            "confidence": 0.9,
            "path": "cat/2.png",
        }
    ],
    "model": MODEL_FILE,
}

REGRESSION: schema.RegressionReport = {
    "kind": "regression_report",
    "version": 1,
    "split": "test",
    "samples": 2,
    "mae": 1.5,
    "rmse": 1.58,
    "r2": 0.9,
    "headline": {"mae": 1.5, "rmse": 1.58, "r2": 0.9},
    "residuals": {
        "points": [
            {"sample": 1, "actual": 10.0, "predicted": 11.0},
            {"sample": 2, "actual": 5.0, "predicted": 3.0},
        ],
        "histogram": {"edges": [-2.0, 0.0, 2.0], "counts": [1, 1]},
    },
    "largest_errors": [{"sample": 2, "values": {"age": 40.0, "sex": None}, "actual": 5.0, "predicted": 3.0}],
    "feature_importance": [{"feature": "age", "importance": 0.3, "std": 0.05}],
    "model": MODEL_FILE,
}


def answer(
    report: schema.ClassificationReport | schema.RegressionReport | None,
) -> schema.ModelVersionEvaluation:
    return {"id": 7, "name": "V2", "evaluation": report}


def test_a_classification_report_reads_the_payload_it_holds():
    report = evaluation_report(answer(CLASSIFICATION))
    assert isinstance(report, sampan.EvaluationReport) and report.data is CLASSIFICATION
    assert (report.model_version, report.name, report.split, report.samples) == (7, "V2", "test", 4)
    assert (report.accuracy, report.macro_f1, report.weighted_f1) == (0.75, 0.73, 0.74)
    assert report.top_k_accuracy == {"1": 0.75, "2": 1.0} and report.classes == ["cat", "dog"]
    assert report.confusion_matrix == [[1, 1], [0, 2]]
    assert report.most_confident_mistakes[0]["predicted_class"] == "dog"
    cat = report.per_class[0]
    assert isinstance(cat, ClassMetrics) and (cat.name, cat.precision, cat.recall, cat.f1, cat.support) == (
        "cat",
        1.0,
        0.5,
        0.67,
        2,
    )
    table = report.to_dataframe()
    assert list(table.index) == ["cat", "dog"] and list(table.columns) == [
        "precision",
        "recall",
        "f1",
        "support",
    ]
    assert report.confusion_dataframe().loc["cat", "dog"] == 1
    assert sampan.EvaluationReport.from_api(answer(CLASSIFICATION)).accuracy == 0.75
    with pytest.raises(ValueError, match="RegressionReport"):
        sampan.EvaluationReport.from_api(answer(REGRESSION))


def test_a_regression_report_reads_the_payload_it_holds():
    report = evaluation_report(answer(REGRESSION))
    assert isinstance(report, sampan.RegressionReport) and report.raw is REGRESSION
    assert (report.mae, report.rmse, report.r2, report.samples) == (1.5, 1.58, 0.9, 2)
    assert report.residual_histogram["counts"] == [1, 1]
    assert report.largest_errors[0]["values"]["sex"] is None
    frame = report.residuals_frame()
    assert list(frame["residual"]) == [1.0, -2.0]
    assert list(report.feature_importance_frame().index) == ["age"]
    with pytest.raises(ValueError, match="EvaluationReport"):
        sampan.RegressionReport.from_api(answer(CLASSIFICATION))


def test_the_report_is_chosen_by_kind_not_by_its_keys():
    # a regression report that also carried "accuracy" is still a regression report: kind decides
    odd = dict(REGRESSION, accuracy=0.5)
    assert isinstance(evaluation_report(answer(odd)), sampan.RegressionReport)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind 'segmentation_report'"):  # a kind this SDK does not know yet
        evaluation_report(answer(dict(CLASSIFICATION, kind="segmentation_report")))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no evaluation report"):
        evaluation_report(answer(None))


def test_a_forecast_report_is_chosen_by_its_kind():
    metrics = {"mase": 0.9, "smape": 11.0, "rmse": 2.0, "coverage": 0.8, "width": 0.3}
    payload = {
        "kind": "forecast_report",
        "version": 1,
        "split": "test",
        "horizon": 3,
        "frequency": "D",
        "season_length": 7,
        "interval_level": 0.8,
        "model_name": "ets",
        "series_count": 1,
        "observations": 3,
        "headline": metrics,
        "seasonal_naive": dict(metrics, mase=1.2),
        "skill": 0.25,
        "baselines": [],
        "per_series": [],
        "by_horizon": [],
        "backtest": [],
        "plots": [],
        "model": MODEL_FILE,
    }
    report = evaluation_report(answer(payload))  # type: ignore[arg-type]
    assert isinstance(report, sampan.ForecastReport) and report.raw == payload
    assert (report.mase, report.seasonal_naive_mase, report.skill, report.horizon) == (0.9, 1.2, 0.25, 3)


CLASSIFIER: schema.PredictionModelVersion = {"id": 3, "name": "V1", "template": "tabular_classification"}
REGRESSOR: schema.PredictionModelVersion = {"id": 4, "name": "V2", "template": "tabular_regression"}


def test_a_classifiers_prediction():
    data: schema.ClassificationPrediction = {
        "top_k": [{"label": "red", "index": 1, "score": 0.7}, {"label": "white", "index": 0, "score": 0.3}],
        "imputed": ["ash"],
    }
    prediction = Prediction(data, CLASSIFIER)
    assert (prediction.label, prediction.score, prediction.index, prediction.value) == ("red", 0.7, 1, None)
    assert prediction.top_k == prediction.classes == data["top_k"] and prediction.imputed == ["ash"]
    assert not prediction.regression and prediction.model_version["name"] == "V1"
    assert Prediction.from_answer(data, CLASSIFIER) == prediction
    assert "label='red'" in repr(prediction)


def test_a_regression_models_prediction():
    data: schema.RegressionPrediction = {"top_k": [{"value": 151.5}]}
    prediction = Prediction(data, REGRESSOR, "regression_prediction")
    assert prediction.regression and prediction.value == 151.5
    assert prediction.label == "" and math.isnan(prediction.score) and prediction.index == -1
    assert prediction.classes == [] and prediction.imputed == []
    assert repr(prediction) == "Prediction(value=151.5, imputed=[])"


def test_client_models_is_a_deprecated_alias_of_model_versions():
    client = sampan.Client("http://127.0.0.1:1", api_key="spk_x")
    assert isinstance(client.model_versions, ModelVersions)
    with pytest.warns(DeprecationWarning, match="client.model_versions"):
        assert client.models is client.model_versions
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client.model_versions.list  # noqa: B018 - the new name does not warn
    from sampan.models import Models

    assert Models is ModelVersions
