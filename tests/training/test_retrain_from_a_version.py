"""Retrain from a version, against PostgreSQL, Redis and a live worker: a deployment's retrain
endpoint starts a training job warm-started from the version it serves, with that version's template
and parameters; the new model version records its parent (``warm_start_from``, ``warm_start_from_name``).
Versions that cannot be a starting point are refused with a 400 naming the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jobs.models import Job

from tests.deploy.factories import deployment
from tests.training.factories import model_version
from tests.training.test_train_digits_through_the_api import digits_version, finished

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_deployment_retrains_from_its_version_and_the_new_version_records_its_parent(
    live_worker, tenants, api_client
):
    from training.models import ModelVersion

    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=12)
    first = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version["id"], "preset": "fast", "params": {"epochs": 2, "seed": 5}},
        format="json",
    )
    assert first.status_code == 201, first.content
    parent_id = finished(first.json()["id"], timeout=300).result["model_version"]
    parent = client.get(f"/api/v1/model-versions/{parent_id}/").json()
    assert parent["warm_start_from"] is None and parent["warm_start_from_name"] is None
    served = deployment(ModelVersion.objects.get(pk=parent_id), name="digits")

    # refusals: another network, a backbone too, an ONNX-only upload, a tabular model
    other_model = client.post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version["id"],
            "preset": "fast",
            "params": {"model": "resnet_narrow"},
            "warm_start_from": parent_id,
        },
        format="json",
    )
    assert other_model.status_code == 400, other_model.content
    assert "was trained with model 'cnn_small'" in other_model.json()["error"]["message"]
    onnx_only = model_version(tenants["project_a"], checkpoint_key="")
    refused = client.post(
        f"/api/v1/model-versions/{onnx_only.pk}/retrain/", {"dataset_version": version["id"]}, format="json"
    )
    assert refused.status_code == 400 and "has no model file" in refused.json()["error"]["message"]
    tabular = model_version(tenants["project_a"], template="tabular_classification", checkpoint_key="x")
    refused = client.post(
        f"/api/v1/model-versions/{tabular.pk}/retrain/", {"dataset_version": version["id"]}, format="json"
    )
    assert refused.status_code == 400
    assert "cannot start from a version's weights" in refused.json()["error"]["message"]
    viewer = api_client(tenants["carol"]).post(
        f"/api/v1/deployments/{served.pk}/retrain/", {"dataset_version": version["id"]}, format="json"
    )
    assert viewer.status_code == 403, viewer.content
    assert not Job.objects.filter(params__warm_start_from__isnull=False).exists()

    # an uploaded state_dict: the run keeps its architecture and image size (not the preset's)
    uploaded = model_version(
        tenants["project_a"],
        source="uploaded",
        checkpoint_key="missing/model.pt",
        params={"format": "state_dict", "architecture": "resnet_narrow"},
        preprocessing={"image_size": [40, 40]},
    )
    from_upload = client.post(
        f"/api/v1/model-versions/{uploaded.pk}/retrain/",
        {"dataset_version": version["id"], "preset": "fast"},
        format="json",
    )
    assert from_upload.status_code == 201, from_upload.content
    assert from_upload.json()["params"]["params"]["model"] == "resnet_narrow"
    assert from_upload.json()["params"]["params"]["image_size"] == 40
    assert client.post(f"/api/v1/jobs/{from_upload.json()['id']}/cancel/").status_code == 200

    # the retrain: the parent's template and parameters, one epoch more of the same data
    started = client.post(
        f"/api/v1/deployments/{served.pk}/retrain/",
        {"dataset_version": version["id"], "params": {"epochs": 1}},
        format="json",
    )
    assert started.status_code == 201, started.content
    job = started.json()
    assert job["kind"] == "training.run" and job["params"]["warm_start_from"] == parent_id
    assert job["params"]["preset"] == "fast"
    assert job["params"]["params"] == {**parent["params"], "epochs": 1}
    shown = client.get(f"/api/v1/training-jobs/{job['id']}/").json()
    assert shown["warm_start_from"] == parent_id
    done = finished(job["id"], timeout=300)

    child = client.get(f"/api/v1/model-versions/{done.result['model_version']}/").json()
    assert child["warm_start_from"] == parent_id and child["warm_start_from_name"] == parent["name"]
    assert child["params"]["model"] == "cnn_small" and child["preset"] == "fast"
    listed = client.get("/api/v1/model-versions/", {"project": tenants["project_a"].pk}).json()["results"]
    assert {v["name"]: v["warm_start_from_name"] for v in listed}[child["name"]] == parent["name"]
    # the run's result says what the warm start copied: every class's row of the head
    warm = json.loads((Path(done.result["run_dir"]) / "result.json").read_text())["warm_start"]
    assert warm["classes_kept"] == [str(d) for d in range(10)] and warm["classes_new"] == []
