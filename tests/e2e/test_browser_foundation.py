"""Browser end to end in headless Chromium against a live web process and worker: log in,
create a workspace and a project, run the system check and watch it reach `succeeded` live."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "foundation.mjs"


def test_login_create_project_and_watch_the_check_job_succeed(live_web, live_worker, make_user):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    make_user("e2e-user", password="e2e-passphrase-123")
    out_dir = ARTIFACTS / "e2e-foundation"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-user",
        SAMPAN_PASSWORD="e2e-passphrase-123",
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=240, cwd=REPO / "frontend"
    )
    print(result.stdout[-4000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert (out_dir / "jobs.png").exists()

    from jobs.models import Job

    job = Job.objects.get(created_by__username="e2e-user")
    assert job.status == "succeeded" and job.kind == "system.check"
