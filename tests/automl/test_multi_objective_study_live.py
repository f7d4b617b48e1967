"""A two-objective study (validation accuracy, latency on a target) on tiny digits with a live
Celery worker: each trial measures its ONNX with the study's target profile, records its values,
measurements and feasibility, the study shows a Pareto front, and a trial of the front is promoted."""

from __future__ import annotations

import pytest

from tests.datasets.factories import dataset_with_samples
from tests.harness import wait_for

pytestmark = [
    pytest.mark.openapi_conformance,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]


def test_two_objective_study_measures_trials_and_shows_a_front(live_worker, tenants, api_client):
    from automl.models import Study

    client = api_client(tenants["alice"])
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", per_class=8, classes=range(3)
    )
    version = client.post(f"/api/v1/datasets/{dataset.pk}/versions/", {"seed": 3}, format="json").json()
    created = client.post(
        "/api/v1/studies/",
        {
            "dataset_version": version["id"],
            "preset": "fast",
            "fixed_params": {"epochs": 1, "model": "cnn_small", "batch_size": 8},
            "search_space": [
                {"name": "image_size", "type": "int", "low": 32, "high": 64, "step": 32},
                {"name": "learning_rate", "type": "float", "low": 1e-3, "high": 1e-2, "log": True},
            ],
            "objectives": [{"metric": "val_acc"}, {"metric": "latency_ms"}],
            "constraints": [{"metric": "size_bytes", "op": "<=", "value": 1e9}],
            "target_profile": "edge-arm-slow",
            "sampler": "random",
            "n_trials": 3,
            "parallelism": 1,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    study_id = created.json()["id"]
    wait_for(
        lambda: Study.objects.get(pk=study_id).status == "completed",
        timeout=900,
        interval=1,
        what="the study",
    )
    study = client.get(f"/api/v1/studies/{study_id}/").json()
    trials = client.get(f"/api/v1/studies/{study_id}/trials/").json()
    complete = [t for t in trials if t["state"] == "complete"]
    assert complete, [t["error"] for t in trials]
    for trial in complete:
        m = trial["measurements"]
        assert len(trial["values"]) == 2 and trial["values"][1] == pytest.approx(m["latency_ms"])
        assert (
            m["latency"]["profile"] == "edge-arm-slow" and m["size_bytes"] > 0 and trial["feasible"] is True
        )
        assert m["latency_ms"] == pytest.approx(m["latency"]["median_ms"] * 4.0, rel=0.05, abs=1e-3)
    assert study["pareto_front"] and set(study["pareto_front"]) <= {t["number"] for t in complete}
    assert [t["number"] for t in trials if t["on_front"]] == study["pareto_front"]
    promoted = client.post(
        f"/api/v1/studies/{study_id}/promote/", {"trial": study["pareto_front"][-1]}, format="json"
    )
    assert promoted.status_code == 201, promoted.content
    assert promoted.json()["metrics"]["automl"]["target_profile"] == "edge-arm-slow"
