"""The job machinery against a real Celery worker process, real Redis and real PostgreSQL."""

from __future__ import annotations

import os
import signal
from datetime import timedelta

import pytest
from celery.signals import after_task_publish
from django.db import transaction
from django.utils import timezone
from jobs.models import Job, JobEvent, JobStatus
from jobs.services import _send, job_cancel, job_create, jobs_reap_stale

from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def status_of(job: Job) -> str:
    return Job.objects.values_list("status", flat=True).get(pk=job.pk)


def wait_status(job: Job, status: str, timeout: float = 60) -> Job:
    wait_for(
        lambda: status_of(job) == status,
        timeout=timeout,
        what=f"job {job.pk} to be {status} "
        f"(is {status_of(job)}; events: "
        f"{list(JobEvent.objects.filter(job=job).values_list('message', flat=True))})",
    )
    return Job.objects.get(pk=job.pk)


def claims(job: Job) -> int:
    return JobEvent.objects.filter(job=job, type="status", message__startswith="running on").count()


@pytest.fixture
def publishes():
    sent: list[tuple[str, list]] = []

    def record(sender=None, body=None, **kwargs):
        sent.append((sender, list(body[0]) if isinstance(body, (list, tuple)) else body))

    after_task_publish.connect(record, weak=False)
    yield sent
    after_task_publish.disconnect(record)


def test_system_check_runs_on_worker_with_progress(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    response = client.post(
        "/api/v1/jobs/",
        {"project": tenants["project_a"].pk, "kind": "system.check", "params": {"seconds": 1.5}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    job = wait_status(Job.objects.get(pk=response.json()["id"]), JobStatus.SUCCEEDED)
    assert job.attempt == 1 and job.workspace_id == tenants["ws_a"].pk
    assert job.result["devices"]["cpu_count"] >= 1
    assert job.result["versions"]["python"].startswith("3.")
    assert job.result["computation"]["gflops"] > 0
    series = client.get(f"/api/v1/jobs/{job.pk}/events/?type=progress").json()["results"]
    fractions = [event["data"]["fraction"] for event in series]
    assert len(fractions) >= 2 and fractions == sorted(fractions) and fractions[-1] == 1.0


def test_rolled_back_transaction_enqueues_nothing(live_worker, tenants, publishes):
    with pytest.raises(RuntimeError), transaction.atomic():
        doomed = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 0.2})
        raise RuntimeError("roll back")
    assert not Job.objects.filter(pk=doomed.pk).exists()
    assert publishes == []

    with transaction.atomic():
        job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 0.2})
        assert publishes == [], "published before the transaction committed"
    assert publishes == [("jobs.system_check", [job.pk])]
    wait_status(job, JobStatus.SUCCEEDED)


def test_duplicated_message_runs_the_job_once(live_worker, tenants):
    job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 0.5})
    _send(job.pk, kind=job.kind, queue=job.queue)  # the broker delivers the same job twice
    job = wait_status(job, JobStatus.SUCCEEDED)
    wait_for(
        lambda: JobEvent.objects.filter(job=job, message__contains="ignored").exists(),
        timeout=30,
        what="the duplicate delivery to be seen and ignored",
    )
    assert claims(job) == 1
    assert job.attempt == 1


def _stale_running_job(tenants, *, attempt: int, max_attempts: int = 3) -> Job:
    return Job.objects.create(
        workspace=tenants["ws_a"],
        kind="system.check",
        params={"seconds": 0.3},
        status=JobStatus.RUNNING,
        attempt=attempt,
        max_attempts=max_attempts,
        lease_owner="gone-host/4242",
        heartbeat_at=timezone.now() - timedelta(minutes=5),
        started_at=timezone.now() - timedelta(minutes=6),
    )


