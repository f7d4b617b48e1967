"""Issue 12 item 5: the OOM killer (here SIGKILL) takes a worker's pool child mid-job. Celery
redelivers the message at once (task_reject_on_worker_lost); the claim sees the lease owner is a
dead process on this host and takes the job over, so it resumes in seconds, not after the stale
timeout (set to 60 s here, and no reaper runs)."""

from __future__ import annotations

import os
import signal
import time

import pytest
from jobs.models import JobStatus
from jobs.services import job_create

from tests.faults.job_stack import Stack, claims, messages, pool_children, purge_broker, record, wait_job

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
STALE = 60
ENV = {"SAMPAN_JOB_STALE_SECONDS": str(STALE)}


def test_a_killed_pool_child_is_taken_over_at_once(tenants):
    purge_broker()
    stack = Stack("oom")
    try:
        worker = stack.worker("w1", env=ENV)
        job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 8})
        job = wait_job(
            job.pk,
            lambda j: j.status == JobStatus.RUNNING and j.progress.get("step"),
            timeout=60,
            what="the job to run",
        )
        child = int(job.lease_owner.rsplit("/", 1)[1])
        assert child in pool_children(worker.proc.pid) and child != worker.proc.pid, (
            "a pool child, not the parent"
        )
        os.kill(child, signal.SIGKILL)
        started = time.monotonic()
        job = wait_job(
            job.pk,
            lambda j: j.attempt == 2 and j.status == JobStatus.RUNNING,
            timeout=STALE - 10,
            what="the redelivered message to take the job over",
        )
        takeover_seconds = time.monotonic() - started
        assert any(m.startswith(f"took over from {os.uname().nodename}/{child}") for m in messages(job.pk)), (
            messages(job.pk)
        )
        job = wait_job(
            job.pk, lambda j: j.status == JobStatus.SUCCEEDED, timeout=60, what="the job to finish"
        )
        assert claims(job.pk) == 2 and worker.alive()
        assert takeover_seconds < 15, takeover_seconds
    finally:
        stack.stop()
    record(
        "5-pool-child-killed",
        fault="SIGKILL of the pool child running a job (as the OOM killer does)",
        promise="the redelivered message takes the job over at once (lease owner is a dead local process)",
        measured=f"running again on attempt 2 {takeover_seconds:.1f} s after the kill "
        f"(stale timeout {STALE} s, no reaper running)",
        takeover_seconds=round(takeover_seconds, 1),
    )
