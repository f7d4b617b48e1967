"""Issue 12 item 7: the disk fills up during a training. The job's error names the cause ("No space
left on device" and the file) instead of torch's "enforce fail at inline_container.cc", and once
space is freed a user retries the failed job (POST /jobs/{id}/retry/), which resumes from the last
complete checkpoint instead of starting over.

The fault is real: the run directory is a 64 MiB tmpfs mounted for this test (root only; skipped
where mounting is not allowed), filled with a file once the first checkpoints are written."""

from __future__ import annotations

import errno
import os
import subprocess
import time

import pytest
from django.db import transaction
from jobs.models import JobEvent, JobStatus
from training.services import run_dir_for

from tests.faults.job_stack import Stack, messages, purge_broker, record, wait_job
from tests.faults.training_data import small_version, training_job

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
EPOCHS = 10


def fill(path) -> int:
    written = 0
    block = b"\0" * (1 << 20)
    try:
        with open(path, "wb", buffering=0) as handle:
            while True:
                written += handle.write(block)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
    small = block[:4096]
    try:  # the last partial blocks too
        with open(path, "ab", buffering=0) as handle:
            while True:
                written += handle.write(small)
    except OSError:
        pass
    return written


def test_a_full_disk_is_named_and_the_failed_training_resumes_on_retry(tenants, api_client):
    if os.geteuid() != 0:
        pytest.skip("mounting a size-limited tmpfs needs root")
    purge_broker()
    stack = Stack("diskfull")
    mounted = None
    try:
        stack.worker("w1")
        version = small_version(tenants)
        with transaction.atomic():  # mount the small disk before the job's message is sent
            job = training_job(tenants, version, epochs=EPOCHS)
            run_dir = run_dir_for(job)
            run_dir.mkdir(parents=True, exist_ok=True)
            result = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(run_dir)],
                capture_output=True,
                text=True,
            )
            if result.returncode != 0:
                pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
            mounted = run_dir
        wait_job(
            job.pk,
            lambda j: j.status == JobStatus.RUNNING and (j.progress.get("epoch") or 0) >= 2,
            timeout=240,
            what="two epochs with checkpoints",
        )
        filler = run_dir / "filler.bin"
        fill(filler)
        job = wait_job(
            job.pk,
            lambda j: j.status in (JobStatus.FAILED, JobStatus.SUCCEEDED),
            timeout=120,
            what="the training to hit the full disk",
        )
        assert job.status == JobStatus.FAILED, "the disk was full; the run cannot have finished"
        assert "No space left on device" in job.error and str(run_dir) in job.error, job.error
        assert "enforce fail" not in job.error.split("(")[0], job.error
        failed_epoch = max(
            JobEvent.objects.filter(job=job, type="progress", data__has_key="val_acc").values_list(
                "data__epoch", flat=True
            )
        )

        filler.unlink()
        client = api_client(tenants["alice"])
        started = time.monotonic()
        retried = client.post(f"/api/v1/jobs/{job.pk}/retry/")
        assert retried.status_code == 200, retried.content
        assert retried.json()["status"] == "queued" and retried.json()["error"] == ""
        job = wait_job(
            job.pk,
            lambda j: j.status in (JobStatus.FAILED, JobStatus.SUCCEEDED),
            timeout=300,
            what="the retried training to finish",
        )
        retry_seconds = time.monotonic() - started
        assert job.status == JobStatus.SUCCEEDED, (job.error, messages(job.pk))
        resumed = job.result["resumed_from"]
        # the epoch-2 checkpoint may have been the write the full disk refused: then epoch 1 is the last
        # complete one
        assert resumed is not None and resumed["epoch"] >= 1, "resumed, not started over"
        again = client.post(f"/api/v1/jobs/{job.pk}/retry/")
        assert again.status_code == 409 and again.json()["error"]["code"] == "job_conflict"
        error = JobEvent.objects.filter(job=job, message__startswith="failed:").values_list(
            "message", flat=True
        )[0]
    finally:
        if mounted is not None:
            subprocess.run(["umount", "-l", str(mounted)], check=False)
        stack.stop()
    record(
        "7-disk-full",
        fault="the run directory's disk (a 64 MiB tmpfs) filled up during a training",
        promise="the job's error names 'No space left on device' and the file; a user retries it from the "
        "last checkpoint (API, UI, SDK)",
        measured=(
            f"failed with {error.removeprefix('failed: ').split(' (')[0]!r}; after freeing space the retry "
            f"resumed from epoch {resumed['epoch']} (the last validated epoch was {failed_epoch}) and "
            f"succeeded in {retry_seconds:.1f} s"
        ),
        resumed_epoch=resumed["epoch"],
    )
