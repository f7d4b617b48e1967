"""Deployment-aware AutoML end to end in headless Chromium against a live web process and worker: a
target profile is registered on the Deployment targets page, a tiny two-objective study (test accuracy
against latency on that target, NSGA-II) is started from the study form's Deployment section, its
trials land on the Pareto chart with the feasible front highlighted, and a point of the front is picked
and promoted to a model version (frontend/e2e/multi_objective.mjs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from tests.datasets.factories import dataset_with_samples
from tests.harness import ARTIFACTS, REPO, wait_for

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "multi_objective.mjs"
PASSWORD = "pareto-passphrase-123"
TRIALS = 3


def test_register_a_target_run_a_two_objective_study_and_promote_a_front_point(
    live_web, live_worker, make_user
):
    from automl.models import Study
    from datasets.models import ImportBatch
    from datasets.services import dataset_version_create
    from deploy.models import TargetProfile
    from django.conf import settings
    from workspaces.services import project_create, workspace_create

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    user = make_user("e2e-pareto", password=PASSWORD)
    workspace = workspace_create(user=user, name="e2e pareto")
    project = project_create(user=user, workspace=workspace, name="digits pareto")
    dataset = dataset_with_samples(user=user, project=project, name="digits", per_class=10, classes=range(10))
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    version = dataset_version_create(dataset=dataset, user=user, seed=3)

    out_dir = ARTIFACTS / "e2e-multi-objective"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=user.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_WORKSPACE=str(workspace.pk),
        E2E_PROJECT=str(project.pk),
        E2E_DATASET=str(dataset.pk),
        E2E_VERSION=str(version.pk),
        E2E_TRIALS=str(TRIALS),
        E2E_EPOCHS="1",
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1200, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    passed = re.search(r"PASSED: study #(\d+), trial (\d+) -> model version #(\d+)", result.stdout)
    assert passed, result.stdout[-2000:]
    study_id, trial_number, model_version_id = (int(group) for group in passed.groups())

    # the profile the form registered, with what was typed
    profile = TargetProfile.objects.get(workspace=workspace, name="e2e-kiosk")
    assert profile.slowdown == 2.0 and profile.latency_budget_ms == 500.0

    # the study the form started: two objectives on that target, NSGA-II; its budget became a constraint
    study = Study.objects.get(pk=study_id, created_by=user)
    assert [goal["metric"] for goal in study.objectives] == ["val_acc", "latency_ms"]
    assert study.sampler == "nsga2" and study.status == "completed"
    target = study.target_profile or {}
    assert target["name"] == "e2e-kiosk" and target["slowdown"] == 2.0
    assert {"metric": "latency_ms", "op": "<=", "value": 500.0} in study.constraints
    assert {d["name"] for d in study.search_space} == {"learning_rate"}
    completed = study.trials.filter(state="complete")
    assert completed.count() >= 1
    assert all(len(trial.values) == 2 and trial.measurements.get("latency_ms") for trial in completed)

    # the promoted point is a feasible trial and now has its model version
    promoted = study.trials.get(number=trial_number)
    assert promoted.feasible is not False
    assert promoted.model_version is not None and promoted.model_version_id == model_version_id
    assert promoted.model_version.dataset_version_id == version.pk
