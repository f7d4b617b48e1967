"""Issue 12 item 1: a database blip costs a running job its duration, never an attempt.

During a job on a live worker: three times `pg_terminate_backend` of every session of the test
database (sub-second blips), then `ALTER DATABASE ... ALLOW_CONNECTIONS false` plus terminated
sessions for OUTAGE seconds. The housekeeping process (the reaper) runs throughout with a stale
timeout longer than the outage. The job must end succeeded on its first attempt, claimed once."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from jobs.models import Job, JobEvent, JobStatus
from jobs.services import job_create

from tests.faults.job_stack import (
    Stack,
    admin_connection,
    claims,
    messages,
    purge_broker,
    record,
    terminate_backends,
    wait_job,
)

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
OUTAGE = 8.0
ENV = {"SAMPAN_JOB_STALE_SECONDS": "20", "SAMPAN_REAPER_INTERVAL_SECONDS": "1"}


def test_database_blips_and_an_outage_cost_time_not_attempts(tenants):
    purge_broker()
    stack = Stack("blip")
    database = connection.settings_dict["NAME"]
    admin = admin_connection()
    try:
        stack.housekeeping(env=ENV)
        worker = stack.worker("w1", env=ENV)
        job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 14})
        wait_job(
            job.pk,
            lambda j: j.status == JobStatus.RUNNING and j.progress.get("step"),
            timeout=60,
            what="the job to run and report",
        )
        connection.close()
        for _ in range(3):  # three sub-second blips: every session of the database is cut
            assert terminate_backends(admin, database) >= 1
            time.sleep(1.5)
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        outage_started = time.monotonic()
        try:
            while time.monotonic() - outage_started < OUTAGE:
                terminate_backends(admin, database)
                time.sleep(0.5)
        finally:
            admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        back = time.monotonic()
        connection.close()
        job = wait_job(
            job.pk,
            lambda j: j.status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
            timeout=90,
            what="the job to finish after the outage",
        )
        finished_after = time.monotonic() - back
        assert job.status == JobStatus.SUCCEEDED, (job.error, messages(job.pk))
        assert job.attempt == 1 and claims(job.pk) == 1, messages(job.pk)
        assert not any(m.startswith("requeued") for m in messages(job.pk))
        steps = [
            e["data"].get("step") for e in JobEvent.objects.filter(job=job, type="progress").values("data")
        ]
        assert steps[-1] == 20, "the series continues to the last step after the outage"
        assert worker.alive()
        wall = (job.finished_at - job.started_at).total_seconds()
        assert "database unavailable" in worker.log_path.read_text(errors="replace")
    finally:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        admin.close()
        stack.stop()
    record(
        "1-database-blip",
        fault="3 x pg_terminate_backend of every session, then ALLOW_CONNECTIONS false "
        f"for {OUTAGE:.0f} s, during a 14 s job",
        promise="the job keeps its attempt; the outage costs its duration (writes reconnect with backoff)",
        measured=(
            f"succeeded on attempt 1 (claimed once), {finished_after:.1f} s after the database returned; job "
            f"wall time {wall:.1f} s for 14 s of work"
        ),
        wall_seconds=round(wall, 1),
        after_return_seconds=round(finished_after, 1),
    )
    assert Job.objects.get(pk=job.pk).attempt == 1
