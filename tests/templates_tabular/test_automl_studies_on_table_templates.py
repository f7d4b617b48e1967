"""AutoML studies run on the tabular and text templates with their own search spaces (the
template's default space when none is given) on a live worker: every trial completes, regression
minimizes the validation RMSE, classification maximizes the validation accuracy."""

from __future__ import annotations

import csv
import io

import pytest

from tests.datasets.factories import upload
from tests.harness import wait_for
from tests.templates_tabular.tables import csv_bytes
from tests.templates_text.corpus import balanced

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def version_of(client, tenants, *, task_type: str, data: bytes, **mapping) -> dict:
    dataset = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": task_type, "task_type": task_type},
        format="json",
    ).json()["id"]
    imported = client.post(
        f"/api/v1/datasets/{dataset}/imports/", {"file": upload("t.csv", data), **mapping}, format="multipart"
    )
    assert imported.status_code == 201, imported.content
    return client.post(f"/api/v1/datasets/{dataset}/versions/", {"seed": 3}, format="json").json()


def run_study(client, version: dict, **body) -> dict:
    created = client.post(
        "/api/v1/studies/",
        {
            "dataset_version": version["id"],
            "sampler": "tpe",
            "n_trials": 3,
            "parallelism": 1,
            "report_seeds": 0,
            "preset": "fast",
            **body,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    url = f"/api/v1/studies/{created.json()['id']}/"
    return wait_for(
        lambda: (s := client.get(url).json())["status"] in ("completed", "failed") and s,
        timeout=900,
        interval=2,
        what="the study",
    )


def test_studies_on_tabular_classification_regression_and_text(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])

    wine = run_study(
        client,
        version_of(
            client,
            tenants,
            task_type="tabular_classification",
            data=csv_bytes("wine"),
            target_column="target",
        ),
    )
    assert wine["status"] == "completed" and wine["trials"]["failed"] == 0 and wine["trials"]["total"] == 3, (
        wine
    )
    assert wine["objective"] == {"metric": "val_acc", "direction": "maximize"}
    assert {d["name"] for d in wine["search_space"]} == {
        "n_estimators",
        "learning_rate",
        "num_leaves",
        "min_child_samples",
    }
    assert wine["best_trial"]["value"] > 0.8

    diabetes = run_study(
        client,
        version_of(
            client,
            tenants,
            task_type="tabular_regression",
            data=csv_bytes("diabetes"),
            target_column="target",
        ),
    )
    assert diabetes["status"] == "completed" and diabetes["trials"]["failed"] == 0, diabetes
    assert diabetes["objective"] == {"metric": "val_rmse", "direction": "minimize"}
    trials = client.get(f"/api/v1/studies/{diabetes['id']}/trials/").json()
    values = [
        t["value"]
        for t in (trials["results"] if isinstance(trials, dict) else trials)
        if t["value"] is not None
    ]
    assert diabetes["best_trial"]["value"] == min(values)

    out = io.StringIO()
    csv.writer(out).writerows([("text", "label"), *balanced(12)])
    text = run_study(
        client,
        version_of(client, tenants, task_type="text_classification", data=out.getvalue().encode()),
        fixed_params={"epochs": 3},
    )
    assert text["status"] == "completed" and text["trials"]["failed"] == 0, text
    assert {d["name"] for d in text["search_space"]} == {
        "learning_rate",
        "weight_decay",
        "dropout",
        "batch_size",
    }
