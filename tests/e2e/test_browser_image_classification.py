"""Browser end to end of the EasyDL core flow in headless Chromium against a live web process and
worker: upload a zip of real handwritten digits (folder per class, some unlabeled), label some in
the grid by keyboard, make a version, train with the fast preset while the live curves draw, open
the evaluation report and click a confusion-matrix cell to see its images."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.datasets.factories import folder_layout, make_zip
from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "image_classification.mjs"


def test_upload_label_train_and_open_the_evaluation_report(live_web, live_worker, make_user, tmp_path):
    dist = Path(os.environ.get("SAMPAN_FRONTEND_DIST") or REPO / "frontend" / "dist")
    assert (dist / "index.html").exists(), "the frontend is not built: run `make frontend`"
    make_user("e2e-trainer", password="e2e-passphrase-123")
    archive = tmp_path / "digits.zip"
    archive.write_bytes(make_zip(folder_layout(40, range(10), unlabeled=20)))
    out_dir = ARTIFACTS / "e2e-image-classification"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-trainer",
        SAMPAN_PASSWORD="e2e-passphrase-123",
        E2E_ARTIFACTS=str(out_dir),
        E2E_ZIP=str(archive),
        E2E_EPOCHS="3",
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    assert (out_dir / "evaluation.png").exists()

    from datasets.models import Sample
    from training.models import ModelVersion

    model = ModelVersion.objects.get(created_by__username="e2e-trainer")
    assert model.preset == "fast" and model.params["epochs"] == 3 and model.evaluation["samples"] > 0
    assert (
        Sample.objects.filter(dataset__created_by__username="e2e-trainer", label__isnull=False).count() >= 402
    )
