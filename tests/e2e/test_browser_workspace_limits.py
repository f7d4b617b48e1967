"""Browser check (frontend/e2e/workspace_limits.mjs) of a workspace's job limits in headless Chromium
against a live web process and a real worker: an administrator who is no member of the workspace
finds it on the Users page's Workspace limits tab and sets its limit to 1, a member reads it on the
workspace's Limits tab (without the form), and the second of the member's two queued system checks
says on its job page that it waits for the workspace limit, in English and in zh-CN."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "workspace_limits.mjs"
PASSWORD = "e2e-passphrase-123"


def test_admin_sets_a_limit_and_the_members_second_job_waits_for_it(live_web, live_worker, make_user):
    from django.conf import settings
    from jobs.models import Job, JobStatus, WorkspaceLimits
    from jobs.services import job_cancel
    from workspaces.models import Membership
    from workspaces.services import project_create, workspace_create

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    member = make_user("e2e-limits-member", password=PASSWORD)
    admin = make_user("e2e-limits-admin", password=PASSWORD, is_staff=True)
    workspace = workspace_create(user=member, name="Limited team")
    project = project_create(user=member, workspace=workspace, name="Checks")
    other = workspace_create(user=member, name="Limited elsewhere")  # the search leaves it out
    out_dir = ARTIFACTS / "e2e-workspace-limits"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        E2E_ADMIN=admin.username,
        E2E_MEMBER=member.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_WORKSPACE=str(workspace.pk),
        E2E_WORKSPACE_NAME="Limited team",
        E2E_PROJECT=str(project.pk),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    try:
        result = subprocess.run(
            ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300, cwd=REPO / "frontend"
        )
    finally:  # the session's worker must not stay busy with the long checks
        for job in Job.objects.filter(workspace=workspace, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]):
            job_cancel(job=job)
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser check failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    shown = json.loads(result.stdout.split("[e2e] RESULT ", 1)[1].splitlines()[0])

    # the administrator, no member: the workspace's page is not theirs, the Users page lists it (the
    # search leaves the other out) unlimited by default, a form, the PUT stored 1, the list shows it
    assert not Membership.objects.filter(user=admin).exists() and shown["adminWorkspacePage"] == "not found"
    assert shown["adminBefore"]["row"] == "0 / unlimited (default)" and shown["adminBefore"]["rows"] == 1
    assert shown["adminBefore"]["maxJobs"] == "unlimited" and shown["adminBefore"]["form"] == 1
    assert shown["saveStatus"] == 200 and shown["saved"]["max_jobs"] == 1
    assert shown["saved"]["effective_max_jobs"] == 1 and shown["adminAfter"] == "1"
    assert shown["adminRowAfter"] == "0 / 1"
    assert not WorkspaceLimits.objects.filter(workspace=other).exists()
    limits = WorkspaceLimits.objects.get(workspace=workspace)
    assert (limits.max_jobs, limits.max_gpu_jobs) == (1, None)
    # the member: the limit, no form, the staff-only note
    assert shown["member"]["maxJobs"] == "1" and shown["member"]["maxGpuJobs"] == "unlimited"
    assert shown["member"]["form"] == 0 and shown["member"]["staffOnly"] == 1
    # the second job waits for the limit, in plain words
    assert shown["second"] > shown["first"]
    assert shown["en"]["reason"] == (
        "This workspace already runs 1 of its 1 jobs at once: the job starts when one of them ends."
    )
    # zh-CN: the tab, the table and the reason in Chinese
    assert shown["zhLang"] == "zh-CN"
    assert shown["zhLimits"]["tab"] == "限额" and shown["zhLimits"]["maxGpuJobs"] == "不限"
    assert shown["zhLimits"]["maxJobs"] == "1" and shown["zhLimits"]["running"] == "1"  # the first check
    assert (
        shown["zh"]["reason"]
        == "此工作空间已在同时运行 1 个任务（限额 1 个）：其中一个结束后此任务才会开始。"
    )
    # what the server says of the two jobs while the page was read: the first one took the only slot
    first = Job.objects.get(pk=shown["first"])
    assert first.published_at is not None
    assert any(out_dir.glob("*-job-waits-zh.png"))
