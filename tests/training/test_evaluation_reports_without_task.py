"""Evaluation reports and comparisons name what they are by ``kind`` alone: the legacy ``task`` key
("classification"/"regression") is gone from what the workers produce and from the stored rows
(training 0005: model versions' reports and trials' stored reports; reversible)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection

from tests.automl import factories as automl_rows
from tests.datasets.factories import tenancy_objects
from tests.training import factories as training_rows
from workers.tabular.evaluation import compare_regression

pytestmark = pytest.mark.django_db

MIGRATION = "training.migrations.0005_evaluation_reports_without_task"
REGRESSION = {
    "kind": "regression_report",
    "version": 1,
    "split": "test",
    "samples": 3,
    "mae": 1.0,
    "rmse": 2.0,
    "r2": 0.5,
}
CLASSIFICATION = {
    "kind": "classification_report",
    "version": 1,
    "split": "test",
    "samples": 2,
    "accuracy": 0.5,
}


def run(step: str) -> None:
    module = importlib.import_module(MIGRATION)
    with connection.schema_editor() as editor:
        getattr(module, step)(apps, editor)


def test_stored_reports_lose_the_task_key_and_get_it_back_on_reverse(tenants):
    project = tenants["project_a"]
    regressor = training_rows.model_version(
        project, onnx_key="", evaluation={**REGRESSION, "task": "regression"}
    )
    classifier = training_rows.model_version(
        project, onnx_key="", evaluation={**CLASSIFICATION, "task": "classification"}
    )
    already = training_rows.model_version(project, onnx_key="", evaluation=dict(REGRESSION))
    empty = training_rows.model_version(project, onnx_key="", evaluation={})
    study = automl_rows.study(tenancy_objects(tenants)["version"])
    trial = automl_rows.trial(
        study, artifacts={"onnx_key": "x", "evaluation": {**CLASSIFICATION, "task": "classification"}}
    )

    run("drop_task")

    for row in (regressor, classifier, already, empty, trial):
        row.refresh_from_db()
    assert regressor.evaluation == REGRESSION and classifier.evaluation == CLASSIFICATION
    assert already.evaluation == REGRESSION and empty.evaluation == {}
    assert trial.artifacts == {"onnx_key": "x", "evaluation": CLASSIFICATION}

    run("restore_task")

    regressor.refresh_from_db()
    trial.refresh_from_db()
    empty.refresh_from_db()
    assert regressor.evaluation == {**REGRESSION, "task": "regression"}
    assert trial.artifacts["evaluation"] == {**CLASSIFICATION, "task": "classification"}
    assert empty.evaluation == {}


def test_a_regression_comparison_is_named_by_its_kind_alone():
    a = {**REGRESSION, "mae": 2.0, "rmse": 3.0, "r2": 0.4}
    compared = compare_regression(a, REGRESSION)  # type: ignore[arg-type]
    assert compared["kind"] == "regression_comparison" and "task" not in compared
    assert compared["mae"] == {"a": 2.0, "b": 1.0, "delta": -1.0}
