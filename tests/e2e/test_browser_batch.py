"""Browser end to end of batch prediction (frontend/e2e/batch.mjs) in headless Chromium against a
live web process and worker: on a model version's page, "Batch predict" with the dialog's defaults
(the version's own dataset version, test split), the run followed in the list until it succeeds,
its metrics shown, the CSV downloaded by its button, the run listed under the project's Batch tab;
the download is the stored file and holds one row per test sample with the hosted predictor's
labels and the samples' labels as truth."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess

import pytest

from tests.datasets.factories import dataset_with_samples
from tests.deploy.factories import model_version_from
from tests.harness import ARTIFACTS, REPO

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "batch.mjs"
PASSWORD = "batch-passphrase-123"


def test_a_dataset_version_is_batch_predicted_from_the_model_version_page(
    live_web, live_worker, tenants, trained_digits
):
    from datasets.models import VersionSample
    from datasets.services import dataset_version_create
    from deploy.models import BatchPrediction
    from django.conf import settings
    from django.core.files.storage import default_storage

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    alice = tenants["alice"]
    alice.set_password(PASSWORD)
    alice.save()
    dataset = dataset_with_samples(user=alice, project=tenants["project_a"], per_class=4, classes=range(10))
    version = dataset_version_create(dataset=dataset, user=alice, seed=3)
    mv = model_version_from(tenants, trained_digits, dataset_version=version)

    out_dir = ARTIFACTS / "e2e-batch"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=alice.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_MODEL_VERSION=str(mv.pk),
        E2E_PROJECT=str(mv.project_id),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    shown = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))

    batch = BatchPrediction.objects.get(pk=shown["id"])
    assert batch.status == "succeeded" and batch.model_version_id == mv.pk
    assert batch.dataset_version_id == version.pk and batch.split == "test" and batch.created_by == alice
    assert shown["statuses"][-1] == "succeeded"
    assert f"#{batch.pk}" in shown["projectRow"] and "Test" in shown["projectRow"]  # the project's Batch tab
    assert shown["metrics"]["accuracy"] == pytest.approx(batch.summary["metrics"]["accuracy"], abs=1e-4)

    # the browser's download is the stored CSV
    data = (out_dir / "batch.csv").read_bytes()
    assert shown["csv"]["name"] == f"batch-{batch.pk}-{mv.name}.csv"
    assert hashlib.sha256(data).hexdigest() == batch.files["csv"]["sha256"]
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    test_entries = list(VersionSample.objects.filter(version=version, split="test").order_by("pk"))
    assert len(rows) == batch.summary["rows"] == len(test_entries) > 0
    assert [int(r["id"]) for r in rows] == [e.sample_id for e in test_entries]
    assert [r["truth"] for r in rows] == [e.label_name for e in test_entries]
    assert all(r["error"] == "" and r["label"] in [str(d) for d in range(10)] for r in rows)
    # and the labels are those of the JSONL file, the top-1 of each row's top-k
    with default_storage.open(batch.files["jsonl"]["key"], "rb") as stream:
        lines = [json.loads(line) for line in stream.read().decode().splitlines()]
    assert [r["label"] for r in rows] == [line["prediction"]["top_k"][0]["label"] for line in lines]
    accuracy = sum(r["label"] == r["truth"] for r in rows) / len(rows)
    assert batch.summary["metrics"]["accuracy"] == pytest.approx(accuracy)