def test_reaper_requeues_a_job_whose_heartbeat_went_stale(live_worker, tenants):
    from config.celery import app

    job = _stale_running_job(tenants, attempt=1)
    fresh = Job.objects.create(
        workspace=tenants["ws_a"],
        kind="system.check",
        status=JobStatus.RUNNING,
        attempt=1,
        lease_owner="busy-host/1",
        heartbeat_at=timezone.now() + timedelta(minutes=5),
    )
    app.send_task("jobs.reap_stale", queue="cpu")  # the periodic task, run by the worker
    job = wait_status(job, JobStatus.SUCCEEDED)
    assert job.attempt == 2
    requeued = JobEvent.objects.get(job=job, message__startswith="requeued")
    assert "gone-host/4242" in requeued.message and "no heartbeat" in requeued.message
    assert status_of(fresh) == JobStatus.RUNNING, "a job with a fresh heartbeat must be left alone"


def test_max_attempts_ends_in_failed_with_the_reason(live_worker, tenants):
    job = _stale_running_job(tenants, attempt=3, max_attempts=3)
    outcome = jobs_reap_stale()
    assert outcome["failed"] == [job.pk]
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.finished_at is not None
    assert "no heartbeat" in job.error and "gave up after 3 attempts" in job.error


def test_cancel_a_queued_job_never_runs_it(live_worker, tenants, publishes):
    with transaction.atomic():
        job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 0.2})
        job_cancel(job=job)
    assert status_of(job) == JobStatus.CANCELLED
    # the scheduler (jobs.scheduling) never sends a cancelled job's message; a late delivery of one
    # (a message sent before the cancel) is received and ignored
    assert publishes == []
    _send(job.pk, kind=job.kind, queue=job.queue)
    wait_for(
        lambda: JobEvent.objects.filter(job=job, message__contains="ignored").exists(),
        timeout=30,
        what="the worker to receive and ignore the cancelled job",
    )
    assert claims(job) == 0


def test_cancel_a_running_job_stops_it_within_seconds(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 120})
    wait_status(job, JobStatus.RUNNING)
    wait_for(lambda: Job.objects.get(pk=job.pk).progress.get("step"), timeout=30, what="first progress")
    response = client.post(f"/api/v1/jobs/{job.pk}/cancel/")
    assert response.status_code == 200 and response.json()["cancel_requested"] is True
    job = wait_status(job, JobStatus.CANCELLED, timeout=10)
    assert job.progress["fraction"] < 0.5

    again = client.post(f"/api/v1/jobs/{job.pk}/cancel/")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "job_conflict"


def test_worker_process_killed_mid_job_is_requeued_and_completes(live_worker, tenants):
    job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 5})
    job = wait_status(job, JobStatus.RUNNING)
    wait_for(lambda: Job.objects.get(pk=job.pk).progress.get("step"), timeout=30, what="first progress")
    pid = int(job.lease_owner.rsplit("/", 1)[1])
    os.kill(pid, signal.SIGKILL)  # the process running the job dies without a word

    def reaped() -> bool:
        jobs_reap_stale()
        return status_of(job) != JobStatus.RUNNING or Job.objects.get(pk=job.pk).attempt > 1

    wait_for(reaped, timeout=60, interval=1, what="the reaper to notice the dead worker")
    job = wait_status(job, JobStatus.SUCCEEDED, timeout=90)
    assert job.attempt == 2
    assert claims(job) == 2
    assert live_worker.alive(), "the worker host must survive the loss of one process"


# --- retry (issue 12 item 7) and Idempotency-Key (item 3) ---------------------------------------


