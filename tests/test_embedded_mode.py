"""`make up` on a bare machine: SQLite + the filesystem broker + a real worker process, the same
code path as production. Runs `manage.py up` as a user would and drives it over HTTP."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest
import requests

from tests.harness import ARTIFACTS, MANAGE, REPO, free_port, wait_for

pytestmark = pytest.mark.integration


def test_up_runs_the_check_job_on_embedded_services(tmp_path):
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
        PYTHONUNBUFFERED="1",
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / "embedded-up.log"
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
        username, password = banner.group(1), banner.group(2)
        assert f"Sampan is running at {base}/" in log_path.read_text()

        health = wait_for(
            lambda: (h := requests.get(f"{base}/healthz", timeout=5).json())["workers"]["alive"] and h,
            timeout=90,
            what="a live worker in /healthz",
        )
        assert health["database"]["vendor"] == "sqlite" and health["broker"]["transport"] == "filesystem"
        assert (home / "sampan.sqlite3").exists() and (home / "broker" / "queue").is_dir()

        session = requests.Session()
        csrf = session.get(f"{base}/api/v1/auth/csrf/").json()["csrf_token"]
        headers = {"X-CSRFToken": csrf, "Referer": base + "/"}
        login = session.post(
            f"{base}/api/v1/auth/login/", json={"username": username, "password": password}, headers=headers
        )
        assert login.status_code == 200, login.text
        headers["X-CSRFToken"] = session.cookies["csrftoken"]
        workspace = session.post(
            f"{base}/api/v1/workspaces/", json={"name": "Embedded"}, headers=headers
        ).json()
        project = session.post(
            f"{base}/api/v1/projects/", json={"workspace": workspace["id"], "name": "Check"}, headers=headers
        ).json()
        job = session.post(
            f"{base}/api/v1/jobs/",
            json={"project": project["id"], "kind": "system.check", "params": {"seconds": 1}},
            headers=headers,
        )
        assert job.status_code == 201, job.text
        job_url = f"{base}/api/v1/jobs/{job.json()['id']}/"
        done = wait_for(
            lambda: (j := session.get(job_url).json())["status"] in ("succeeded", "failed") and j,
            timeout=120,
            what="the check job to finish",
        )
        assert done["status"] == "succeeded", done
        assert done["result"]["computation"]["steps"] == 20
    finally:
        os.killpg(up.pid, signal.SIGTERM)
        try:
            up.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(up.pid, signal.SIGKILL)
            raise
    assert "Sampan stopped." in log_path.read_text()
    time.sleep(0.5)
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{base}/healthz", timeout=2)
