"""Browser end to end of AutoML in headless Chromium against a live web process and worker: create a
study through the form (editing the search space, with a validation error on the way), watch its
trials arrive live, promote the best trial and open the new model version."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.datasets.factories import dataset_with_samples
from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "automl.mjs"
TRIALS = 3


def test_create_a_study_watch_trials_and_promote_the_best(live_web, live_worker, make_user):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    from datasets.services import dataset_version_create
    from workspaces.services import project_create, workspace_create

    user = make_user("e2e-tuner", password="e2e-passphrase-123")
    workspace = workspace_create(user=user, name="e2e automl")
    project = project_create(user=user, workspace=workspace, name="digits automl")
    dataset = dataset_with_samples(user=user, project=project, name="digits", per_class=12, classes=range(10))
    version = dataset_version_create(dataset=dataset, user=user, seed=2)

    out_dir = ARTIFACTS / "e2e-automl"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-tuner",
        SAMPAN_PASSWORD="e2e-passphrase-123",
        E2E_PROJECT=str(project.pk),
        E2E_DATASET=str(dataset.pk),
        E2E_VERSION=str(version.pk),
        E2E_TRIALS=str(TRIALS),
        E2E_EPOCHS="2",
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"

    from automl.models import Study

    study = Study.objects.get(created_by=user)
    assert study.status == "completed" and study.trials.count() == TRIALS and study.parallelism == 2
    assert {d["name"] for d in study.search_space} == {"learning_rate", "augmentation"}
    assert study.fixed_params["epochs"] == 2 and study.preset == "fast"
    promoted = study.trials.get(model_version__isnull=False)
    assert promoted.model_version.metrics["automl"]["study"] == study.pk
    assert promoted.model_version.dataset_version_id == version.pk
