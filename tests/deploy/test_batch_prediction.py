"""Batch predictions through the REST API, their job body run in-process (the live-worker run is
tests/deploy/test_batch_prediction_live.py): a digits classifier over a dataset version's test
split answers exactly as the hosted API does; an uploaded zip with a corrupt image gives an error
row and predicts the rest; a tabular model predicts a CSV with its target (metrics); a detector
over images with true boxes gets mAP@.5; cancel and delete; bad inputs answer a 4xx naming the
problem."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from tests.datasets.factories import dataset_with_samples, make_zip
from tests.deploy.factories import b64, deployment_with_key, model_version_from, png

pytestmark = [pytest.mark.django_db, pytest.mark.openapi_conformance]

URL = "/api/v1/batch-predictions/"


def run_job(batch_id: int) -> dict:
    """Run the batch's job body in this process (what the worker's task calls)."""
    from deploy.batch import batch_prediction_run
    from deploy.models import BatchPrediction

    from workers.progress import silent_report

    batch = BatchPrediction.objects.select_related("job").get(pk=batch_id)
    return batch_prediction_run(job=batch.job, report=silent_report)


def download(client, batch: dict, fmt: str) -> bytes:
    response = client.get(f"{URL}{batch['id']}/download/?format={fmt}")
    assert response.status_code == 200, response.content
    assert f"batch-{batch['id']}-{batch['model_version_name']}.{fmt}" in response["Content-Disposition"]
    return b"".join(response.streaming_content)


def hosted(client, deployment_id: int, secret: str, images: list[bytes], top_k: int) -> list[dict]:
    """The hosted API's answers (a plain client: the key is the only credential)."""
    from django.test import Client

    answer = Client().post(
        f"/api/v1/deployments/{deployment_id}/predict/",
        data=json.dumps({"instances": [{"image": b64(i)} for i in images], "top_k": top_k}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert answer.status_code == 200, answer.content
    return answer.json()["predictions"]


def test_a_dataset_version_split_is_predicted_as_the_hosted_api_answers(
    tenants, api_client, trained_digits, isolated_storage, django_capture_on_commit_callbacks
):
    from datasets.models import VersionSample
    from datasets.services import dataset_version_create
    from django.core.files.storage import default_storage

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=4, classes=range(10)
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=3)
    mv = model_version_from(tenants, trained_digits, dataset_version=version)
    deployment, _, secret = deployment_with_key(tenants, mv)
    alice = api_client(tenants["alice"])

    created = alice.post(
        URL,
        {
            "model_version": mv.pk,
            "source": "dataset_version",
            "dataset_version": version.pk,
            "split": "test",
            "top_k": 3,
            "formats": ["jsonl", "csv", "parquet"],
            "deployment": deployment.pk,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    batch = created.json()
    assert batch["status"] == "queued" and batch["files"] == [] and batch["summary"] is None
    assert batch["source"]["kind"] == "dataset_version" and batch["source"]["split"] == "test"
    assert batch["source"]["dataset_version_name"].endswith("V1") and batch["deployment"] == deployment.pk
    result = run_job(batch["id"])
    batch = alice.get(f"{URL}{batch['id']}/").json()
    assert batch["status"] == "succeeded", batch["error"]
    test_entries = list(VersionSample.objects.filter(version=version, split="test").order_by("pk"))
    summary = batch["summary"]
    assert summary["rows"] == len(test_entries) == result["predicted"] and summary["errors"] == 0
    assert {f["format"] for f in batch["files"]} == {"jsonl", "csv", "parquet"}

    rows = [json.loads(line) for line in download(alice, batch, "jsonl").decode().splitlines()]
    assert [r["id"] for r in rows] == [e.sample_id for e in test_entries]
    assert [r["truth"] for r in rows] == [e.label_name for e in test_entries]
    images = [default_storage.open(e.blob_key, "rb").read() for e in test_entries]
    answers = hosted(alice, deployment.pk, secret, images, top_k=3)
    for row, answer in zip(rows, answers, strict=True):
        assert [c["label"] for c in row["prediction"]["top_k"]] == [c["label"] for c in answer["top_k"]]
        assert np.allclose(
            [c["score"] for c in row["prediction"]["top_k"]], [c["score"] for c in answer["top_k"]], atol=1e-6
        )
    # the metrics are the hosted answers' accuracy against the version's labels
    accuracy = np.mean(
        [a["top_k"][0]["label"] == e.label_name for a, e in zip(answers, test_entries, strict=True)]
    )
    assert summary["metrics"]["accuracy"] == pytest.approx(accuracy)
    # and the evaluation report's (what a training run records), computed on the same split
    from datasets.services import dataset_version_manifest

    from workers.image_classification.evaluation import evaluate

    report = evaluate(
        trained_digits / "model.onnx",
        dataset_version_manifest(version=version),
        preprocessing=json.loads((trained_digits / "preprocess.json").read_text()),
    )
    assert report["samples"] == summary["metrics"]["samples"] == len(test_entries)
    assert summary["metrics"]["accuracy"] == pytest.approx(report["accuracy"])
    assert summary["metrics"]["macro_f1"] == pytest.approx(report["macro"]["f1"])

    table = list(csv.DictReader(io.StringIO(download(alice, batch, "csv").decode())))
    assert list(table[0]) == ["id", "name", "label", "score", "top_k", "error", "truth"]
    assert [r["label"] for r in table] == [r["prediction"]["top_k"][0]["label"] for r in rows]
    frame = pq.read_table(io.BytesIO(download(alice, batch, "parquet"))).to_pandas()
    assert list(frame["label"]) == [r["label"] for r in table] and list(frame["id"]) == [
        r["id"] for r in rows
    ]

    # listed with filters; deleted with its files
    listed = alice.get(URL, {"project": tenants["project_a"].pk, "status": "succeeded"}).json()
    assert [b["id"] for b in listed["results"]] == [batch["id"]]
    assert alice.get(URL, {"status": "running"}).json()["results"] == []
    assert alice.get(URL, {"deployment": deployment.pk}).json()["count"] == 1
    from deploy.models import BatchPrediction

    keys = [entry["key"] for entry in BatchPrediction.objects.get(pk=batch["id"]).files.values()]
    assert len(keys) == 3 and all(default_storage.exists(k) for k in keys)
    with django_capture_on_commit_callbacks(execute=True):
        assert alice.delete(f"{URL}{batch['id']}/").status_code == 204
    assert not any(default_storage.exists(k) for k in keys)
    assert alice.get(f"{URL}{batch['id']}/").status_code == 404


def test_an_uploaded_zip_with_a_corrupt_image_gives_an_error_row_and_predicts_the_rest(
    tenants, api_client, trained_digits, isolated_storage
):
    from tests.datasets.factories import upload

    mv = model_version_from(tenants, trained_digits)
    deployment, _, secret = deployment_with_key(tenants, mv)
    alice = api_client(tenants["alice"])
    archive = make_zip(
        {"a/0.png": png(0), "a/broken.png": b"\x89PNG not really", "=cmd.png": png(1), "b/2.png": png(2)}
    )
    created = alice.post(
        URL,
        {
            "model_version": mv.pk,
            "source": "upload",
            "file": upload("inputs.zip", archive),
            "top_k": 2,
            "formats": ["jsonl", "csv"],  # a repeated multipart field, as the SDK sends it
        },
        format="multipart",
    )
    assert created.status_code == 201, created.content
    batch = created.json()
    assert batch["source"]["upload_name"] == "inputs.zip" and batch["source"]["upload_size"] == len(archive)
    run_job(batch["id"])
    batch = alice.get(f"{URL}{batch['id']}/").json()
    assert batch["status"] == "succeeded", batch["error"]
    summary = batch["summary"]
    assert (summary["rows"], summary["predicted"], summary["errors"]) == (4, 3, 1)
    assert summary["metrics"] is None and summary["error_examples"][0]["name"] == "a/broken.png"
    rows = {r["name"]: r for r in map(json.loads, download(alice, batch, "jsonl").decode().splitlines())}
    assert "broken.png" in rows["a/broken.png"]["error"] and rows["a/broken.png"].get("prediction") is None
    answers = hosted(alice, deployment.pk, secret, [png(0), png(1), png(2)], top_k=2)
    for name, answer in zip(["a/0.png", "=cmd.png", "b/2.png"], answers, strict=True):
        assert rows[name]["prediction"]["top_k"][0]["label"] == answer["top_k"][0]["label"]
    text = download(alice, batch, "csv").decode()
    assert "'=cmd.png" in text and "\n=cmd.png" not in text  # formula-injection safe
    assert {f["format"] for f in batch["files"]} == {"jsonl", "csv"}  # parquet only when asked (images)
    missing = alice.get(f"{URL}{batch['id']}/download/?format=parquet")
    assert missing.status_code == 400 and "parquet" in missing.json()["error"]["message"]


@pytest.mark.parametrize("template", ["tabular_classification", "tabular_regression"])
def test_a_csv_table_is_predicted_by_a_tabular_model_with_metrics_from_its_target(
    tenants, api_client, tmp_path, isolated_storage, template
):
    from tests.datasets.factories import upload
    from tests.packages.test_text_and_tabular_server_packages import train_tabular
    from tests.training.factories import model_version
    from workers.serving.predictors import load_predictor, predict_instances

    artifacts, (result, instances) = train_tabular(template, tmp_path)
    mv = model_version(
        tenants["project_a"],
        template=template,
        onnx=Path(result["onnx"]).read_bytes(),
        classes=result["classes"],
        preprocessing=result["preprocessing"],
    )
    regression = template == "tabular_regression"
    columns = [f["name"] for f in result["preprocessing"]["features"]]
    rows = instances[:12]
    truth = (
        [17.0 + i for i in range(len(rows))]
        if regression
        else [result["classes"][i % 3] for i in range(len(rows))]
    )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", *columns, "target"])
    for i, (row, t) in enumerate(zip(rows, truth, strict=True)):
        writer.writerow([100 + i, *["" if row.get(c) is None else row[c] for c in columns], t])
    writer.writerow([999, *["abc" for _ in columns], truth[0]])  # a row the contract refuses
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL,
        {"model_version": mv.pk, "source": "upload", "file": upload("rows.csv", out.getvalue().encode())},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    run_job(created.json()["id"])
    batch = alice.get(f"{URL}{created.json()['id']}/").json()
    assert batch["status"] == "succeeded", batch["error"]
    summary = batch["summary"]
    assert (summary["rows"], summary["predicted"], summary["errors"]) == (13, 12, 1)
    assert {f["format"] for f in batch["files"]} == {"jsonl", "csv", "parquet"}  # a table: parquet too
    frame = pq.read_table(io.BytesIO(download(alice, batch, "parquet"))).to_pandas()
    assert list(frame["id"]) == [100 + i for i in range(12)] + [999]
    assert "abc" in frame["error"].iloc[-1] and frame["error"].iloc[:12].isna().all()

    directory = tmp_path / "served"
    directory.mkdir()
    for name, content in (
        ("model.onnx", Path(result["onnx"]).read_bytes()),
        ("preprocess.json", json.dumps(result["preprocessing"]).encode()),
        ("labels.json", json.dumps(result["classes"]).encode()),
        ("manifest.json", json.dumps({"template": template}).encode()),
    ):
        (directory / name).write_bytes(content)
    expected, _ = predict_instances(load_predictor(directory), rows, 5)
    if regression:
        values = [e[0]["value"] for e in expected]
        assert np.allclose(frame["value"].iloc[:12], values, atol=1e-4)
        residual = np.array(values) - np.array(truth)
        assert summary["metrics"]["mae"] == pytest.approx(np.mean(np.abs(residual)), rel=1e-4)
        assert summary["metrics"]["rmse"] == pytest.approx(np.sqrt(np.mean(residual**2)), rel=1e-4)
        assert list(frame.columns) == ["id", "name", "value", "error", "truth"]
    else:
        labels = [e[0]["label"] for e in expected]
        assert list(frame["label"].iloc[:12]) == labels
        accuracy = np.mean([a == t for a, t in zip(labels, truth, strict=True)])
        assert summary["metrics"]["accuracy"] == pytest.approx(accuracy)


def test_a_detector_gets_boxes_and_map50_against_true_boxes(tmp_path):
    """The compute plane alone: a constant detector over three images with true boxes."""
    from PIL import Image

    from tests.workers.detection_models import constant_detector
    from workers.progress import silent_report
    from workers.serving.batch import run

    classes = ["cat", "dog"]
    model = constant_detector(
        tmp_path / "detector", classes, [(0, 0.9, 8, 8, 20, 16), (1, 0.6, 36, 36, 16, 20)]
    )
    items = []
    for i in range(3):
        path = tmp_path / f"{i}.png"
        Image.new("RGB", (64, 64), (i * 40, 80, 40)).save(path)
        items.append(
            {
                "id": i,
                "name": path.name,
                "path": str(path),
                # the first class's box found exactly; the dog box is not there (a false positive)
                "boxes": [{"label": "cat", "x": 8, "y": 8, "width": 20, "height": 16}],
            }
        )
    (tmp_path / "bad.png").write_bytes(b"nope")
    items.append({"id": 9, "name": "bad.png", "path": str(tmp_path / "bad.png"), "boxes": []})
    reports = []

    def report(message="", **fields):
        silent_report(message, **fields)
        reports.append(fields)

    summary = run(
        {
            "kind": "batch_input",
            "version": 1,
            "template": "object_detection",
            "model_dir": str(model),
            "items": items,
            "labeled": True,
        },
        {"score_threshold": 0.5, "formats": ["jsonl", "csv"]},
        tmp_path / "out",
        report,
    )
    assert (summary["rows"], summary["predicted"], summary["errors"]) == (4, 3, 1)
    assert summary["metrics"]["map50"] == pytest.approx(1.0)  # every true box found first
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [b["label"] for b in rows[0]["prediction"]["boxes"]] == ["cat", "dog"]
    table = list(csv.DictReader((tmp_path / "out" / "results.csv").open()))
    assert list(table[0]) == ["id", "name", "boxes", "error", "truth"]
    assert reports[-1]["processed"] == 4 and reports[-1]["total"] == 4


def test_a_queued_batch_is_cancelled_and_a_running_one_cannot_be_deleted(tenants, api_client, trained_digits):
    from deploy.models import BatchPrediction
    from jobs.models import Job, JobStatus

    mv = model_version_from(tenants, trained_digits)
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=1, classes=range(3)
    )
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL, {"model_version": mv.pk, "source": "dataset", "dataset": dataset.pk}, format="json"
    )
    assert created.status_code == 201, created.content
    batch_id = created.json()["id"]
    job = Job.objects.get(pk=created.json()["job"])
    assert job.kind == "deploy.batch_predict" and job.params == {"batch_prediction": batch_id}

    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING)
    BatchPrediction.objects.filter(pk=batch_id).update(status="running")
    refused = alice.delete(f"{URL}{batch_id}/")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "batch_running"
    not_ready = alice.get(f"{URL}{batch_id}/download/")
    assert not_ready.status_code == 409 and not_ready.json()["error"]["code"] == "batch_not_ready"
    Job.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED)
    BatchPrediction.objects.filter(pk=batch_id).update(status="queued")

    assert api_client(tenants["carol"]).post(f"{URL}{batch_id}/cancel/").status_code == 403  # a viewer
    cancelled = alice.post(f"{URL}{batch_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = alice.post(f"{URL}{batch_id}/cancel/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "batch_finished"
    assert alice.delete(f"{URL}{batch_id}/").status_code == 204
    assert not BatchPrediction.objects.filter(pk=batch_id).exists()


def test_a_whole_dataset_is_predicted_with_its_labels_as_truth(
    tenants, api_client, trained_digits, isolated_storage
):
    mv = model_version_from(tenants, trained_digits)
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=2, classes=range(10)
    )
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL, {"model_version": mv.pk, "source": "dataset", "dataset": dataset.pk}, format="json"
    )
    assert created.status_code == 201, created.content
    run_job(created.json()["id"])
    batch = alice.get(f"{URL}{created.json()['id']}/").json()
    assert batch["status"] == "succeeded" and batch["summary"]["rows"] == 20
    assert batch["source"]["dataset_name"] == dataset.name and batch["summary"]["metrics"]["accuracy"] >= 0


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.content
    return response.json()["error"]


