"""Browser end to end of custom code in headless Chromium against a live web process and worker:
the digits CNN example (examples/custom-code/digits-cnn/train.py) is uploaded on a project's Code
tab, read, and run with epochs=2 on a digits dataset version; its log lines and metric curves show
on the job's page while it runs; the model version it made is deployed from the job's page and
classifies a digit image in the try-it panel; the model version's page shows its lineage."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess

import pytest

from tests.datasets.factories import dataset_with_samples, digit_bytes
from tests.harness import ARTIFACTS, REPO, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "custom_code_flow.mjs"
TRAIN_PY = REPO / "examples" / "custom-code" / "digits-cnn" / "train.py"
PASSWORD = "e2e-passphrase-123"


def digits_project(user) -> tuple[int, int]:
    """A project with a digits dataset (8 images per class, imported by the worker) and a version."""
    from datasets.models import ImportBatch
    from datasets.services import dataset_version_create
    from workspaces.services import project_create, workspace_create

    workspace = workspace_create(user=user, name="e2e custom code")
    project = project_create(user=user, workspace=workspace, name="digits by my code")
    dataset = dataset_with_samples(user=user, project=project, name="Digits", per_class=8, classes=range(10))
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    batch = ImportBatch.objects.get(dataset=dataset)
    assert batch.status == "succeeded" and batch.imported == 80, (batch.status, batch.imported, batch.error)
    version = dataset_version_create(dataset=dataset, user=user, seed=7)
    return project.pk, version.pk


def test_custom_code_upload_run_watch_deploy_and_try_through_the_ui(
    live_web, live_worker, make_user, tmp_path
):
    from django.conf import settings

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    user = make_user("e2e-coder", password=PASSWORD)
    project_id, version_id = digits_project(user)

    image = tmp_path / "digit.png"
    image.write_bytes(digit_bytes(7))
    out_dir = ARTIFACTS / "e2e-custom-code"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-coder",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_ARTIFACTS=str(out_dir),
        E2E_PROJECT=str(project_id),
        E2E_DATASET="Digits",
        E2E_SCRIPT=str(TRAIN_PY),
        E2E_IMAGE=str(image),
        E2E_RUN_TIMEOUT_S="900",
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1500, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"

    from customjobs.models import CodeArchive
    from deploy.models import Deployment
    from jobs.models import Job, JobLogLine
    from training.models import ModelVersion

    summary = json.loads((out_dir / "custom_code.json").read_text())
    archive = CodeArchive.objects.get(pk=summary["archive"])
    assert archive.project_id == project_id and archive.code_kind == "script"
    assert archive.sha256 == hashlib.sha256(TRAIN_PY.read_bytes()).hexdigest(), (
        "the browser uploaded the file as it is"
    )

    job = Job.objects.get(pk=summary["job"])
    assert job.kind == "training.custom" and job.status == "succeeded", (job.status, job.error)
    spec = job.params["spec"]
    assert spec["hyperparameters"] == {"epochs": 2} and spec["entry_point"] == "train.py"
    assert spec["limits"]["wall_time_s"] == 900 and spec["network"] is False
    assert job.params["dataset_version"] == version_id == summary["dataset_version"]
    assert JobLogLine.objects.filter(job=job).count() == summary["log_lines"] > 0, (
        "the page showed every line"
    )

    model = ModelVersion.objects.get(pk=summary["model_version"])
    assert model.pk == job.result["model_version"] and model.source == "custom"
    assert model.lineage["code_sha256"] == archive.sha256 and model.lineage["hyperparameters"] == {
        "epochs": 2
    }

    deployment = Deployment.objects.get(pk=summary["deployment"])
    assert deployment.model_version_id == model.pk and deployment.project_id == project_id
    assert summary["answer"]["label"] in model.classes
