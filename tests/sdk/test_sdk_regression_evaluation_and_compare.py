"""A regression model version through the SDK: ``evaluation()`` is a RegressionReport (MAE, RMSE,
R2, residuals, feature importance), two regression versions compare by MAE/RMSE/R2 deltas (b minus
a) on the server (GET /api/v1/model-versions/compare/), and a classifier against a regression model
is a 400 naming both."""

from __future__ import annotations

import pytest
import sampan

from tests.templates_tabular.tables import frame

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_regression_evaluation_and_comparison(sdk, project):
    dataset = sdk.datasets.create("diabetes", project=project, task_type="tabular_regression")
    dataset.import_table(frame("diabetes"), target_column="target", progress=False)
    version = dataset.create_version(seed=2)
    first = version.train("fast").wait(progress=False, timeout=600).model_version()
    second = (
        version.train("fast", params={"n_estimators": 20}).wait(progress=False, timeout=600).model_version()
    )

    report = first.evaluation()
    assert isinstance(report, sampan.RegressionReport)
    assert report.samples > 0 and report.rmse >= report.mae > 0 and report.r2 < 1
    assert (report.mae, report.rmse, report.r2) == tuple(
        first.metrics["test"][k] for k in ("mae", "rmse", "r2")
    )
    residuals = report.residuals_frame()
    assert len(residuals) == report.samples and set(residuals.columns) == {
        "sample",
        "actual",
        "predicted",
        "residual",
    }
    assert report.feature_importance_frame().index[0] in frame("diabetes").columns
    assert report.plot_residuals() is not None

    compared = first.compare(second)
    assert compared["kind"] == "regression_comparison"
    assert (compared["a"], compared["b"]) == (first.id, second.id)
    other = second.evaluation()
    for metric in ("mae", "rmse", "r2"):
        pair = compared[metric]
        assert pair["a"] == pytest.approx(getattr(report, metric))
        assert pair["b"] == pytest.approx(getattr(other, metric))
        assert pair["delta"] == pytest.approx(pair["b"] - pair["a"])
    assert compared["samples"] == {"a": report.samples, "b": other.samples}
    table = sdk.model_versions.compare_frame(first, second)
    assert list(table.index) == ["mae", "rmse", "r2"] and list(table.columns) == ["a", "b", "delta"]

    wine = sdk.datasets.create("wine", project=project, task_type="tabular_classification")
    wine.import_table(frame("wine"), target_column="target", progress=False)
    classifier = wine.create_version(seed=2).train("fast").wait(progress=False, timeout=600).model_version()
    assert isinstance(classifier.evaluation(), sampan.EvaluationReport)
    assert classifier.compare(classifier)["kind"] == "classification_comparison"
    assert set(classifier.compare(classifier)) >= {
        "accuracy",
        "macro_f1",
        "weighted_f1",
        "top_k_accuracy",
        "per_class",
    }
    with pytest.raises(sampan.BadRequest) as refused:
        sdk.model_versions.compare(classifier, first)
    assert "cannot be compared" in refused.value.message
    assert classifier.name in refused.value.message and first.name in refused.value.message
