"""Fair queues and per-workspace limits (issue 22): a queued job is handed to the broker only when a
worker slot is free and its workspace is under its limits; the next one is chosen by priority class,
then the workspace running the fewest jobs, then age (jobs.scheduling)."""

from __future__ import annotations

import contextlib

import pytest
from django.test import override_settings
from jobs.models import Job, JobStatus, WorkspaceLimits
from jobs.scheduling import celery_priority, jobs_dispatch
from jobs.services import job_create

from tests.jobs.factories import worker_node

# A queue no worker process consumes: the messages these tests send stay in the broker (purged after)
QUEUE = "fairtest"


@pytest.fixture
def fair_queue(db):
    yield QUEUE
    from config.celery import app

    with app.connection_for_write() as conn, contextlib.suppress(Exception):
        conn.default_channel.queue_purge(QUEUE)


def _queued(workspace, n: int = 1, *, kind: str = "system.check") -> list[Job]:
    return [
        job_create(workspace=workspace, kind=kind, params={"seconds": 0.1}, queue=QUEUE) for _ in range(n)
    ]


def _published(jobs: list[Job]) -> list[bool]:
    published = dict(Job.objects.filter(pk__in=[j.pk for j in jobs]).values_list("pk", "published_at"))
    return [published[j.pk] is not None for j in jobs]


def test_a_workspace_runs_at_most_its_limit_and_the_rest_say_why(tenants, fair_queue, api_client):
    worker_node("big@test", queues=(QUEUE,), concurrency=10)
    WorkspaceLimits.objects.create(workspace=tenants["ws_a"], max_jobs=2)
    jobs = _queued(tenants["ws_a"], 5)
    assert len(jobs_dispatch()) == 2
    assert _published(jobs) == [True, True, False, False, False]
    assert jobs_dispatch() == [], "nothing more while the workspace is at its limit"

    state = api_client(tenants["alice"]).get(f"/api/v1/jobs/{jobs[2].pk}/").json()["queue_state"]
    assert state["reason"] == "workspace_limit"
    assert state["workspace_limit"] == {"scope": "jobs", "running": 2, "limit": 2}

    # one of the two ends: the next of the workspace may go
    Job.objects.filter(pk=jobs[0].pk).update(status=JobStatus.SUCCEEDED)
    assert jobs_dispatch() == [jobs[2].pk]
    # another workspace is not held back by A's limit
    other = _queued(tenants["ws_b"], 3)
    assert sorted(jobs_dispatch()) == sorted(j.pk for j in other)


def test_the_gpu_limit_counts_gpu_jobs_only(tenants, fair_queue):
    from jobs.scheduling import Limits, over_limit

    limits = Limits(max_jobs=0, max_gpu_jobs=1)
    assert over_limit(limits, (3, 0), "cpu") is None
    assert over_limit(limits, (3, 0), "gpu") is None
    assert over_limit(limits, (3, 1), "gpu") == {"scope": "gpu_jobs", "running": 1, "limit": 1}
    assert over_limit(Limits(max_jobs=3, max_gpu_jobs=0), (3, 0), "cpu") == {
        "scope": "jobs",
        "running": 3,
        "limit": 3,
    }


def test_jobs_wait_for_a_free_slot_plus_one_look_ahead(tenants, fair_queue):
    worker_node("one@test", queues=(QUEUE,), concurrency=1)
    jobs = _queued(tenants["ws_a"], 4)
    assert len(jobs_dispatch()) == 2  # one slot + one message waiting in the broker
    Job.objects.filter(pk=jobs[0].pk).update(status=JobStatus.RUNNING, lease_node="one@test")
    assert jobs_dispatch() == []  # running + one waiting: full
    Job.objects.filter(pk=jobs[0].pk).update(status=JobStatus.SUCCEEDED)
    assert jobs_dispatch() == [jobs[2].pk]


def test_no_live_worker_for_the_queue_sends_nothing(tenants, fair_queue):
    jobs = _queued(tenants["ws_a"], 2)
    assert jobs_dispatch() == []
    assert _published(jobs) == [False, False]
    worker_node("late@test", queues=(QUEUE,), concurrency=1)  # a worker reports in
    assert len(jobs_dispatch()) == 2


def test_a_small_workspace_goes_before_a_big_backlog(tenants, fair_queue):
    worker_node("one@test", queues=(QUEUE,), concurrency=1)
    backlog = _queued(tenants["ws_a"], 10)
    late = _queued(tenants["ws_b"], 1)
    assert jobs_dispatch() == [backlog[0].pk, late[0].pk]


@override_settings(SAMPAN_JOB_SCHEDULING="fifo")
def test_fifo_takes_the_oldest_whatever_its_workspace(tenants, fair_queue):
    worker_node("one@test", queues=(QUEUE,), concurrency=1)
    backlog = _queued(tenants["ws_a"], 10)
    _queued(tenants["ws_b"], 1)
    assert jobs_dispatch() == [backlog[0].pk, backlog[1].pk]


def test_a_higher_priority_class_goes_first(tenants, fair_queue):
    from jobs import registry

    worker_node("one@test", queues=(QUEUE,), concurrency=1)
    batch = _queued(tenants["ws_a"], 1, kind="deploy.batch_predict")  # oldest, lowest class
    trial = _queued(tenants["ws_b"], 1, kind="automl.trial")
    check = _queued(tenants["ws_a"], 1, kind="system.check")  # newest, interactive
    assert jobs_dispatch() == [check[0].pk, trial[0].pk]
    assert _published(batch) == [False]
    kinds = {name: registry.get(name) for name in ("system.check", "automl.trial", "deploy.batch_predict")}
    assert [kinds[n].priority for n in kinds] == [30, 20, 10]  # type: ignore[union-attr]
    # the Redis transport serves priority 0 first
    assert [celery_priority(kinds[n]) for n in kinds] == [0, 3, 6]  # type: ignore[arg-type]