def test_retry_queues_a_failed_job_again_with_fresh_attempts(live_worker, tenants, api_client):
    client = api_client(tenants["alice"])
    job = _stale_running_job(tenants, attempt=3, max_attempts=3)
    jobs_reap_stale()
    assert status_of(job) == JobStatus.FAILED
    assert client.get(f"/api/v1/jobs/{job.pk}/").json()["retryable"] is True
    assert api_client(tenants["carol"]).post(f"/api/v1/jobs/{job.pk}/retry/").status_code == 403  # a viewer
    assert (
        api_client(tenants["bob"]).post(f"/api/v1/jobs/{job.pk}/retry/").status_code == 404
    )  # another tenant
    response = client.post(f"/api/v1/jobs/{job.pk}/retry/")
    assert response.status_code == 200, response.json()
    assert (
        response.json()["status"] == "queued"
        and response.json()["error"] == ""
        and response.json()["attempt"] == 0
    )
    job = wait_status(job, JobStatus.SUCCEEDED)
    assert job.attempt == 1 and job.max_attempts == 3
    assert JobEvent.objects.filter(job=job, message__startswith="retry requested (was failed)").exists()
    again = client.post(f"/api/v1/jobs/{job.pk}/retry/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "job_conflict"
    assert "only a failed or cancelled job" in again.json()["error"]["message"]


def test_retry_refuses_kinds_that_cannot_be_rerun(tenants, api_client):
    job = Job.objects.create(
        workspace=tenants["ws_a"], kind="datasets.import", status=JobStatus.FAILED, error="boom"
    )
    response = api_client(tenants["alice"]).post(f"/api/v1/jobs/{job.pk}/retry/")
    assert response.status_code == 409 and "cannot be retried" in response.json()["error"]["message"]
    assert status_of(job) == JobStatus.FAILED


def test_idempotency_key_returns_the_same_job_to_a_retried_post(tenants, token_for):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(tenants['alice'])}")
    body = {"project": tenants["project_a"].pk, "kind": "system.check", "params": {"seconds": 0.2}}
    first = client.post("/api/v1/jobs/", body, format="json", HTTP_IDEMPOTENCY_KEY="abc-1")
    second = client.post("/api/v1/jobs/", body, format="json", HTTP_IDEMPOTENCY_KEY="abc-1")
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] == second.json()["id"] and second["Idempotent-Replayed"] == "true"
    other = client.post("/api/v1/jobs/", body, format="json", HTTP_IDEMPOTENCY_KEY="abc-2")
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert Job.objects.filter(kind="system.check", params__seconds=0.2).count() == 2

    reused = client.post(
        f"/api/v1/jobs/{first.json()['id']}/cancel/", format="json", HTTP_IDEMPOTENCY_KEY="abc-1"
    )
    assert reused.status_code == 422 and reused.json()["error"]["code"] == "idempotency_key_reused"
    bad = client.post("/api/v1/jobs/", {"kind": "nope"}, format="json", HTTP_IDEMPOTENCY_KEY="abc-3")
    assert bad.status_code == 400
    fixed = client.post("/api/v1/jobs/", body, format="json", HTTP_IDEMPOTENCY_KEY="abc-3")
    assert fixed.status_code == 201, "a refused request frees its key for the corrected retry"
    too_long = client.post("/api/v1/jobs/", body, format="json", HTTP_IDEMPOTENCY_KEY="k" * 300)
    assert too_long.status_code == 400 and too_long.json()["error"]["code"] == "invalid_idempotency_key"

    bob = APIClient()
    bob.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(tenants['bob'])}")
    theirs = bob.post(
        "/api/v1/jobs/",
        {**body, "project": tenants["project_b"].pk},
        format="json",
        HTTP_IDEMPOTENCY_KEY="abc-1",
    )
    assert theirs.status_code == 201 and theirs.json()["id"] != first.json()["id"], "keys are per caller"


def test_a_new_secret_is_never_stored_for_an_idempotency_replay(tenants, token_for):
    """Personal tokens and deployment keys are kept hashed: an answer holding one is not stored."""
    from jobs.models import IdempotencyRecord
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(tenants['alice'])}")
    first = client.post("/api/v1/tokens/", {"name": "ci"}, format="json", HTTP_IDEMPOTENCY_KEY="tok-1")
    assert first.status_code == 201, first.content
    secret = first.json()["key"]
    assert not IdempotencyRecord.objects.filter(key="tok-1").exists()
    assert not any(
        secret.encode() in bytes(body or b"")
        for body in IdempotencyRecord.objects.values_list("body", flat=True)
    )
    again = client.post("/api/v1/tokens/", {"name": "ci"}, format="json", HTTP_IDEMPOTENCY_KEY="tok-1")
    assert again.status_code == 201 and "Idempotent-Replayed" not in again
    assert again.json()["key"] != secret