def test_bad_inputs_are_refused_naming_the_problem(
    tenants, api_client, trained_digits, isolated_storage, settings
):
    from datasets.services import dataset_version_create

    from tests.datasets.factories import upload
    from tests.training.factories import model_version
    from tests.workspaces.factories import project

    mv = model_version_from(tenants, trained_digits)
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=2, classes=range(3)
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=3)
    other_project = project(tenants["ws_a"], name="Other")
    elsewhere = dataset_with_samples(
        user=tenants["alice"], project=other_project, name="Elsewhere", per_class=1
    )
    alice = api_client(tenants["alice"])

    def post(body, fmt="json"):
        return alice.post(URL, body, format=fmt)

    wrong_project = error_of(
        post({"model_version": mv.pk, "source": "dataset", "dataset": elsewhere.pk}), 400
    )
    assert "another project" in wrong_project["message"] and "dataset" in wrong_project["details"]
    split = error_of(
        post(
            {
                "model_version": mv.pk,
                "source": "dataset_version",
                "dataset_version": version.pk,
                "split": "holdout",
            }
        ),
        400,
    )
    assert "split" in split["details"]
    no_version = error_of(post({"model_version": mv.pk, "source": "dataset_version"}), 400)
    assert "dataset_version" in no_version["details"]
    unservable = model_version(tenants["project_a"], onnx_key="")
    not_servable = error_of(
        post({"model_version": unservable.pk, "source": "dataset", "dataset": dataset.pk}), 400
    )
    assert "no ONNX model" in not_servable["message"]
    bad_type = error_of(
        post(
            {"model_version": mv.pk, "source": "upload", "file": upload("notes.exe", b"MZ\x90\x00")},
            "multipart",
        ),
        400,
    )
    assert bad_type["code"] == "unsupported_format" and "notes.exe" in bad_type["message"]
    table_to_images = error_of(
        post(
            {"model_version": mv.pk, "source": "upload", "file": upload("rows.csv", b"a,b\n1,2\n")},
            "multipart",
        ),
        400,
    )
    assert "images" in table_to_images["message"]
    unsafe = error_of(
        post(
            {
                "model_version": mv.pk,
                "source": "upload",
                "file": upload("evil.zip", make_zip({"../up.png": png(0)})),
            },
            "multipart",
        ),
        400,
    )
    assert unsafe["code"] == "unsafe_path" and "../up.png" in unsafe["message"]
    settings.SAMPAN_DATASET_MAX_UPLOAD_BYTES = 1024
    big = make_zip({f"{i}.png": png(i) for i in range(20)}, compression=zipfile.ZIP_STORED)
    too_large = error_of(
        post({"model_version": mv.pk, "source": "upload", "file": upload("big.zip", big)}, "multipart"), 413
    )
    assert (
        too_large["code"] == "upload_too_large" and "SAMPAN_DATASET_MAX_UPLOAD_BYTES" in too_large["message"]
    )
    no_file = error_of(post({"model_version": mv.pk, "source": "upload"}), 400)
    assert "file" in no_file["details"]
    bad_format = error_of(
        post({"model_version": mv.pk, "source": "dataset", "dataset": dataset.pk, "formats": ["xlsx"]}), 400
    )
    assert "formats" in bad_format["details"]
    foreign = error_of(
        api_client(tenants["bob"]).post(
            URL, {"model_version": mv.pk, "source": "dataset", "dataset": dataset.pk}, format="json"
        ),
        400,
    )
    assert "model_version" in foreign["details"]
    viewer = api_client(tenants["carol"]).post(
        URL, {"model_version": mv.pk, "source": "dataset", "dataset": dataset.pk}, format="json"
    )
    assert viewer.status_code == 403
    from deploy.models import BatchPrediction

    assert not BatchPrediction.objects.exists()


