"""Batch predictions through the SDK and the CLI against the live platform (gunicorn + a Celery
worker): a model version predicts a dataset version's split (results as a DataFrame, metrics, the
files), a deployment predicts an uploaded zip with a corrupt image (an error row, the rest
predicted, the deployment recorded), the list filters, and `sampan batch-predict` writes its CSV."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
import sampan
from PIL import Image

from tests.sdk.onnx_models import brightness_classifier
from tests.sdk.test_sampan_cli import sampan_cli

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def png(value: int, size: int = 20) -> bytes:
    out = io.BytesIO()
    Image.new("L", (size, size), value).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def brightness(sdk, project, tmp_path):
    """A classifier that is always right on dark/bright images, and a dataset version of 12 each."""
    model = sdk.model_versions.upload_onnx(
        brightness_classifier(tmp_path / "brightness.onnx"),
        project=project,
        classes=["dark", "bright"],
        preprocessing={"mean": [0.5] * 3, "std": [1.0] * 3},  # centred: dark < 0 < bright
    )
    folder = tmp_path / "shades"
    for label, values in (("dark", range(10, 70, 5)), ("bright", range(190, 250, 5))):
        (folder / label).mkdir(parents=True)
        for value in values:
            (folder / label / f"{label}-{value}.png").write_bytes(png(value))
    dataset = sdk.datasets.create("shades", project=project)
    assert dataset.upload(folder).imported == 24
    version = dataset.create_version(train_ratio=0.5, val_ratio=0.0, test_ratio=0.5, seed=1)
    return model, dataset, version


def test_a_model_version_predicts_a_dataset_version_split(sdk, brightness, tmp_path):
    model, dataset, version = brightness
    batch = model.batch_predict(version, split="test", top_k=2)
    assert isinstance(batch, sampan.BatchPrediction) and batch.status in {"queued", "running"}
    assert batch.wait(progress=False, timeout=180) is batch
    assert batch.status == "succeeded" and batch.source["split"] == "test"
    summary = batch.summary
    assert summary is not None and summary["errors"] == 0 and summary["predicted"] == summary["rows"] > 0
    assert batch.metrics["accuracy"] == 1.0 and batch.metrics["macro_f1"] == 1.0  # always right

    frame = batch.results()
    assert list(frame.columns) == ["id", "name", "label", "score", "top_k", "error", "truth"]
    assert len(frame) == summary["rows"]
    assert (frame["label"] == frame["truth"]).all()
    assert frame["name"].str.startswith(tuple(frame["label"])).all()  # dark-15.png was predicted dark
    for top, label in zip(frame["top_k"], frame["label"], strict=True):
        assert len(top) == 2 and top[0]["label"] == label
    assert frame["error"].isna().all() and str(frame["id"].dtype) == "Int64"

    lines = batch.download(tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(frame["id"])
    assert set(batch.formats) == {"jsonl", "csv"}  # the default
    with pytest.raises(ValueError, match="format must be one of"):
        batch.download(tmp_path / "x.xlsx", format="xlsx")

    listed = sdk.batch_predictions.list(model_version=model)
    assert [b.id for b in listed] == [batch.id] and listed[0].metrics == batch.metrics
    assert sdk.batch_predictions.list(model_version=model, status="running") == []
    assert "accuracy 1.0000" in batch.describe()

    # a whole dataset (no split) by the id dict; then deleted
    whole = sdk.batch_predictions.create(model, {"dataset": dataset.id}).wait(progress=False, timeout=180)
    assert whole.summary["rows"] == 24 and whole.metrics["accuracy"] == 1.0
    whole.delete()
    with pytest.raises(sampan.NotFound):
        sdk.batch_predictions.get(whole.id)


def test_a_deployment_predicts_an_uploaded_zip_with_a_corrupt_image(sdk, brightness, tmp_path):
    model, _, _ = brightness
    deployment = model.deploy("shades")
    archive = tmp_path / "inbox.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("a/dark.png", png(30))
        zf.writestr("a/bright.png", png(220))
        zf.writestr("broken.png", b"not an image")
    batch = deployment.batch_predict(archive, formats=["csv"]).wait(progress=False, timeout=180)
    assert batch.deployment == deployment.id and batch.model_version == model.id
    assert batch.source["kind"] == "upload" and batch.source["upload_name"] == "inbox.zip"
    assert (batch.summary["rows"], batch.summary["predicted"], batch.summary["errors"]) == (3, 2, 1)
    assert batch.summary["error_examples"][0]["name"] == "broken.png" and batch.metrics is None
    assert batch.formats == ["csv"]

    frame = batch.results().set_index("name")
    assert frame.loc["a/dark.png", "label"] == "dark" and frame.loc["a/bright.png", "label"] == "bright"
    assert "broken.png" in frame.loc["broken.png", "error"] and frame["id"].isna().all()
    assert [b.id for b in deployment.batch_predictions()] == [batch.id]

    with pytest.raises(ValueError, match="split= needs a dataset version"):
        deployment.batch_predict(archive, split="test")
    with pytest.raises(sampan.BadRequest):  # the server names the problem: an unknown format
        deployment.batch_predict(archive, formats=["xlsx"])
    with pytest.raises(TypeError, match="DatasetVersion or Dataset"):
        model.batch_predict(42)


def test_the_cli_batch_predicts_a_dataset_version_into_a_csv(
    live_web, sdk, brightness, tenants, token_for, tmp_path
):
    model, _, version = brightness
    config = tmp_path / "conf" / "config.json"
    sampan_cli("login", "--url", live_web, "--token", token_for(tenants["alice"]), config=config)
    out = tmp_path / "test.csv"
    done = sampan_cli(
        "batch-predict",
        "--model-version",
        str(model.id),
        "--dataset-version",
        str(version.id),
        "--split",
        "test",
        "--format",
        "csv",
        "--out",
        str(out),
        "--quiet",
        config=config,
    )
    answer = json.loads(done.stdout)
    assert answer["status"] == "succeeded" and answer["errors"] == 0 and answer["metrics"]["accuracy"] == 1.0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == answer["rows"] > 0 and all(r["label"] == r["truth"] for r in rows)

    refused = sampan_cli("batch-predict", "--model-version", str(model.id), config=config, check=False)
    assert refused.returncode != 0 and "give one of --dataset-version" in refused.stderr
