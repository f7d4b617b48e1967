"""Compressing a trained model end to end, against PostgreSQL, Redis, a live worker and the hosted
prediction API: a digits classifier trained through the API is compressed with the ``smaller`` preset
(int8); the job records the variant as a new model version compressed from it, with its lineage,
evaluation on the parent's test split and measurements in the report; the compressed version
deploys and answers predictions like any version, and its device SDK package builds."""

from __future__ import annotations

import pytest
import requests

from tests.deploy.factories import b64, png
from tests.harness import wait_for
from tests.training.test_train_digits_through_the_api import digits_version, finished

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_trained_model_is_compressed_to_int8_and_the_variant_deploys(
    live_worker, live_web, tenants, api_client
):
    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=12)
    trained = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version["id"], "preset": "fast", "params": {"epochs": 2, "seed": 3}},
        format="json",
    )
    assert trained.status_code == 201, trained.content
    parent_id = finished(trained.json()["id"], timeout=600).result["model_version"]

    started = client.post(
        f"/api/v1/model-versions/{parent_id}/compress/", {"preset": "smaller"}, format="json"
    )
    assert started.status_code == 202, started.content
    job = finished(started.json()["job"], timeout=600)
    assert job.result["kind"] == "compression_job_result" and len(job.result["model_versions"]) == 1
    [variant_id] = job.result["model_versions"]

    run = client.get(f"/api/v1/compressions/{started.json()['id']}/").json()
    assert run["status"] == "succeeded"
    report = run["report"]
    assert report["kind"] == "compression_report" and report["target"] == "worker-cpu"
    assert report["parent"]["model_version"] == parent_id and report["parent"]["precision"] == "fp32"
    [variant] = report["variants"]
    assert variant["model_version"] == variant_id and variant["name"] == "int8"
    summary = variant["summary"]
    assert summary["precision"] == "int8" and summary["metric"] == "accuracy"
    assert summary["size_bytes"] < report["parent"]["size_bytes"]
    assert summary["latency"]["runs"] > 0 and summary["latency"]["median_ms"] > 0
    assert summary["delta"] == pytest.approx(summary["value"] - report["parent"]["value"], abs=1e-9)

    # the variant is a model version of the project with lineage to its parent and its own evaluation
    shown = client.get(f"/api/v1/model-versions/{variant_id}/").json()
    parent = client.get(f"/api/v1/model-versions/{parent_id}/").json()
    assert shown["source"] == "compressed" and shown["compressed_from"] == parent_id
    assert shown["lineage"] == {
        "kind": "compression_lineage",
        "version": 1,
        "parent": parent_id,
        "teacher": None,
        "recipe": variant["recipe"],
        "compression": run["id"],
    }
    assert shown["dataset_version"] == parent["dataset_version"] and shown["classes"] == parent["classes"]
    assert shown["metrics"]["test"]["accuracy"] == pytest.approx(summary["value"])
    evaluation = client.get(f"/api/v1/model-versions/{variant_id}/evaluation/").json()["evaluation"]
    assert evaluation["kind"] == "classification_report"
    compared = client.get("/api/v1/model-versions/compare/", {"a": parent_id, "b": variant_id})
    assert compared.status_code == 200, compared.content
    onnx = client.get(f"/api/v1/model-versions/{variant_id}/onnx/")
    assert onnx.status_code == 200 and len(b"".join(onnx.streaming_content)) == shown_size(report, variant_id)

    # deployed like any version: the hosted API answers with the compressed model
    deployment = client.post(
        "/api/v1/deployments/", {"model_version": variant_id, "name": "int8"}, format="json"
    )
    assert deployment.status_code == 201, deployment.content
    key = client.post(f"/api/v1/deployments/{deployment.json()['id']}/keys/", {"name": "app"}, format="json")
    answer = requests.post(
        f"{live_web}/api/v1/deployments/{deployment.json()['id']}/predict/",
        headers={"Authorization": f"Bearer {key.json()['key']}"},
        json={"instances": [{"image": b64(png(i))} for i in range(3)]},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["model_version"]["id"] == variant_id and len(body["predictions"]) == 3
    assert all(p["top_k"][0]["label"] in parent["classes"] for p in body["predictions"])

    # and packaged for devices
    package = client.post("/api/v1/packages/", {"model_version": variant_id, "kind": "device"}, format="json")
    assert package.status_code == 201, package.content

    def built():
        shown = client.get(f"/api/v1/packages/{package.json()['id']}/").json()
        return shown if shown["status"] in ("succeeded", "failed", "cancelled") else None

    done = wait_for(built, timeout=600, interval=1, what="the device SDK package")
    assert done["status"] == "succeeded", done["error"]
    assert done["size_bytes"] > 0


def shown_size(report: dict, model_version: int) -> int:
    return next(v["summary"]["size_bytes"] for v in report["variants"] if v["model_version"] == model_version)
