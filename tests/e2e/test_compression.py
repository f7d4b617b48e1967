"""Compression end to end in headless Chromium against a live web process and worker, offline (every
request to another origin is refused): a digits classifier trained by the worker (through the API, to
save time) is compressed from its page with the Smaller preset (int8); the compression page shows the
job's progress, then the report (parent first, each variant's size, latency and metric against it) and
the size-vs-accuracy chart; "Measure in this browser" times every model with onnxruntime-web
(WebAssembly served from the platform's own /assets/) and saves the times on the compression; the
variant's page says which version it was compressed from (frontend/e2e/compression.mjs)."""

from __future__ import annotations

import json
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

SCRIPT = REPO / "frontend" / "e2e" / "compression.mjs"
PASSWORD = "compress-passphrase-123"


def trained_model_version(user, api_client) -> int:
    """A digits classifier trained by the worker on 20 images per class (fast preset, 3 short epochs)."""
    from datasets.models import ImportBatch
    from datasets.services import dataset_version_create
    from jobs.models import Job
    from workspaces.services import project_create, workspace_create

    workspace = workspace_create(user=user, name="e2e compression")
    project = project_create(user=user, workspace=workspace, name="digits")
    dataset = dataset_with_samples(user=user, project=project, name="Digits", per_class=20, classes=range(10))
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    version = dataset_version_create(dataset=dataset, user=user, seed=7)
    started = api_client(user).post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version.pk,
            "preset": "fast",
            "params": {"epochs": 3, "batch_size": 16, "augmentation": "none"},
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


def test_compress_see_the_report_and_measure_latency_in_the_browser(
    live_web, live_worker, make_user, api_client
):
    from django.conf import settings
    from training.models import Compression, ModelVersion

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    user = make_user("e2e-compressor", password=PASSWORD)
    parent = trained_model_version(user, api_client)
    out_dir = ARTIFACTS / "e2e-compression"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=user.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_PARENT=str(parent),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1200, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    found = re.search(r"\[e2e\] RESULT (.*)", result.stdout)
    assert found, "the script printed no RESULT line"
    seen = json.loads(found.group(1))

    # the dialog sent the preset and the builtin target by name
    assert seen["sent"] == {"preset": "smaller", "target_profile": "worker-cpu"}
    run = Compression.objects.get(pk=seen["compression"])
    assert run.parent_id == parent and run.report is not None
    variants = [variant["model_version"] for variant in run.report["variants"]]
    assert variants and seen["variantVersions"] == variants
    # the table: the parent first, then each variant; int8 is smaller than the fp32 parent
    assert seen["rowIds"][0] == "compression-row-parent" and seen["rows"] == 1 + len(variants)
    assert all(size < seen["sizes"][0] for size in seen["sizes"][1:])
    assert seen["chartPoints"] == 1 + len(variants)
    # every model timed in the browser, shown and saved on the compression
    assert all(cell["state"] == "done" and cell["median"] > 0 for cell in seen["browser"])
    stored = {row["model_version"]: row for row in run.report["browser_latency"]}
    assert set(stored) == {parent, *variants}
    assert all(row["backend"] == "wasm" and row["runs"] >= 10 for row in stored.values())
    assert all(row["median_ms"] > 0 for row in stored.values())
    # the runtime's WebAssembly came from this server's built assets
    assert seen["wasm"] and all(w["path"].startswith("/assets/") and w["status"] == 200 for w in seen["wasm"])
    assert seen["foreign"] == []
    # the parent's page lists the run; a variant's page names its parent
    assert seen["parentListText"].startswith(f"Compression #{run.pk}")
    variant = ModelVersion.objects.get(pk=variants[0])
    assert variant.source == "compressed" and variant.compressed_from_id == parent
    assert seen["lineageParentHref"] == f"/model-versions/{parent}"
    assert seen["lineageText"].startswith(f"Compressed from {ModelVersion.objects.get(pk=parent).name}")