def test_a_folder_per_class_zip_is_labeled_by_its_folders(
    tenants, api_client, trained_digits, isolated_storage
):
    from tests.datasets.factories import upload
    from tests.deploy.factories import label_of

    mv = model_version_from(tenants, trained_digits)
    deployment, _, secret = deployment_with_key(tenants, mv)
    alice = api_client(tenants["alice"])
    indexes = list(range(12))
    archive = make_zip({f"digits/{label_of(i)}/{i}.png": png(i) for i in indexes})
    created = alice.post(
        URL,
        {"model_version": mv.pk, "source": "upload", "file": upload("digits.zip", archive)},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    run_job(created.json()["id"])
    batch = alice.get(f"{URL}{created.json()['id']}/").json()
    assert batch["status"] == "succeeded", batch["error"]
    rows = [json.loads(line) for line in download(alice, batch, "jsonl").decode().splitlines()]
    assert [r["truth"] for r in rows] == [label_of(int(r["name"].split("/")[-1][:-4])) for r in rows]
    answers = hosted(alice, deployment.pk, secret, [png(int(r["name"].split("/")[-1][:-4])) for r in rows], 1)
    accuracy = np.mean([a["top_k"][0]["label"] == r["truth"] for a, r in zip(answers, rows, strict=True)])
    assert batch["summary"]["metrics"]["accuracy"] == pytest.approx(accuracy)


def test_a_text_model_predicts_an_archive_of_texts_and_a_labeled_table(
    tenants, api_client, tmp_path, isolated_storage
):
    from tests.datasets.factories import upload
    from tests.packages.test_text_and_tabular_server_packages import train_text
    from tests.training.factories import model_version

    _, (result, texts) = train_text(tmp_path)
    mv = model_version(
        tenants["project_a"],
        template="text_classification",
        onnx=Path(result["onnx"]).read_bytes(),
        classes=result["classes"],
        preprocessing=result["preprocessing"],
    )
    deployment, _, secret = deployment_with_key(tenants, mv)
    alice = api_client(tenants["alice"])
    archive = make_zip(
        {f"t{i}.txt": text.encode() for i, text in enumerate(texts[:4])} | {"bad.txt": b"\xff\xfe\x00"}
    )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "text", "label"])
    for i, text in enumerate(texts[:4]):
        writer.writerow([i + 1, text, result["classes"][0]])
    from django.test import Client

    answer = Client().post(
        f"/api/v1/deployments/{deployment.pk}/predict/",
        data=json.dumps({"instances": [{"text": t} for t in texts[:4]], "top_k": 2}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    expected = [p["top_k"][0]["label"] for p in answer.json()["predictions"]]
    for name, data in (("texts.zip", archive), ("texts.csv", out.getvalue().encode())):
        created = alice.post(
            URL,
            {"model_version": mv.pk, "source": "upload", "file": upload(name, data), "top_k": 2},
            format="multipart",
        )
        assert created.status_code == 201, created.content
        run_job(created.json()["id"])
        batch = alice.get(f"{URL}{created.json()['id']}/").json()
        assert batch["status"] == "succeeded", batch["error"]
        rows = [json.loads(line) for line in download(alice, batch, "jsonl").decode().splitlines()]
        predicted = [r for r in rows if r.get("prediction")]
        assert [r["prediction"]["top_k"][0]["label"] for r in predicted] == expected
        if name.endswith(".zip"):
            assert rows[-1]["name"] == "bad.txt" and "UTF-8" in rows[-1]["error"]
            assert batch["summary"]["metrics"] is None
        else:
            assert [r["id"] for r in rows] == [1, 2, 3, 4] and {r["truth"] for r in rows} == {
                result["classes"][0]
            }
            accuracy = np.mean([label == result["classes"][0] for label in expected])
            assert batch["summary"]["metrics"]["accuracy"] == pytest.approx(accuracy)
    no_text = alice.post(
        URL,
        {"model_version": mv.pk, "source": "upload", "file": upload("t.csv", b"words\nhello\n")},
        format="multipart",
    )
    assert no_text.status_code == 400 and "'text' column" in no_text.json()["error"]["message"]


def test_a_model_missing_from_storage_fails_the_batch_with_the_reason(
    tenants, api_client, trained_digits, isolated_storage
):
    from django.core.files.storage import default_storage

    mv = model_version_from(tenants, trained_digits)
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=1, classes=range(2)
    )
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL, {"model_version": mv.pk, "source": "dataset", "dataset": dataset.pk}, format="json"
    )
    assert created.status_code == 201, created.content
    default_storage.delete(mv.onnx_key)
    with pytest.raises(Exception, match="cannot be read from storage"):
        run_job(created.json()["id"])
    batch = alice.get(f"{URL}{created.json()['id']}/").json()
    assert batch["status"] == "failed" and "cannot be read from storage" in batch["error"]
    assert batch["files"] == [] and batch["summary"] is None and batch["finished_at"]


