"""The production loop in headless Chromium against a live web process and a live worker
(frontend/e2e/production_loop.mjs): a digits model trained from a dataset version and deployed; capture
of low-confidence requests turned on in the Capture tab; predictions sent with the deployment's key;
the captures seen in the tab and sent to the digits dataset; in the labeler each new sample shows its
suggestion "From production", one is accepted, one corrected (the rest accepted); a dataset version
made; a retrain from the serving version on it (warm start) run to the end; the new version compared
with the serving one; and a 10 % canary of it started."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from django.conf import settings

from tests.deploy.factories import deployment_with_key, png
from tests.harness import ARTIFACTS, REPO
from tests.training.test_train_digits_through_the_api import digits_version, finished

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "production_loop.mjs"
PASSWORD = "production-loop-passphrase-123"
# Digits far past the dataset's first few per class: new inputs, not duplicates of its samples.
SENT = range(1500, 1506)


def test_captured_requests_are_labeled_and_retrained_on_then_canaried_in_the_browser(
    live_web, live_worker, tenants, api_client, tmp_path
):
    from datasets.models import Sample
    from deploy.models import CapturedRequest, DeploymentTraffic
    from labeling.models import Suggestion
    from training.models import ModelVersion

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    alice = tenants["alice"]
    alice.set_password(PASSWORD)
    alice.save()
    client = api_client(alice)
    version = digits_version(tenants, api_client, per_class=8)
    started = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version["id"], "preset": "fast", "params": {"epochs": 1, "seed": 3}},
        format="json",
    )
    assert started.status_code == 201, started.content
    served = ModelVersion.objects.get(pk=finished(started.json()["id"], timeout=300).result["model_version"])
    deployment, _key, secret = deployment_with_key(tenants, served)
    images = tmp_path / "sent"
    images.mkdir()
    for index in SENT:
        (images / f"digit_{index}.png").write_bytes(png(index))
    out_dir = ARTIFACTS / "e2e-production-loop"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=alice.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_DEPLOYMENT=str(deployment.pk),
        E2E_KEY=secret,
        E2E_SERVING=str(served.pk),
        E2E_DATASET=str(version["dataset"]),
        E2E_IMAGES=str(images),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    seen = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))

    # Every request was captured (each top score is below 1) and became an unlabeled sample with the
    # served answer as a suggestion from production.
    captures = list(CapturedRequest.objects.filter(deployment=deployment))
    assert len(captures) == len(SENT) and {c.reason for c in captures} == {"low_confidence"}
    assert all(c.sent_to_sample_id is not None for c in captures)
    assert seen["sent"]["samples_created"] == len(SENT) and seen["sent"]["skipped"] == [], seen["sent"]
    sample_ids = sorted(c.sent_to_sample_id for c in captures)
    assert seen["sampleIds"] == sample_ids
    suggestions = Suggestion.objects.filter(sample_id__in=sample_ids)
    assert {s.source for s in suggestions} == {"capture"} and all(s.round_id is None for s in suggestions)

    # Accepted suggestions wrote the served class; the corrected sample has the class the person chose.
    labels = dict(Sample.objects.filter(pk__in=sample_ids).values_list("pk", "label_id"))
    for accepted in seen["accepted"]:
        assert labels[accepted["sample"]] == accepted["label"], (accepted, labels)
    corrected = seen["corrected"]
    assert labels[corrected["sample"]] == corrected["label"] != corrected["suggested"]
    assert all(label is not None for label in labels.values())
    assert {s.status for s in suggestions if s.sample_id != corrected["sample"]} == {"accepted"}
    # None is left waiting for a person: every sample it suggested for is labeled.
    waiting = client.get(f"/api/v1/datasets/{version['dataset']}/suggestions/", {"source": "capture"})
    assert waiting.status_code == 200 and waiting.json()["count"] == 0, waiting.json()

    # The dataset version holds the new samples; the retrain started from the serving version.
    assert seen["datasetVersion"]["samples"] == 80 + len(SENT)
    child = ModelVersion.objects.get(pk=seen["retrain"]["modelVersion"])
    assert child.warm_start_from_id == served.pk
    assert child.dataset_version_id == seen["datasetVersion"]["id"]

    # The new version is a 10 % canary of the deployment.
    traffic = DeploymentTraffic.objects.filter(deployment=deployment)
    assert list(traffic.values_list("model_version", "role", "weight")) == [(child.pk, "canary", 10)]
    print(f"covered: {', '.join(seen['steps'])}")
