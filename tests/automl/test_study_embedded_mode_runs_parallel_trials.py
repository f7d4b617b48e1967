"""A study in embedded mode (`manage.py up`: SQLite, the filesystem broker, one local worker with
SAMPAN_WORKER_CONCURRENCY=2), driven over HTTP: Optuna keeps its state in SAMPAN_HOME/optuna.sqlite3
and two trials run in two worker processes, as the README says."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest
import requests

from tests.datasets.factories import folder_layout, make_zip
from tests.harness import ARTIFACTS, MANAGE, REPO, free_port, wait_for

pytestmark = pytest.mark.integration


def test_embedded_study_runs_two_trials_at_once_on_sqlite(tmp_path):
    home, port = tmp_path / "home", free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "SAMPAN_", "DJANGO_"))
    }
    env.update(
        SAMPAN_HOME=str(home),
        SAMPAN_PORT=str(port),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        SAMPAN_WORKER_CONCURRENCY="2",
        PYTHONUNBUFFERED="1",
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / "embedded-automl.log"
    with log_path.open("wb") as log:
        up = subprocess.Popen(
            [sys.executable, str(MANAGE), "up"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        banner = wait_for(
            lambda: (
                re.search(r"user '(\w+)', password '([^']+)'", log_path.read_text())
                or (up.poll() is not None and pytest.fail(log_path.read_text()))
            ),
            timeout=120,
            what="the start-up banner",
        )
        wait_for(
            lambda: requests.get(f"{base}/healthz", timeout=5).json()["workers"]["alive"],
            timeout=90,
            what="a live worker",
        )
        session = requests.Session()
        csrf = session.get(f"{base}/api/v1/auth/csrf/").json()["csrf_token"]
        headers = {"X-CSRFToken": csrf, "Referer": base + "/"}
        login = session.post(
            f"{base}/api/v1/auth/login/",
            json={"username": banner.group(1), "password": banner.group(2)},
            headers=headers,
        )
        assert login.status_code == 200, login.text
        headers["X-CSRFToken"] = session.cookies["csrftoken"]

        def post(path: str, **kwargs) -> dict:
            response = session.post(f"{base}{path}", headers=headers, **kwargs)
            assert response.status_code in (200, 201, 202), (path, response.text)
            return response.json()

        workspace = post("/api/v1/workspaces/", json={"name": "Embedded AutoML"})
        project = post("/api/v1/projects/", json={"workspace": workspace["id"], "name": "Digits"})
        dataset = post("/api/v1/datasets/", json={"project": project["id"], "name": "Digits"})
        post(
            f"/api/v1/datasets/{dataset['id']}/imports/",
            files={"archive": ("digits.zip", make_zip(folder_layout(8, range(4))), "application/zip")},
        )
        version = post(f"/api/v1/datasets/{dataset['id']}/versions/", json={"seed": 1})
        study = post(
            "/api/v1/studies/",
            json={
                "dataset_version": version["id"],
                "preset": "fast",
                "n_trials": 2,
                "parallelism": 2,
                "report_seeds": 0,
                "fixed_params": {"epochs": 1, "model": "cnn_small", "image_size": 32, "batch_size": 8},
                "search_space": [
                    {"name": "learning_rate", "type": "float", "low": 1e-3, "high": 1e-2, "log": True}
                ],
            },
        )
        assert study["trials"]["running"] == 2

        url = f"{base}/api/v1/studies/{study['id']}/"
        done = wait_for(
            lambda: (s := session.get(url).json())["status"] == "completed" and s,
            timeout=600,
            interval=1,
            what="the embedded study",
        )
        assert done["trials"]["total"] == 2 and done["trials"]["failed"] == 0, done
        trials = session.get(url + "trials/").json()
        owners = {session.get(f"{base}/api/v1/jobs/{t['job']}/").json()["lease_owner"] for t in trials}
        assert len(owners) == 2, f"both trials ran in one worker process: {owners}"
        assert (home / "optuna.sqlite3").is_file() and (home / "sampan.sqlite3").is_file()
    finally:
        os.killpg(up.pid, signal.SIGTERM)
        try:
            up.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(up.pid, signal.SIGKILL)
            raise
