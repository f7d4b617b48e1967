"""The main pages fit a 1024x700 window (and a 1440x900 one) in headless Chromium, in English and in
Chinese: no page-level horizontal overflow (document.scrollingElement.scrollWidth > clientWidth),
the sidebar collapsed behind the header's burger at 1024 px and shown at 1440 px
(frontend/e2e/layout.mjs; it prints the widest elements of a page that overflows).

The pages hold realistic content: a workspace and project with long names, an image dataset with
ten Chinese class names labelled in the labeling grid and its statistics, a model version trained
by the live worker (its evaluation report), a deployment (overview, usage, try it), a study with
trials, the jobs and tokens lists."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pytest
import requests

from tests.datasets.factories import digit_bytes, make_zip, upload
from tests.harness import ARTIFACTS, REPO, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "layout.mjs"
PASSWORD = "e2e-passphrase-123"
CLASSES = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"]
PER_CLASS = 12


def frontend_dist() -> Path:
    return Path(os.environ.get("SAMPAN_FRONTEND_DIST") or REPO / "frontend" / "dist")


def seed(user, live_web: str) -> dict[str, int]:
    """Everything the pages show, made through the services (a real training run on the worker)."""
    from automl.models import Study
    from datasets.models import ImportBatch
    from datasets.services import dataset_create, dataset_version_create
    from datasets.services.image_imports import import_archive
    from deploy.services import deployment_create, deployment_key_create
    from jobs.models import Job
    from training.models import ModelVersion
    from training.services import training_job_create
    from workspaces.services import project_create, workspace_create

    from tests.automl.factories import study as study_row
    from tests.automl.factories import trial

    workspace = workspace_create(user=user, name="视觉团队 · Vision and handwriting recognition team")
    project = project_create(
        user=user, workspace=workspace, name="手写数字识别 · Handwritten digits, a long project name"
    )
    dataset = dataset_create(
        user=user,
        project=project,
        name="手写数字 · Digits with Chinese class names",
        task_type="image_classification",
    )
    entries = {
        f"{name}/{name}_{i:03d}.png": digit_bytes(index * 100 + i)
        for index, name in enumerate(CLASSES)
        for i in range(PER_CLASS)
    }
    import_archive(dataset=dataset, upload=upload("digits.zip", make_zip(entries)), user=user)
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    batch = ImportBatch.objects.get(dataset=dataset)
    assert batch.status == "succeeded", (batch.status, batch.error)
    version = dataset_version_create(dataset=dataset, user=user, seed=7)
    job = training_job_create(
        user=user,
        dataset_version=version,
        preset="fast",
        params={"epochs": 2, "batch_size": 16, "image_size": 32, "augmentation": "none"},
    )
    done = wait_for(
        lambda: Job.objects.filter(pk=job.pk, status__in=["succeeded", "failed", "cancelled"]).first(),
        timeout=900,
        interval=1,
        what=f"training job {job.pk}",
    )
    assert done.status == "succeeded", f"{done.status}: {done.error}"
    model_version = ModelVersion.objects.get(pk=done.result["model_version"])
    deployment = deployment_create(user=user, model_version=model_version, name="digits-online · 在线服务")
    # a few calls, so the usage page draws its charts
    _, secret = deployment_key_create(user=user, deployment=deployment, name="layout")
    for index in range(3):
        answer = requests.post(
            f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
            json={"instances": [{"image": base64.b64encode(digit_bytes(index)).decode()}]},
            headers={"Authorization": f"Bearer {secret}"},
            timeout=60,
        )
        assert answer.status_code == 200, answer.text
    study = study_row(version, name="学习率搜索 · Learning rate search", n_trials=3)
    for number, value in enumerate([0.61, 0.83, 0.78]):
        trial(study, number=number, value=value)
    Study.objects.filter(pk=study.pk).update(status="completed")
    return {
        "workspace": workspace.pk,
        "project": project.pk,
        "dataset": dataset.pk,
        "model_version": model_version.pk,
        "deployment": deployment.pk,
        "study": study.pk,
        "job": job.pk,
    }


def pages(ids: dict[str, int]) -> list[dict[str, str]]:
    """Each page: a name, its path and a test id shown once it has loaded."""
    return [
        {"name": "workspaces", "path": "/workspaces", "ready": f"workspace-link-{ids['workspace']}"},
        {"name": "workspace", "path": f"/workspaces/{ids['workspace']}", "ready": "tab-projects"},
        {"name": "project-datasets", "path": f"/projects/{ids['project']}/datasets", "ready": "tab-datasets"},
        {"name": "project-models", "path": f"/projects/{ids['project']}/models", "ready": "tab-models"},
        {
            "name": "project-deployments",
            "path": f"/projects/{ids['project']}/deployments",
            "ready": "tab-deployments",
        },
        {"name": "dataset-labeling", "path": f"/datasets/{ids['dataset']}/label", "ready": "labeling-panel"},
        {
            "name": "dataset-statistics",
            "path": f"/datasets/{ids['dataset']}/statistics",
            "ready": "statistics-panel",
        },
        {"name": "dataset-versions", "path": f"/datasets/{ids['dataset']}/versions", "ready": "tab-versions"},
        {"name": "dataset-train", "path": f"/datasets/{ids['dataset']}/train", "ready": "tab-train"},
        {
            "name": "model-version",
            "path": f"/model-versions/{ids['model_version']}",
            "ready": "model-lineage",
        },
        {"name": "deployment", "path": f"/deployments/{ids['deployment']}", "ready": "deployment-name"},
        {
            "name": "deployment-usage",
            "path": f"/deployments/{ids['deployment']}/usage",
            "ready": "deployment-name",
        },
        {
            "name": "deployment-try",
            "path": f"/deployments/{ids['deployment']}/try",
            "ready": "deployment-name",
        },
        {"name": "studies", "path": "/studies", "ready": "new-study"},
        {"name": "study", "path": f"/studies/{ids['study']}", "ready": "trials-table"},
        {"name": "jobs", "path": "/jobs", "ready": "nav-jobs"},
        {"name": "job", "path": f"/jobs/{ids['job']}", "ready": "nav-jobs"},
        {"name": "tokens", "path": "/tokens", "ready": "nav-tokens"},
        # the administrators' users page (a 404 page until its route exists)
        {"name": "users", "path": "/users", "ready": "nav-users|not-found"},
    ]


def run_layout(live_web: str, ids: dict[str, int], language: str) -> list[dict]:
    out_dir = ARTIFACTS / "e2e-layout"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-layout",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_PAGES=json.dumps(pages(ids)),
        E2E_LANGUAGE=language,
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, (
        f"layout check ({language}) failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    )
    return json.loads((out_dir / f"overflow-{language}.json").read_text())


def test_main_pages_fit_1024_px_in_both_languages(live_web, live_worker, make_user):
    assert (frontend_dist() / "index.html").exists(), "the frontend is not built: run `make frontend`"
    user = make_user("e2e-layout", password=PASSWORD, is_staff=True)
    ids = seed(user, live_web)
    failures = []
    for language in ("en", "zh-CN"):
        try:
            measured = run_layout(live_web, ids, language)
        except AssertionError as error:
            failures.append(str(error))
            continue
        assert len(measured) == 2 * len(pages(ids))
        assert {m["viewport"] for m in measured} == {"1024x700", "1440x900"}
    assert not failures, "\n\n".join(failures)
