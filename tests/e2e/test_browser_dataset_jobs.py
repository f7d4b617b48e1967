"""Browser check (frontend/e2e/dataset_jobs.mjs) of a large dataset in headless Chromium against a live
web process with low sync thresholds and a real worker: the version form shows the running
`datasets.version` job's progress bar until the version is listed, and "Export in the background"
runs a `datasets.export` job whose zip downloads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile

import pytest

from tests.datasets.factories import bulk_text_dataset
from tests.harness import ARTIFACTS, REPO, live_env, start_web

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "dataset_jobs.mjs"
PASSWORD = "e2e-passphrase-123"
ROWS = 50_000  # ten of the worker's 5,000-sample batches: several seconds, so the bar is seen moving


def test_large_version_and_export_jobs_in_the_browser(live_worker, make_user, tmp_path):
    from django.conf import settings
    from workspaces.services import project_create, workspace_create

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    user = make_user("e2e-dataset-jobs", password=PASSWORD)
    project = project_create(
        user=user, workspace=workspace_create(user=user, name="Large data"), name="Texts"
    )
    dataset = bulk_text_dataset(user=user, project=project, samples=ROWS, classes=4)
    web, url = start_web(
        "web-dataset-jobs",
        live_env(SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES="100", SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES="100"),
    )
    out_dir = ARTIFACTS / "e2e-dataset-jobs"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=url,
        SAMPAN_USER="e2e-dataset-jobs",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_DATASET=str(dataset.pk),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    try:
        result = subprocess.run(
            ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
        )
    finally:
        web.stop()
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser check failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    shown = json.loads(result.stdout.split("[e2e] RESULT ", 1)[1].splitlines()[0])
    assert shown["versionStatus"] == 202 and shown["version"]["status"] == "succeeded"
    assert shown["version"]["seen"][-1] == 100 and shown["versionName"] == "V1"
    assert any(0 < value < 100 for value in shown["version"]["seen"]), shown["version"]["seen"]
    assert f"{ROWS:,} of {ROWS:,}" in shown["versionCounts"]
    assert shown["export"]["status"] == "succeeded"
    assert shown["exportHref"].startswith(f"/api/v1/datasets/{dataset.pk}/exports/")
    lines = zipfile.ZipFile(shown["exportFile"]).read("data.csv").decode().splitlines()
    assert len(lines) == ROWS + 1
