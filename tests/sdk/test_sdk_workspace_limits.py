"""``client.workspaces.limits`` / ``set_limits`` / ``all_limits`` against the live platform (gunicorn + a
Celery worker): a member reads the limits, only an administrator (staff) changes them and lists every
workspace's, a limit not passed keeps its value, and with a limit of 1 the second queued job says it
waits for it."""

from __future__ import annotations

import pytest
import sampan

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_members_read_the_limits_staff_sets_them_and_a_job_waits_for_them(
    sdk, live_web, make_user, token_for
):
    from jobs.models import Job, JobStatus, WorkspaceLimits
    from jobs.services import job_cancel

    admin = sampan.Client(live_web, token_for(make_user("root", is_staff=True)), timeout=60)
    workspace = sdk.workspaces.create("Limited team")  # alice owns it (none of the fixtures' jobs)

    unset = sdk.workspaces.limits(workspace)
    assert unset == {
        "max_jobs": None,
        "max_gpu_jobs": None,
        "effective_max_jobs": 0,
        "effective_max_gpu_jobs": 0,
        "running": 0,
        "running_gpu": 0,
        "can_edit": False,
        "updated_at": None,
    }
    assert workspace.limits() == unset  # the same, from the Workspace

    with pytest.raises(sampan.PermissionDenied) as refused:  # the owner is no administrator
        sdk.workspaces.set_limits(workspace, max_jobs=1)
    assert (refused.value.status, refused.value.code) == (403, "permission_denied")
    assert not WorkspaceLimits.objects.filter(workspace_id=workspace.id).exists()

    both = admin.workspaces.set_limits(workspace.id, max_jobs=1, max_gpu_jobs=3)
    assert (both["max_jobs"], both["max_gpu_jobs"], both["can_edit"]) == (1, 3, True)
    assert (both["effective_max_jobs"], both["effective_max_gpu_jobs"]) == (1, 3)
    gpu_default = admin.workspaces.set_limits(workspace, max_gpu_jobs=None)  # max_jobs keeps its 1
    assert (gpu_default["max_jobs"], gpu_default["max_gpu_jobs"]) == (1, None)
    assert gpu_default["effective_max_gpu_jobs"] == 0 and gpu_default["updated_at"]
    stored = WorkspaceLimits.objects.get(workspace_id=workspace.id)
    assert (stored.max_jobs, stored.max_gpu_jobs) == (1, None)
    with pytest.raises(sampan.BadRequest):
        admin.workspaces.set_limits(workspace, max_jobs=-1)

    seen = sdk.workspaces.limits(workspace)
    assert (seen["effective_max_jobs"], seen["can_edit"]) == (1, False)

    # the administrator, no member of it, finds it among every workspace's limits
    rows = admin.workspaces.all_limits(search="limited team")
    assert [r["workspace"] for r in rows] == [workspace.id], rows
    assert rows[0]["owners"] == ["alice"] and rows[0]["workspace_name"] == "Limited team"
    assert {k: v for k, v in rows[0].items() if k in seen} == {**seen, "can_edit": True}
    assert len(admin.workspaces.all_limits()) >= 2  # the fixtures' workspaces too
    with pytest.raises(sampan.PermissionDenied):
        sdk.workspaces.all_limits()

    # two long checks: the first takes the workspace's one slot, the second waits for the limit
    body = {"workspace": workspace.id, "kind": "system.check", "params": {"seconds": 120}}
    first = sdk.jobs.get(sdk.request("POST", "jobs/", json=body)["id"])
    second = sdk.jobs.get(sdk.request("POST", "jobs/", json=body)["id"])
    try:
        state = second.queue_state
        assert state is not None and state["reason"] == "workspace_limit", state
        assert state["workspace_limit"] == {"scope": "jobs", "running": 1, "limit": 1}
        assert sdk.workspaces.limits(workspace)["running"] == 1
        assert first.refresh().status in ("queued", "running")
    finally:
        for job in Job.objects.filter(
            pk__in=[first.id, second.id], status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
        ):
            job_cancel(job=job)
