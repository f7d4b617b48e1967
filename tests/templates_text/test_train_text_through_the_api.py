"""Text classification through the REST API against PostgreSQL, Redis and a live worker: import a
real labeled corpus (Python's standard library docstrings by area), version, train the small
from-scratch model and the MiniLM + wordpiece TF-IDF head (96 texts: cross-validated), read the
evaluation with its misclassified texts and the folds, and serve raw text from the exported ONNX +
tokenizer through the serving protocol."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from jobs.models import Job

from tests.datasets.factories import upload
from tests.harness import wait_for
from tests.openapi_conformance import _validate
from tests.templates_text.corpus import balanced

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def finished(job_id: int, timeout: float = 900) -> Job:
    def done():
        job = Job.objects.get(pk=job_id)
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    job = wait_for(done, timeout=timeout, interval=1, what=f"job {job_id}")
    assert job.status == "succeeded", f"{job.status}: {job.error}"
    return job


def docstrings_version(client, tenants, per_class: int) -> dict:
    dataset = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": "Docstrings", "task_type": "text_classification"},
        format="json",
    ).json()["id"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["text", "area"])
    writer.writerows(balanced(per_class))
    imported = client.post(
        f"/api/v1/datasets/{dataset}/imports/",
        {"file": upload("docstrings.csv", out.getvalue().encode()), "label_column": "area"},
        format="multipart",
    )
    assert imported.status_code == 201 and imported.json()["imported"] == 4 * per_class, imported.content
    version = client.post(
        f"/api/v1/datasets/{dataset}/versions/",
        {"seed": 5, "train_ratio": 0.6, "val_ratio": 0.2, "test_ratio": 0.2},
        format="json",
    )
    assert version.status_code == 201, version.content
    return version.json()


def train(client, version: dict, **body) -> dict:
    started = client.post("/api/v1/training-jobs/", {"dataset_version": version["id"], **body}, format="json")
    assert started.status_code == 201, started.content
    job = finished(started.json()["id"])
    return client.get(f"/api/v1/model-versions/{job.result['model_version']}/").json()


def test_minilm_head_and_the_small_model_then_serving_raw_text(live_worker, tenants, api_client, tmp_path):
    from workers.serving.predictors import load_predictor
    from workers.serving.protocol import parse_request

    client = api_client(tenants["alice"])
    version = docstrings_version(client, tenants, per_class=40)
    minilm = train(client, version, preset="balanced", params={"epochs": 30})
    assert minilm["template"] == "text_classification" and minilm["params"]["model"] == "minilm_tfidf"
    assert minilm["metrics"]["test"]["accuracy"] >= 0.7, minilm["metrics"]
    # the tokenizer.json travels inside model.onnx (checked by sha256), not in every API answer
    assert (
        "tokenizer" not in minilm["preprocessing"] and len(minilm["preprocessing"]["tokenizer_sha256"]) == 64
    )
    report = client.get(f"/api/v1/model-versions/{minilm['id']}/evaluation/").json()["evaluation"]
    assert (
        sum(map(sum, report["confusion_matrix"]["counts"]))
        == report["samples"]
        == sum(version["counts"]["test"].values())
    )
    assert all(
        m["text"] and m["true_class"] != m["predicted_class"] for m in report["most_confident_mistakes"]
    )
    assert len(report["most_confident_mistakes"]) == report["misclassified"]
    _validate(report, {"$ref": "#/components/schemas/ClassificationReport"}, "the text report")
    # small data: the folds chose the head's strength, and the report shows their spread
    assert report["cross_validation"]["folds"] == 5 and "C" in report["cross_validation"]["chosen"]

    small = train(client, version, preset="fast", params={"epochs": 20})
    assert small["params"]["model"] == "bag_of_embeddings" and small["metrics"]["test"]["accuracy"] > 0.25

    model_dir = tmp_path / "served"
    model_dir.mkdir()
    onnx = client.get(f"/api/v1/model-versions/{minilm['id']}/onnx/")
    (model_dir / "model.onnx").write_bytes(b"".join(onnx.streaming_content))
    (model_dir / "preprocess.json").write_text(json.dumps(minilm["preprocessing"]))
    (model_dir / "labels.json").write_text(json.dumps(minilm["classes"]))
    (model_dir / "manifest.json").write_text(json.dumps({"template": "text_classification"}))
    predictor = load_predictor(model_dir)
    # the labels' order (the order the file first names them), which the version and the model keep
    assert predictor.data_kind == "text" and predictor.classes == version["classes"]
    assert sorted(predictor.classes) == ["files", "network", "numbers", "text"]
    body = {
        "instances": [
            {"text": "Return the square root of x."},
            {"text": "Open a TCP connection to the host."},
        ],
        "top_k": 2,
    }
    parsed = parse_request(
        content_type="application/json", body=json.dumps(body).encode(), data_kind="text", max_batch=8
    )
    answers = predictor.predict(parsed.instances, parsed.top_k)
    assert [a[0]["label"] for a in answers] == ["numbers", "network"] and len(answers[0]) == 2

    from workers.text_classification.predictor import TextClassifier

    forged = {**minilm["preprocessing"], "tokenizer_sha256": "0" * 64}
    with pytest.raises(ValueError, match="does not match the model's"):
        TextClassifier(model_dir / "model.onnx", preprocessing=forged)

    # the hosted deployment takes raw text and answers the same as the predictor
    deployment = client.post(
        "/api/v1/deployments/",
        {"project": tenants["project_a"].pk, "model_version": minilm["id"], "name": "docstrings"},
        format="json",
    )
    assert deployment.status_code == 201, deployment.content
    key = client.post(
        f"/api/v1/deployments/{deployment.json()['id']}/keys/", {"name": "k"}, format="json"
    ).json()["key"]
    from rest_framework.test import APIClient

    hosted = APIClient().post(
        f"/api/v1/deployments/{deployment.json()['id']}/predict/",
        body,
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert hosted.status_code == 200, hosted.content
    served = [p["top_k"] for p in hosted.json()["predictions"]]
    assert [[x["label"] for x in top] for top in served] == [[x["label"] for x in a] for a in answers]
    assert all(
        abs(x["score"] - y["score"]) < 1e-5
        for top, a in zip(served, answers, strict=True)
        for x, y in zip(top, a, strict=True)
    )

    # the on-prem server package of the small model is built by the job from the version's test texts,
    # with the tokenizer library in its requirements
    created = client.post(
        "/api/v1/packages/", {"model_version": small["id"], "kind": "server"}, format="json"
    )
    assert created.status_code == 201, created.content
    finished(created.json()["job"])
    package = client.get(f"/api/v1/packages/{created.json()['id']}/").json()
    assert package["status"] == "succeeded", package["error"]
    archive = zipfile.ZipFile(io.BytesIO(b"".join(client.get(package["download_url"]).streaming_content)))
    names = {name.split("/", 1)[1]: name for name in archive.namelist()}
    assert {"model.onnx", "preprocess.json", "labels.json", "manifest.json"} <= names.keys(), names
    assert "tokenizers" in archive.read(names["requirements.txt"]).decode()
    assert any(name.startswith("test_vectors/") for name in names), names