def test_cancelling_a_sent_job_frees_its_slot(tenants, fair_queue, django_capture_on_commit_callbacks):
    from jobs.services import job_cancel

    worker_node("one@test", queues=(QUEUE,), concurrency=1)
    jobs = _queued(tenants["ws_a"], 3)
    jobs_dispatch()
    assert _published(jobs) == [True, True, False]
    with django_capture_on_commit_callbacks(execute=True):
        job_cancel(job=jobs[0])
    assert _published(jobs)[2], "the third takes the cancelled one's place"


# --- the limits over REST: members read, staff writes ------------------------------------------


def test_members_read_the_limits_and_only_staff_change_them(tenants, api_client, make_user):
    url = f"/api/v1/workspaces/{tenants['ws_a'].pk}/limits/"
    alice = api_client(tenants["alice"])  # the workspace's owner, not staff
    body = alice.get(url).json()
    assert body == {
        "max_jobs": None,
        "max_gpu_jobs": None,
        "effective_max_jobs": 0,
        "effective_max_gpu_jobs": 0,
        "running": 0,
        "running_gpu": 0,
        "can_edit": False,
        "updated_at": None,
    }
    refused = alice.put(url, {"max_jobs": 100}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"
    assert api_client(tenants["carol"]).put(url, {"max_jobs": 1}, format="json").status_code == 403
    assert api_client(tenants["bob"]).get(url).status_code == 404  # not a member

    admin = api_client(make_user("root", is_staff=True))
    changed = admin.put(url, {"max_jobs": 4, "max_gpu_jobs": 1}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["max_jobs"] == 4 and changed.json()["can_edit"] is True
    assert admin.put(url, {"max_gpu_jobs": None}, format="json").json()["max_jobs"] == 4  # kept
    assert admin.put(url, {"max_jobs": -1}, format="json").status_code == 400
    seen = alice.get(url).json()
    assert (seen["max_jobs"], seen["max_gpu_jobs"], seen["effective_max_jobs"]) == (4, None, 4)


@override_settings(SAMPAN_WORKSPACE_MAX_GPU_JOBS=2)
def test_staff_list_every_workspaces_limits_and_use_members_or_not(tenants, api_client, make_user):
    from tests.jobs.factories import job

    WorkspaceLimits.objects.create(workspace=tenants["ws_b"], max_jobs=5)
    job(tenants["project_a"], status="running")
    job(tenants["project_a"], queue="gpu", status="running")
    job(tenants["project_a"], status="succeeded")  # finished: not counted
    admin = api_client(make_user("root", is_staff=True))  # a member of no workspace
    answer = admin.get("/api/v1/workspace-limits/")
    assert answer.status_code == 200, answer.content
    rows = {row["workspace_name"]: row for row in answer.json()["results"]}
    assert answer.json()["count"] == len(rows) >= 2
    a, b = rows["Workspace A"], rows["Workspace B"]
    assert a["workspace"] == tenants["ws_a"].pk and a["owners"] == ["alice"]
    assert (a["max_jobs"], a["effective_max_jobs"], a["running"], a["running_gpu"]) == (None, 0, 2, 1)
    assert (a["max_gpu_jobs"], a["effective_max_gpu_jobs"], a["can_edit"]) == (None, 2, True)  # the default
    assert (b["max_jobs"], b["effective_max_jobs"], b["running"]) == (5, 5, 0) and b["owners"] == ["bob"]
    names = [row["workspace_name"] for row in answer.json()["results"]]
    assert names == sorted(names)
    found = admin.get("/api/v1/workspace-limits/?search=space b").json()["results"]
    assert [row["workspace"] for row in found] == [tenants["ws_b"].pk]
    # what the list says is what the workspace's own page says
    own = admin.get(f"/api/v1/workspaces/{tenants['ws_b'].pk}/limits/").json()
    assert {k: v for k, v in b.items() if k in own} == own
    # anyone else: refused, owners included
    refused = api_client(tenants["alice"]).get("/api/v1/workspace-limits/")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"


@override_settings(SAMPAN_WORKSPACE_MAX_JOBS=3)
def test_the_installation_default_applies_without_own_limits(tenants, api_client):
    body = api_client(tenants["alice"]).get(f"/api/v1/workspaces/{tenants['ws_a'].pk}/limits/").json()
    assert body["max_jobs"] is None and body["effective_max_jobs"] == 3


# --- with a real worker --------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_with_a_real_worker_one_job_of_another_workspace_starts_before_a_backlog_drains(live_worker, tenants):
    from tests.harness import wait_for

    backlog = [
        job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 0.5}) for _ in range(6)
    ]
    late = job_create(workspace=tenants["ws_b"], kind="system.check", params={"seconds": 0.5})
    every = [*backlog, late]
    wait_for(
        lambda: Job.objects.filter(pk__in=[j.pk for j in every], status=JobStatus.SUCCEEDED).count() == 7,
        timeout=120,
        what="the seven jobs to run",
    )
    order = list(
        Job.objects.filter(pk__in=[j.pk for j in every]).order_by("started_at").values_list("pk", flat=True)
    )
    # the worker (one slot) had A's first job and A's second waiting in the broker when B's came:
    # B's goes next (one place later when a worker of an earlier test still counts as alive), long
    # before the rest of A's backlog; first come, first served it would be the last
    assert order.index(late.pk) <= 3, order
