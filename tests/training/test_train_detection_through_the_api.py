"""Object detection through the REST API against PostgreSQL, Redis and a live worker: import a COCO
archive of synthetic digit scenes (real handwriting pasted on noisy backgrounds), version it, train
the fast preset, read the detection report, compare two versions, deploy, and predict: the hosted
answer's boxes are the Detector's own on the same image."""

from __future__ import annotations

import base64
import copy
import io
import json
import zipfile
from pathlib import Path

import pytest
from jobs.models import Job, JobEvent

from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# One class ("digit"): where the digits are, on noisy textured backgrounds, the test's smaller set.
# The fast preset with 25 epochs: h4 measured test mAP@.5 0.95 on 200 such scenes; 160 scenes and 20
# epochs gave 0.84 here, too close.
SCENES = 200
SIZE = 96
EPOCHS = 25


def coco_zip(root: Path, *, n: int = SCENES, size: int = SIZE, seed: int = 0) -> bytes:
    """The scenes as a user would upload them: COCO ``annotations.json`` + ``images/`` in a zip."""
    from workers.object_detection.synthetic import digit_scenes, write_scenes

    folder = root / "coco"
    write_scenes(digit_scenes(n, size=size, seed=seed, classes="one"), folder, "coco", classes="one")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return out.getvalue()


def finished(job_id: int, timeout: float) -> Job:
    def done():
        job = Job.objects.get(pk=job_id)
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    job = wait_for(done, timeout=timeout, interval=1, what=f"job {job_id}")
    assert job.status == "succeeded", f"{job.status}: {job.error}"
    return job