def test_a_detector_predicts_a_detection_dataset_version_with_map50(
    tenants, api_client, tmp_path, isolated_storage
):
    """The platform's path for detection: a version's images and true boxes (snapshotted annotations)
    handed to the worker; a constant detector finds the cat box of every image exactly."""
    from datasets.services import dataset_version_create
    from datasets.services.annotations import annotations_write
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from PIL import Image

    from tests.datasets import factories
    from tests.training.factories import model_version
    from tests.workers.detection_models import constant_detector

    classes = ["cat", "dog"]
    model = constant_detector(
        tmp_path / "detector", classes, [(0, 0.9, 8, 8, 20, 16), (1, 0.6, 36, 36, 16, 20)]
    )
    mv = model_version(
        tenants["project_a"],
        template="object_detection",
        onnx=(model / "model.onnx").read_bytes(),
        classes=classes,
        preprocessing=json.loads((model / "preprocess.json").read_text()),
    )
    dataset = factories.dataset(tenants["project_a"], name="Scenes", task_type="object_detection")
    factories.label(dataset, "cat")
    factories.label(dataset, "dog")
    for i in range(5):
        out = io.BytesIO()
        Image.new("RGB", (64, 64), (40 * i, 90, 30)).save(out, "PNG")
        key = default_storage.save(f"samples/scene-{i}.png", ContentFile(out.getvalue()))
        sample = factories.sample(dataset, blob_key=key, width=64, height=64, name=f"scene-{i}.png")
        annotations_write(
            dataset=dataset,
            sample_id=sample.pk,
            revision=0,
            annotations=[
                {"kind": "box", "label": "cat", "geometry": {"x": 8, "y": 8, "width": 20, "height": 16}}
            ],
        )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL,
        {
            "model_version": mv.pk,
            "source": "dataset_version",
            "dataset_version": version.pk,
            "score_threshold": 0.5,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["params"]["score_threshold"] == 0.5
    run_job(created.json()["id"])
    batch = alice.get(f"{URL}{created.json()['id']}/").json()
    assert batch["status"] == "succeeded", batch["error"]
    assert batch["summary"]["rows"] == 5 and batch["summary"]["metrics"]["map50"] == pytest.approx(1.0)
    rows = [json.loads(line) for line in download(alice, batch, "jsonl").decode().splitlines()]
    assert all([b["label"] for b in r["prediction"]["boxes"]] == ["cat", "dog"] for r in rows)
    assert all(
        r["truth"] == [{"label": "cat", "x": 8.0, "y": 8.0, "width": 20.0, "height": 16.0}] for r in rows
    )
    table = list(csv.DictReader(io.StringIO(download(alice, batch, "csv").decode())))
    assert list(table[0]) == ["id", "name", "boxes", "error", "truth"]
    assert json.loads(table[0]["boxes"]) == rows[0]["prediction"]["boxes"]


def test_the_compute_plane_reads_csv_jsonl_and_parquet_tables(tmp_path):
    import pyarrow as pa

    from workers.serving.batch import BatchInputError, csv_cell, read_table

    (tmp_path / "t.csv").write_text("id,a,b\n1,x,\n2,=1+1,3\n")
    assert read_table(tmp_path / "t.csv") == [
        {"id": "1", "a": "x", "b": None},
        {"id": "2", "a": "=1+1", "b": "3"},
    ]
    (tmp_path / "t.jsonl").write_text('{"id": 1, "a": 0.5}\n\n{"id": 2, "a": null}\n')
    assert read_table(tmp_path / "t.jsonl") == [{"id": 1, "a": 0.5}, {"id": 2, "a": None}]
    pq.write_table(pa.table({"id": [1, 2], "a": [0.5, float("nan")]}), tmp_path / "t.parquet")
    assert read_table(tmp_path / "t.parquet") == [{"id": 1, "a": 0.5}, {"id": 2, "a": None}]
    (tmp_path / "bad.jsonl").write_text("[1, 2]\n")
    with pytest.raises(BatchInputError, match="line 1 is not a JSON object"):
        read_table(tmp_path / "bad.jsonl")
    assert [csv_cell(v) for v in ("=1+1", "+1", "-x", "@a", "plain", None)] == [
        "'=1+1",
        "'+1",
        "'-x",
        "'@a",
        "plain",
        "",
    ]


def test_a_tabular_dataset_version_is_predicted_with_its_labels_as_truth(
    tenants, api_client, tmp_path, isolated_storage
):
    from datasets.models import Dataset
    from datasets.services import dataset_version_create

    from tests.datasets import factories
    from tests.packages.test_text_and_tabular_server_packages import train_tabular
    from tests.training.factories import model_version
    from workers.serving.predictors import load_predictor, predict_instances

    _, (result, instances) = train_tabular("tabular_classification", tmp_path)
    mv = model_version(
        tenants["project_a"],
        template="tabular_classification",
        onnx=Path(result["onnx"]).read_bytes(),
        classes=result["classes"],
        preprocessing=result["preprocessing"],
    )
    columns = [f["name"] for f in result["preprocessing"]["features"]]
    dataset = factories.dataset(tenants["project_a"], name="Wine", task_type="tabular_classification")
    Dataset.objects.filter(pk=dataset.pk).update(
        schema={
            "columns": [{"name": c, "type": "numeric"} for c in columns],
            "target": "target",
            "task": "classification",
        }
    )
    labels = {name: factories.label(dataset, str(name)) for name in result["classes"]}
    rows = [r for r in instances[2:] if all(r.get(c) is not None for c in columns)][:9]
    truth = [result["classes"][i % len(result["classes"])] for i in range(len(rows))]
    for i, (row, name) in enumerate(zip(rows, truth, strict=True)):
        factories.sample(dataset, label=labels[name], values=row, name=f"row-{i}", format="", blob_key="")
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=2)
    alice = api_client(tenants["alice"])
    created = alice.post(
        URL,
        {"model_version": mv.pk, "source": "dataset_version", "dataset_version": version.pk},
        format="json",
    )
    assert created.status_code == 201, created.content
    run_job(created.json()["id"])
    batch = alice.get(f"{URL}{created.json()['id']}/").json()
    assert batch["status"] == "succeeded", batch["error"]
    assert {f["format"] for f in batch["files"]} == {"jsonl", "csv", "parquet"}
    out = [json.loads(line) for line in download(alice, batch, "jsonl").decode().splitlines()]
    assert len(out) == len(rows) and all(r.get("prediction") for r in out)
    directory = tmp_path / "served"
    directory.mkdir()
    (directory / "model.onnx").write_bytes(Path(result["onnx"]).read_bytes())
    (directory / "preprocess.json").write_text(json.dumps(result["preprocessing"]))
    (directory / "labels.json").write_text(json.dumps(result["classes"]))
    (directory / "manifest.json").write_text(json.dumps({"template": "tabular_classification"}))
    from datasets.models import VersionSample

    entries = list(VersionSample.objects.filter(version=version).order_by("pk"))
    expected, _ = predict_instances(load_predictor(directory), [e.values for e in entries], 5)
    assert [r["prediction"]["top_k"][0]["label"] for r in out] == [e[0]["label"] for e in expected]
    assert [r["truth"] for r in out] == [e.label_name for e in entries]
    accuracy = np.mean([e[0]["label"] == v.label_name for e, v in zip(expected, entries, strict=True)])
    assert batch["summary"]["metrics"]["accuracy"] == pytest.approx(accuracy)
