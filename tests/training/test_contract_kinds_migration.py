"""The data migrations stamp ``kind`` and ``version`` on what was stored before the contracts had
them: model versions' and trials' evaluation reports (training 0004), jobs' progress, events and
training results (jobs 0003, one UPDATE per table on PostgreSQL). New rows already carry them, and a
stamped row is left alone."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection

from tests.automl import factories as automl_rows
from tests.datasets.factories import tenancy_objects
from tests.jobs import factories as jobs_rows
from tests.training import factories as training_rows

pytestmark = pytest.mark.django_db

CLASSIFICATION = {
    "split": "test",
    "samples": 2,
    "classes": ["cat", "dog"],
    "accuracy": 0.5,
    "top_k_accuracy": {"1": 0.5},
    "macro": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
    "weighted": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
    "per_class": [{"class": "cat", "index": 0, "precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 1}],
}
REGRESSION = {"task": "regression", "split": "test", "samples": 3, "mae": 1.0, "rmse": 2.0, "r2": 0.5}


def run(migration: str) -> None:
    module = importlib.import_module(migration)
    with connection.schema_editor() as editor:
        module.stamp(apps, editor)


def test_old_reports_get_the_kind_their_keys_say(tenants):
    project = tenants["project_a"]
    classifier = training_rows.model_version(project, onnx_key="", evaluation=CLASSIFICATION)
    regressor = training_rows.model_version(project, onnx_key="", evaluation=REGRESSION)
    empty = training_rows.model_version(project, onnx_key="", evaluation={})
    stamped = {**REGRESSION, "kind": "regression_report", "version": 1, "note": "already new"}
    new = training_rows.model_version(project, onnx_key="", evaluation=stamped)
    study = automl_rows.study(tenancy_objects(tenants)["version"])
    trial = automl_rows.trial(study, artifacts={"onnx_key": "x", "evaluation": CLASSIFICATION})

    run("training.migrations.0004_evaluation_report_kinds")

    for version, kind in ((classifier, "classification_report"), (regressor, "regression_report")):
        version.refresh_from_db()
        assert version.evaluation == {
            "kind": kind,
            "version": 1,
            **(CLASSIFICATION if "accuracy" in version.evaluation else REGRESSION),
        }
    empty.refresh_from_db()
    new.refresh_from_db()
    trial.refresh_from_db()
    assert empty.evaluation == {} and new.evaluation == stamped
    assert trial.artifacts == {
        "onnx_key": "x",
        "evaluation": {"kind": "classification_report", "version": 1, **CLASSIFICATION},
    }


def test_old_progress_events_and_training_results_get_their_kinds(tenants):
    project = tenants["project_a"]
    training = jobs_rows.job(
        project,
        kind="training.run",
        params={},
        progress={"fraction": 0.5, "epoch": 1},
        result={"model_version": 7, "name": "V1", "metrics": {}},
    )
    other = jobs_rows.job(project, kind="system.check", result={"devices": {}}, progress={})
    events = {
        "progress": {"fraction": 0.5},
        "status": {"status": "queued", "attempt": 1},
        "log": {"worker": "host/1"},
    }
    rows = {kind: jobs_rows.job_event(training, type=kind, data=data) for kind, data in events.items()}

    run("jobs.migrations.0003_contract_kinds")

    training.refresh_from_db()
    other.refresh_from_db()
    assert training.progress == {"kind": "progress", "version": 1, "fraction": 0.5, "epoch": 1}
    assert training.result == {
        "kind": "training_job_result",
        "version": 1,
        "model_version": 7,
        "name": "V1",
        "metrics": {},
    }
    assert other.progress == {} and other.result == {"devices": {}}
    kinds = {"progress": "progress", "status": "job_status", "log": "job_log"}
    for kind, data in events.items():
        rows[kind].refresh_from_db()
        assert rows[kind].data == {**data, "kind": kinds[kind], "version": 1}