def detection_version(tenants, client, tmp_path: Path, *, n: int = SCENES, size: int = SIZE) -> dict:
    """A detection dataset imported from a COCO zip through the API, and its version (seed 7)."""
    from datasets.models import ImportBatch

    created = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": "Digit scenes", "task_type": "object_detection"},
        format="json",
    )
    assert created.status_code == 201, created.content
    dataset = created.json()
    archive = io.BytesIO(coco_zip(tmp_path, n=n, size=size))
    archive.name = "scenes.zip"
    imported = client.post(
        f"/api/v1/datasets/{dataset['id']}/imports/",
        {"archive": archive, "format": "coco"},
        format="multipart",
    )
    assert imported.status_code in (201, 202), imported.content
    batch_id = imported.json()["id"]
    wait_for(
        lambda: ImportBatch.objects.filter(pk=batch_id, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the COCO import",
    )
    batch = ImportBatch.objects.get(pk=batch_id)
    assert batch.status == "succeeded" and batch.imported == n, (batch.status, batch.imported, batch.error)
    version = client.post(f"/api/v1/datasets/{dataset['id']}/versions/", {"seed": 7}, format="json")
    assert version.status_code == 201, version.content
    return version.json()


def model_dir_of(client, model: dict, root: Path) -> Path:
    """The model version as a Detector's model directory, from what the API gives."""
    onnx = client.get(f"/api/v1/model-versions/{model['id']}/onnx/")
    assert onnx.status_code == 200
    root.mkdir(parents=True)
    (root / "model.onnx").write_bytes(b"".join(onnx.streaming_content))
    (root / "preprocess.json").write_text(json.dumps(model["preprocessing"]))
    (root / "labels.json").write_text(json.dumps(model["classes"]))
    (root / "manifest.json").write_text(json.dumps({"template": "object_detection"}))
    return root


@pytest.fixture
def usage_written():
    """The hosted predictions' usage is written while the test's tables exist (not at exit)."""
    yield
    from deploy.usage import recorder

    recorder.flush()


def test_fast_preset_detects_digits_and_serves_them(
    live_worker, tenants, api_client, tmp_path, usage_written
):
    from datasets.models import VersionSample
    from PIL import Image

    from tests.training.factories import model_version
    from workers.object_detection.predictor import Detector
    from workers.object_detection.synthetic import digit_scenes

    client = api_client(tenants["alice"])
    version = detection_version(tenants, client, tmp_path)
    started = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version["id"], "preset": "fast", "params": {"epochs": EPOCHS}},
        format="json",
    )
    assert started.status_code == 201, started.content
    assert started.json()["params"]["template"] == "object_detection"
    job = finished(started.json()["id"], timeout=1500)

    # the model version: lineage, headline mAP on the test split
    models = client.get(f"/api/v1/model-versions/?project={tenants['project_a'].pk}").json()["results"]
    assert len(models) == 1
    model = models[0]
    assert model["template"] == "object_detection" and model["preset"] == "fast" and model["job"] == job.pk
    assert model["classes"] == ["digit"]
    test = model["metrics"]["test"]
    assert test["map50"] >= 0.85, f"test mAP@.5 {test['map50']:.3f}"
    assert 0 < test["map"] <= test["map50"] and set(test) >= {"map", "map50", "map75"}

    # one validated point per epoch, with the objective AutoML maximizes
    epochs = JobEvent.objects.filter(job=job, type="progress", data__has_key="val_map50").values_list(
        "data__epoch", flat=True
    )
    assert sorted(set(epochs)) == list(range(1, model["params"]["epochs"] + 1))

    # the report: a detection report of the test split
    report = client.get(f"/api/v1/model-versions/{model['id']}/evaluation/").json()["evaluation"]
    assert report["kind"] == "detection_report" and report["split"] == "test"
    assert report["samples"] == VersionSample.objects.filter(version_id=version["id"], split="test").count()
    assert report["map50"] == pytest.approx(test["map50"])
    assert [c["label"] for c in report["per_class"]] == model["classes"]
    assert report["confusion_matrix"]["labels"] == ["digit", "background"]
    for case in report["bad_cases"]:
        assert case["false_positives"] + case["missed"] > 0 and case["width"] == SIZE

    # compare with a second version whose AP is worse: per-class AP deltas, b minus a
    worse = copy.deepcopy(report)
    worse["per_class"][0]["ap"] = max(0.0, worse["per_class"][0]["ap"] - 0.25)
    other = model_version(
        tenants["project_a"],
        template="object_detection",
        onnx=b"not served",
        evaluation=worse,
        classes=model["classes"],
        metrics={"test": {"map": worse["map"], "map50": worse["map50"], "map75": worse["map75"]}},
    )
    compared = client.get(f"/api/v1/model-versions/compare/?a={model['id']}&b={other.pk}")
    assert compared.status_code == 200, compared.content
    comparison = compared.json()
    assert comparison["kind"] == "detection_comparison" and (comparison["a"], comparison["b"]) == (
        model["id"],
        other.pk,
    )
    deltas = {entry["label"]: entry["delta"] for entry in comparison["per_class"]}
    assert deltas == {"digit": pytest.approx(-min(0.25, report["per_class"][0]["ap"]), abs=1e-6)}
    classifier = model_version(tenants["project_a"], evaluation={"kind": "classification_report"})
    mixed = client.get(f"/api/v1/model-versions/compare/?a={model['id']}&b={classifier.pk}")
    assert mixed.status_code == 400 and "cannot be compared" in mixed.json()["error"]["message"]

    # deploy, and predict on new scenes of another size: the Detector's own boxes, in original pixels
    deployment = client.post(
        "/api/v1/deployments/", {"model_version": model["id"], "name": "digit finder"}, format="json"
    )
    assert deployment.status_code == 201, deployment.content
    key = client.post(f"/api/v1/deployments/{deployment.json()['id']}/keys/", {"name": "app"}, format="json")
    assert key.status_code == 201, key.content
    images = [image.resize((144, 120)) for image, _ in digit_scenes(3, size=SIZE, seed=99, classes="one")]
    encoded = []
    for image in images:
        out = io.BytesIO()
        image.save(out, "PNG")
        encoded.append(base64.b64encode(out.getvalue()).decode())
    answer = api_client().post(
        f"/api/v1/deployments/{deployment.json()['id']}/predict/",
        data=json.dumps({"instances": [{"image": e} for e in encoded], "score_threshold": 0.4}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key.json()['key']}",
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["kind"] == "detection_prediction" and len(body["predictions"]) == 3
    own = Detector(model_dir_of(client, model, tmp_path / "model")).detect(
        [Image.open(io.BytesIO(base64.b64decode(e))) for e in encoded], score_threshold=0.4
    )
    for served, local in zip(body["predictions"], own, strict=True):
        assert (served["width"], served["height"]) == (144, 120)
        assert [b["label"] for b in served["boxes"]] == [b["label"] for b in local["boxes"]]
        for a, b in zip(served["boxes"], local["boxes"], strict=True):
            for field in ("score", "x", "y", "width", "height"):
                assert a[field] == pytest.approx(b[field], abs=1e-4), field
    assert any(p["boxes"] for p in body["predictions"]), "a trained detector finds digits in new scenes"
