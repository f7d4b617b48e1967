"""A queued job says why it waits: its place in its queue, the workers online for that queue, and
what they are busy with (GET /jobs/ and /jobs/{id}/ answer ``queue_state``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.jobs.factories import job, worker_node

pytestmark = pytest.mark.django_db


def _queued(project, *, queue="gpu", seconds_ago=0, **fields):
    return job(
        project,
        queue=queue,
        enqueued_at=timezone.now() - timedelta(seconds=seconds_ago),
        **fields,
    )


def test_no_worker_online_for_the_queue(tenants, api_client):
    worker_node("cpu-1@test", queues=("cpu",))  # a worker, but not for the gpu queue
    waiting = _queued(tenants["project_a"], queue="gpu")
    body = api_client(tenants["alice"]).get(f"/api/v1/jobs/{waiting.pk}/").json()
    assert body["queue_state"] == {
        "queue": "gpu",
        "position": 1,
        "ahead": 0,
        "reason": "no_worker",
        "workers": 0,
        "slots": 0,
        "busy_with": [],
        "workspace_limit": None,
    }


def test_a_dead_worker_does_not_count(tenants, api_client):
    from jobs.models import WorkerNode

    worker_node("gpu-gone@test", queues=("gpu",))
    WorkerNode.objects.update(last_seen=timezone.now() - timedelta(minutes=2))
    waiting = _queued(tenants["project_a"])
    body = api_client(tenants["alice"]).get(f"/api/v1/jobs/{waiting.pk}/").json()
    assert body["queue_state"]["reason"] == "no_worker"


def test_a_live_worker_busy_with_a_job_and_positions_in_line(tenants, api_client):
    worker_node("gpu-1@test", queues=("gpu",), concurrency=1)
    busy = job(tenants["project_a"], queue="gpu", status="running", lease_node="gpu-1@test")
    first = _queued(tenants["project_a"], seconds_ago=30)
    second = _queued(tenants["project_a"], seconds_ago=20)
    third = _queued(tenants["project_a"], seconds_ago=10)
    other_queue = _queued(tenants["project_a"], queue="cpu", seconds_ago=40)  # not in the gpu line
    client = api_client(tenants["alice"])
    page = client.get("/api/v1/jobs/", {"status": "queued", "page_size": 50}).json()["results"]
    states = {row["id"]: row["queue_state"] for row in page}
    assert [states[j.pk]["position"] for j in (first, second, third)] == [1, 2, 3]
    assert [states[j.pk]["ahead"] for j in (first, second, third)] == [0, 1, 2]
    assert {states[j.pk]["reason"] for j in (first, second, third)} == {"workers_busy"}
    assert states[first.pk]["busy_with"] == [{"worker": "gpu-1@test", "job_id": busy.pk, "kind": busy.kind}]
    assert states[first.pk]["workers"] == 1 and states[first.pk]["slots"] == 1
    assert states[other_queue.pk]["reason"] == "no_worker"
    # a running or finished job waits for nothing
    assert client.get(f"/api/v1/jobs/{busy.pk}/").json()["queue_state"] is None


def test_the_first_in_line_with_a_free_slot_is_next(tenants, api_client):
    worker_node("gpu-2@test", queues=("cpu", "gpu"), concurrency=2)
    job(tenants["project_a"], queue="gpu", status="running", lease_node="gpu-2@test")
    first = _queued(tenants["project_a"], seconds_ago=20)
    second = _queued(tenants["project_a"], seconds_ago=10)
    client = api_client(tenants["alice"])
    assert client.get(f"/api/v1/jobs/{first.pk}/").json()["queue_state"]["reason"] == "next"
    assert client.get(f"/api/v1/jobs/{second.pk}/").json()["queue_state"]["reason"] == "workers_busy"


def test_another_workspaces_job_is_not_named(tenants, api_client):
    """Bob's job keeps the worker busy: Alice learns the worker is busy, not which job it runs."""
    worker_node("gpu-3@test", queues=("gpu",))
    job(tenants["project_b"], queue="gpu", status="running", lease_node="gpu-3@test")
    waiting = _queued(tenants["project_a"])
    state = api_client(tenants["alice"]).get(f"/api/v1/jobs/{waiting.pk}/").json()["queue_state"]
    assert state["reason"] == "workers_busy"
    assert state["busy_with"] == [{"worker": "gpu-3@test", "job_id": None, "kind": "system.check"}]


def test_my_role_in_the_jobs_workspace(tenants, api_client):
    job_a = tenants["job_a"]
    assert api_client(tenants["carol"]).get(f"/api/v1/jobs/{job_a.pk}/").json()["my_role"] == "viewer"
    listed = api_client(tenants["erin"]).get("/api/v1/jobs/").json()["results"]
    assert {row["my_role"] for row in listed} == {"editor"}
    assert api_client(tenants["alice"]).get("/api/v1/training-jobs/").status_code == 200


def test_queue_state_from_the_selector_alone(tenants):
    """The selector works without a request (a job just created): other jobs stay unnamed."""
    from jobs.selectors import queue_states

    worker_node("gpu-4@test", queues=("gpu",))
    busy = job(tenants["project_a"], queue="gpu", status="running", lease_node="gpu-4@test")
    waiting = _queued(tenants["project_a"])
    state = queue_states([waiting])[waiting.pk]
    assert state["busy_with"] == [{"worker": "gpu-4@test", "job_id": None, "kind": busy.kind}]
    assert queue_states([busy]) == {}
