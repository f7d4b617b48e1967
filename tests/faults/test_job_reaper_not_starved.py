"""Issue 12 item 2: the reaper runs on time while the `--beat` worker trains.

`manage.py worker --beat` (which starts the housekeeping process beside its pool) is busy with a
long job; a second worker dies (SIGKILL of its process group) mid-job. The dead worker's job must
be requeued within the stale timeout plus a few seconds, long before the busy worker is free, and
then run to the end on a third worker."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone
from jobs.models import JobStatus
from jobs.services import job_create

from tests.faults.job_stack import Stack, claims, first_event_at, kill_group, purge_broker, record, wait_job

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
STALE = 4
ENV = {"SAMPAN_JOB_STALE_SECONDS": str(STALE), "SAMPAN_REAPER_INTERVAL_SECONDS": "1"}


def test_a_busy_beat_worker_still_requeues_a_dead_workers_job(tenants):
    purge_broker()
    stack = Stack("starve")
    try:
        beat = stack.worker("beat", env=ENV, beat=True)
        long_job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 90})
        wait_job(
            long_job.pk, lambda j: j.status == JobStatus.RUNNING, timeout=60, what="the long job to start"
        )
        doomed = stack.worker("doomed", env=ENV)
        job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 6})
        job = wait_job(
            job.pk,
            lambda j: j.status == JobStatus.RUNNING and j.progress.get("step"),
            timeout=60,
            what="the second job to run on the second worker",
        )
        assert job.lease_node == doomed.hostname, job.lease_owner
        kill_group(doomed)
        killed_at = timezone.now()
        started = time.monotonic()
        wait_job(
            job.pk,
            lambda j: j.attempt >= 2 or j.status != JobStatus.RUNNING,
            timeout=60,
            what="the reaper to requeue the dead worker's job",
        )
        requeued_at = first_event_at(job.pk, startswith="requeued", after=killed_at)
        assert requeued_at is not None
        requeue_seconds = (requeued_at - killed_at).total_seconds()
        waited = time.monotonic() - started
        assert requeue_seconds <= STALE + 5, f"requeued {requeue_seconds:.1f}s after the kill"
        from jobs.models import Job

        assert Job.objects.get(pk=long_job.pk).status == JobStatus.RUNNING, (
            "the beat worker was busy throughout"
        )
        stack.worker("rescuer", env=ENV)
        job = wait_job(
            job.pk, lambda j: j.status == JobStatus.SUCCEEDED, timeout=60, what="the job to finish"
        )
        assert job.attempt == 2 and claims(job.pk) == 2
        assert beat.alive()
    finally:
        stack.stop()
    record(
        "2-reaper-starvation",
        fault="SIGKILL of a worker mid-job while the --beat worker runs a 90 s job",
        promise=(
            f"requeued within SAMPAN_JOB_STALE_SECONDS ({STALE}) + a few seconds, whatever the beat worker "
            "runs"
        ),
        measured=f"requeued {requeue_seconds:.1f} s after the kill (seen by the test after {waited:.1f} s) "
        "while the beat worker's job was still running",
        requeue_seconds=round(requeue_seconds, 1),
    )
