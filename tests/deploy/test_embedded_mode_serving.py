"""The prediction endpoint in embedded mode (SQLite, no Redis), served by gunicorn as `make up`
serves it: changes made by another process (a revoked key, a stop, a switch) take effect on the
next request, and the per-key quota is counted in the single web process."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import pytest
import requests

from tests.deploy.factories import png
from tests.harness import ARTIFACTS, MANAGE, REPO, free_port, wait_for

pytestmark = pytest.mark.integration

SETUP = """
import hashlib, json
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from accounts.models import User
from workspaces.services import project_create, workspace_create
from training.models import ModelVersion
from deploy import services
run = {run!r}
user = User.objects.create_user(username="embedded", password="embedded-password-1")
workspace = workspace_create(user=user, name="Embedded")
project = project_create(user=user, workspace=workspace, name="Embedded")
data = open(run + "/model.onnx", "rb").read()
versions = []
for number in (1, 2):
    key = default_storage.save(f"models/embedded/v{{number}}/model.onnx", ContentFile(data))
    versions.append(ModelVersion.objects.create(
        workspace=workspace, project=project, number=number, template="image_classification", preset="fast",
        classes=json.load(open(run + "/labels.json")),
        preprocessing=json.load(open(run + "/preprocess.json")), onnx_key=key,
        onnx_sha256=hashlib.sha256(data).hexdigest()))
deployment = services.deployment_create(user=user, model_version=versions[0], name="embedded")
_, secret = services.deployment_key_create(user=user, deployment=deployment, name="k")
_, limited = services.deployment_key_create(
    user=user, deployment=deployment, name="limited", quota_per_minute=2
)
print("CREATED " + json.dumps({{"deployment": deployment.pk, "key": secret, "limited": limited,
                               "versions": [v.pk for v in versions]}}))
"""


def test_embedded_web_process_sees_changes_from_other_processes(tmp_path, trained_digits):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "SAMPAN_", "DJANGO_"))
    }
    env.update(
        SAMPAN_HOME=str(tmp_path / "home"),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        PYTHONUNBUFFERED="1",
    )

    def shell(code: str) -> str:
        out = subprocess.run(
            [sys.executable, str(MANAGE), "shell", "-c", code],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout

    subprocess.run(
        [sys.executable, str(MANAGE), "migrate", "--verbosity", "0"],
        env=env,
        cwd=REPO,
        check=True,
        timeout=300,
    )
    created = json.loads(
        next(
            line
            for line in shell(SETUP.format(run=str(trained_digits))).splitlines()
            if line.startswith("CREATED ")
        )[8:]
    )
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with (ARTIFACTS / "embedded-serving.log").open("wb") as log:
        web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--chdir",
                str(REPO / "platform"),
                "--bind",
                f"127.0.0.1:{port}",
                "--worker-class",
                "gthread",
                "--workers",
                "1",
                "--threads",
                "8",
                "--no-control-socket",
            ],
            env=env,
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/api/v1/deployments/{created['deployment']}/predict/"
    body = {"instances": [{"image": base64.b64encode(png(4)).decode()}]}

    def preloaded(version: int) -> bool:
        return any((tmp_path / "home" / "serving-cache").glob(f"model-version-{version}-*/manifest.json"))

    def predict(key: str):
        return requests.post(url, json=body, headers={"Authorization": f"Bearer {key}"}, timeout=30)

    try:
        wait_for(lambda: _answers(port) or web.poll() is not None, timeout=60, what="the web server")
        assert web.poll() is None, (ARTIFACTS / "embedded-serving.log").read_text()[-3000:]
        # the web process preloads the deployed model before any request (deploy.warm)
        wait_for(lambda: preloaded(created["versions"][0]), timeout=60, what="V1 preloaded")
        first = predict(created["key"])
        assert first.status_code == 200 and first.json()["model_version"]["id"] == created["versions"][0]

        statuses = [predict(created["limited"]).status_code for _ in range(3)]
        if statuses[-1] == 200:  # a minute boundary fell between the calls
            statuses = [predict(created["limited"]).status_code for _ in range(3)]
        assert statuses[-1] == 429 and statuses[0] == 200

        shell(
            "from deploy.models import Deployment; from training.models import ModelVersion; from deploy "
            "import services; services.deployment_switch(user=None, "
            f"deployment=Deployment.objects.get(pk={created['deployment']}), "
            f"model_version=ModelVersion.objects.get(pk={created['versions'][1]}))"
        )
        wait_for(lambda: preloaded(created["versions"][1]), timeout=60, what="V2 preloaded")
        assert predict(created["key"]).json()["model_version"]["id"] == created["versions"][1]

        shell(
            "from deploy.models import DeploymentKey; from deploy import services; from deploy.services "
            "import key_digest; "
            f"services.deployment_key_revoke(key=DeploymentKey.objects.get(digest=key_digest({created['key']!r})))"
        )
        revoked = predict(created["key"])
        assert revoked.status_code == 401 and revoked.json()["error"]["code"] == "key_revoked"

        shell(
            "from deploy.models import Deployment; from deploy import services; "
            "services.deployment_set_status(user=None, "
            f"deployment=Deployment.objects.get(pk={created['deployment']}), status='stopped')"
        )
        stopped = predict(created["limited"])
        assert stopped.status_code == 409 and stopped.json()["error"]["code"] == "deployment_stopped"
    finally:
        web.terminate()
        web.wait(timeout=30)


def _answers(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code in (200, 503)
    except requests.RequestException:
        return False
