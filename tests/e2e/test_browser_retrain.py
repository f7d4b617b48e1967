"""Retrain from a version in headless Chromium against a live web process (frontend/e2e/retrain.mjs):
the deployment overview's "Retrain from this version" dialog starts a training job warm-started from
the served version (no worker runs it here: the job is checked as queued), and a warm-started
version's page names its parent, links the comparison with the serving version and starts a 10 %
canary on the deployment that serves the parent. The versions are registered on the session's tiny
trained digits classifier."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from django.conf import settings

from tests.datasets.factories import dataset_with_samples
from tests.deploy.factories import deployment_with_key, model_version_from
from tests.harness import ARTIFACTS, REPO

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "retrain.mjs"
PASSWORD = "retrain-passphrase-123"


def test_retrain_from_a_deployment_and_canary_a_warm_started_version_in_the_browser(
    live_web, tenants, trained_digits
):
    from datasets.services import dataset_version_create
    from deploy.models import DeploymentTraffic
    from jobs.models import Job
    from training.models import ModelVersion

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    alice = tenants["alice"]
    alice.set_password(PASSWORD)
    alice.save()
    dataset = dataset_with_samples(
        user=alice, project=tenants["project_a"], name="Digits", per_class=10, classes=range(10)
    )
    dataset_version = dataset_version_create(dataset=dataset, user=alice, seed=1)
    parent, child = (model_version_from(tenants, trained_digits, number=number) for number in (1, 2))
    # the parent keeps a model file to start from; the child was warm-started from it
    ModelVersion.objects.filter(pk=parent.pk).update(checkpoint_key="models/parent/model.pt")
    ModelVersion.objects.filter(pk=child.pk).update(warm_start_from=parent)
    deployment, _key, _secret = deployment_with_key(tenants, parent)
    out_dir = ARTIFACTS / "e2e-retrain"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=alice.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_DEPLOYMENT=str(deployment.pk),
        E2E_PARENT=str(parent.pk),
        E2E_CHILD=str(child.pk),
        E2E_DATASET=dataset.name,
        E2E_DATASET_VERSION=dataset_version.name,
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    seen = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))

    job = Job.objects.get(pk=seen["job"])
    assert job.kind == "training.run" and job.params["warm_start_from"] == parent.pk == seen["warmStartFrom"]
    assert (
        job.params["dataset_version"] == dataset_version.pk and job.params["params"]["model"] == "cnn_small"
    )
    assert seen["parentText"] == "V1" and seen["parentHref"] == f"/model-versions/{parent.pk}"
    assert seen["compareHref"] == f"/model-versions/compare?a={parent.pk}&b={child.pk}"
    assert seen["canaryText"] == "Canary at 10%"
    canary = DeploymentTraffic.objects.get(deployment=deployment, role="canary")
    assert canary.model_version_id == child.pk and canary.weight == 10
