"""Browser end to end of deployment in headless Chromium against a live web process and worker.
The trained model version is made through the API first (import, version, a short training run on
the worker) to save time; every deploy step then goes through the UI: Deploy -> Hosted API, a key
shown once, the try-it panel with a digit image, the call counted in usage, stop/start, a switch
to another version and a rollback, the key revoked (and refused with 401 without losing the
session), and both packages built, their compression report shown and their archives downloaded."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import zipfile

import pytest

from tests.datasets.factories import dataset_with_samples, digit_bytes, digit_class
from tests.harness import ARTIFACTS, REPO, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "deploy.mjs"
PASSWORD = "e2e-passphrase-123"


def trained_model_version(user, api_client) -> int:
    """A digits model trained by the worker on 30 images per class (fast preset, 5 short epochs)."""
    from datasets.models import ImportBatch
    from datasets.services import dataset_version_create
    from jobs.models import Job
    from workspaces.services import project_create, workspace_create

    workspace = workspace_create(user=user, name="e2e deploy")
    project = project_create(user=user, workspace=workspace, name="digits")
    dataset = dataset_with_samples(user=user, project=project, name="Digits", per_class=30, classes=range(10))
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    batch = ImportBatch.objects.get(dataset=dataset)
    assert batch.status == "succeeded" and batch.imported == 300, (batch.status, batch.imported, batch.error)
    version = dataset_version_create(dataset=dataset, user=user, seed=7)
    started = api_client(user).post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version.pk,
            "preset": "fast",
            "params": {"epochs": 5, "batch_size": 16, "augmentation": "none"},
        },
        format="json",
    )
    assert started.status_code == 201, started.content
    job_id = started.json()["id"]
    job = wait_for(
        lambda: Job.objects.filter(pk=job_id, status__in=["succeeded", "failed", "cancelled"]).first(),
        timeout=900,
        interval=1,
        what=f"training job {job_id}",
    )
    assert job.status == "succeeded", f"{job.status}: {job.error}"
    return int(job.result["model_version"])


def uploaded_copy(model_version_id: int, user) -> int:
    """The same ONNX registered again as an uploaded model version (V2), something to switch to."""
    from django.core.files.storage import default_storage
    from django.core.files.uploadedfile import SimpleUploadedFile
    from training.model_uploads import model_version_upload_onnx
    from training.models import ModelVersion

    trained = ModelVersion.objects.get(pk=model_version_id)
    with default_storage.open(trained.onnx_key, "rb") as stream:
        data = stream.read()
    upload = SimpleUploadedFile("digits-copy.onnx", data, content_type="application/octet-stream")
    return model_version_upload_onnx(user=user, project=trained.project, upload=upload).pk


def archive_names(path) -> set[str]:
    """The archive's file names below its single top folder."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    tops = {name.split("/", 1)[0] for name in names}
    assert len(tops) == 1, f"{path.name} has several top folders: {sorted(tops)}"
    return {name.split("/", 1)[1] for name in names}


def test_deploy_try_it_usage_and_packages_through_the_ui(
    live_web, live_worker, make_user, api_client, tmp_path
):
    from django.conf import settings

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    user = make_user("e2e-deployer", password=PASSWORD)
    model_version = trained_model_version(user, api_client)
    switch_to = uploaded_copy(model_version, user)

    index = 7
    image = tmp_path / "digit.png"
    image.write_bytes(digit_bytes(index))
    out_dir = ARTIFACTS / "e2e-deploy"
    shutil.rmtree(out_dir, ignore_errors=True)  # no archive or screenshot of an earlier run
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-deployer",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_ARTIFACTS=str(out_dir),
        E2E_MODEL_VERSION=str(model_version),
        E2E_SWITCH_TO=str(switch_to),
        E2E_IMAGE=str(image),
        E2E_IMAGE_LABEL=str(digit_class(index)),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1200, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"

    from deploy.models import Deployment, DeploymentKey, Package

    summary = json.loads((out_dir / "deploy.json").read_text())
    deployment = Deployment.objects.get(pk=summary["deployment"])
    assert deployment.model_version_id == model_version and deployment.status == "active"
    assert deployment.previous_model_version_id == switch_to, "switched to V2 and rolled back in the UI"
    assert list(deployment.events.order_by("at", "pk").values_list("action", flat=True)) == [
        "create",
        "stop",
        "start",
        "switch",
        "rollback",
    ]
    key = DeploymentKey.objects.get(deployment=deployment)
    assert key.name == "e2e kiosk" and key.quota_per_minute == 600 and key.last_used_at is not None
    assert key.revoked_at is not None, "revoked in the UI"
    assert summary["usage"]["calls"] == 2 and summary["usage"]["errors"] == 0  # the try-it panel and the key

    # What the browser downloaded is the stored archive, and holds what each package promises.
    for kind in ("server", "device"):
        package = Package.objects.get(model_version_id=model_version, kind=kind)
        data = (out_dir / f"{kind}.zip").read_bytes()
        assert hashlib.sha256(data).hexdigest() == package.sha256 and len(data) == package.size_bytes
    server = archive_names(out_dir / "server.zip")
    assert {
        "model.onnx",
        "preprocess.json",
        "labels.json",
        "manifest.json",
        "requirements.txt",
        "Dockerfile",
        "README.md",
        "test_vectors/expected.json",
    } <= server, sorted(server)
    assert not any(name.endswith((".pt", ".pth", ".onnx.data")) for name in server), sorted(server)
    device = archive_names(out_dir / "device.zip")
    assert {
        "model.fp32.onnx",
        "model.int8.onnx",
        "preprocess.json",
        "labels.json",
        "manifest.json",
        "compression_report.json",
        "python/classify.py",
        "javascript/sampan_classifier.mjs",
        "test_vectors/expected.fp32.json",
        "test_vectors/expected.int8.json",
    } <= device, sorted(device)
    with zipfile.ZipFile(out_dir / "server.zip") as archive:
        requirements = next(n for n in archive.namelist() if n.endswith("/requirements.txt"))
        assert "torch" not in archive.read(requirements).decode().lower()
