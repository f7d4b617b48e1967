"""Issue 12 item 4: SIGTERM (a container stop: warm shutdown) preempts a running training. The job
checkpoints as a cancel does, is requeued at once without spending an attempt, and another live
worker resumes it from that checkpoint within seconds; no finished epoch is trained twice."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.utils import timezone
from jobs.models import JobStatus

from tests.faults.job_stack import Stack, claims, first_event_at, messages, purge_broker, record, wait_job
from tests.faults.training_data import small_version, training_job

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
EPOCHS = 12


def test_sigterm_hands_the_training_to_another_worker_within_seconds(tenants):
    purge_broker()
    stack = Stack("sigterm")
    try:
        first = stack.worker("first")
        version = small_version(tenants)
        job = training_job(tenants, version, epochs=EPOCHS)
        wait_job(
            job.pk,
            lambda j: j.status == JobStatus.RUNNING and (j.progress.get("epoch") or 0) >= 2,
            timeout=240,
            what="two epochs (checkpoints) of the training on the first worker",
        )
        second = stack.worker("second")
        stopped_at = timezone.now()
        started = time.monotonic()
        os.kill(first.proc.pid, signal.SIGTERM)  # what `docker stop` sends to the container's main process
        job = wait_job(
            job.pk,
            lambda j: j.status == JobStatus.RUNNING and j.lease_node == second.hostname,
            timeout=60,
            what="the second worker to resume the job",
        )
        resume_seconds = time.monotonic() - started
        first.proc.wait(timeout=60)
        exit_seconds = time.monotonic() - started
        handed_back = first_event_at(job.pk, startswith="requeued: worker", after=stopped_at)
        assert handed_back is not None, messages(job.pk)
        job = wait_job(
            job.pk,
            lambda j: j.status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
            timeout=300,
            what="the resumed training to finish",
        )
        assert job.status == JobStatus.SUCCEEDED, job.error
        assert job.attempt == 1, "the preempted attempt is not counted"
        assert claims(job.pk) == 2
        resumed = job.result["resumed_from"]
        assert resumed is not None and resumed["epoch"] >= 2, resumed
        from jobs.models import JobEvent

        reports = list(
            JobEvent.objects.filter(job=job, type="progress", data__has_key="val_acc").values_list(
                "data__epoch", "data__step", "data__val_acc"
            )
        )
        epochs = [epoch for epoch, _, _ in reports]
        # every epoch validated once; a run resumed at an epoch boundary sends that epoch's report
        # once more (the attempt may have stopped between its checkpoint and its report), unchanged
        repeated = [e for e in set(epochs) if epochs.count(e) > 1]
        assert sorted(set(epochs)) == list(range(1, EPOCHS + 1)), f"every epoch validated: {epochs}"
        if repeated:
            assert repeated == [resumed["epoch"]] and resumed["batch_in_epoch"] == 0, (
                f"only the resumed epoch's report is repeated: {epochs}, resumed {resumed}"
            )
            assert epochs.count(resumed["epoch"]) == 2, epochs
            assert len({r for r in reports if r[0] == resumed["epoch"]}) == 1, reports  # the same figures
        assert resume_seconds < 20, resume_seconds
    finally:
        stack.stop()
    record(
        "4-sigterm",
        fault="SIGTERM to a worker's main process during a training (docker stop)",
        promise=(
            "checkpoint, requeue at once without spending an attempt, resumed by another worker within "
            "seconds"
        ),
        measured=f"running on the other worker {resume_seconds:.1f} s after SIGTERM (resumed from epoch "
        f"{resumed['epoch']}, attempt still 1, no epoch trained twice); the stopped worker exited after "
        f"{exit_seconds:.1f} s",
        resume_seconds=round(resume_seconds, 1),
        exit_seconds=round(exit_seconds, 1),
    )
