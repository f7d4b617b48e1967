"""A batch prediction on the embedded database (SQLite, as `make up` runs): created over a dataset
version and an upload by the services, its job body run in another process, results stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.harness import MANAGE, REPO

pytestmark = pytest.mark.integration

SETUP = """
import sys; sys.path.insert(0, {repo!r})
import hashlib, json
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from accounts.models import User
from workspaces.services import project_create, workspace_create
from training.models import ModelVersion
from datasets.services import dataset_version_create
from deploy.batch import batch_prediction_create
from tests.datasets.factories import dataset_with_samples, make_zip
from tests.deploy.factories import png
run = {run!r}
user = User.objects.create_user(username="embedded", password="embedded-password-1")
workspace = workspace_create(user=user, name="Embedded")
project = project_create(user=user, workspace=workspace, name="Embedded")
data = open(run + "/model.onnx", "rb").read()
key = default_storage.save("models/embedded/v1/model.onnx", ContentFile(data))
mv = ModelVersion.objects.create(
    workspace=workspace, project=project, number=1, template="image_classification", preset="fast",
    classes=json.load(open(run + "/labels.json")), preprocessing=json.load(open(run + "/preprocess.json")),
    onnx_key=key, onnx_sha256=hashlib.sha256(data).hexdigest())
dataset = dataset_with_samples(user=user, project=project, per_class=2, classes=range(10))
version = dataset_version_create(dataset=dataset, user=user, seed=1)
first = batch_prediction_create(
    user=user, model_version=mv, source="dataset_version", dataset_version=version
)
upload = SimpleUploadedFile("inputs.zip", make_zip({{"a.png": png(0), "bad.png": b"nope"}}))
second = batch_prediction_create(user=user, model_version=mv, source="upload", upload=upload)
print("CREATED " + json.dumps([first.pk, second.pk]))
"""

RUN = """
import json
from deploy.batch import batch_prediction_run
from deploy.models import BatchPrediction
from workers.progress import silent_report
out = []
for pk in {ids!r}:
    batch = BatchPrediction.objects.select_related("job").get(pk=pk)
    batch_prediction_run(job=batch.job, report=silent_report)
    batch.refresh_from_db()
    out.append({{"status": batch.status, "summary": batch.summary, "files": batch.files}})
print("DONE " + json.dumps(out))
"""


def test_a_batch_prediction_runs_on_the_embedded_database(tmp_path, trained_digits):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "SAMPAN_", "DJANGO_"))
    }
    env.update(SAMPAN_HOME=str(tmp_path / "home"), DJANGO_SETTINGS_MODULE="config.settings.local")

    def shell(code: str, marker: str):
        out = subprocess.run(
            [sys.executable, str(MANAGE), "shell", "-c", code],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        line = next(line for line in out.stdout.splitlines() if line.startswith(marker + " "))
        return json.loads(line[len(marker) + 1 :])

    subprocess.run(
        [sys.executable, str(MANAGE), "migrate", "--verbosity", "0"],
        env=env,
        cwd=REPO,
        check=True,
        timeout=300,
    )
    ids = shell(SETUP.format(repo=str(REPO), run=str(trained_digits)), "CREATED")
    done = shell(RUN.format(ids=ids), "DONE")
    assert [d["status"] for d in done] == ["succeeded", "succeeded"]
    version, upload = (d["summary"] for d in done)
    assert version["rows"] == 20 and version["errors"] == 0 and 0 <= version["metrics"]["accuracy"] <= 1
    assert (upload["rows"], upload["predicted"], upload["errors"]) == (2, 1, 1)
    assert set(done[0]["files"]) == {"jsonl", "csv"}
    assert (tmp_path / "home").exists()
