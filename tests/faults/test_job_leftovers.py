"""Issue 12 item 8, leftovers: a web killed mid-upload leaves Django's temporary upload file, which
housekeeping deletes; /healthz stops counting a kill -9'd worker within seconds; the checkpoints of
runs whose model version is stored are pruned, never those of a job that may still resume."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from jobs import housekeeping
from jobs.models import Job, JobStatus

from tests.faults.job_stack import Stack, kill_group, purge_broker, record

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_web_killed_mid_upload_leaves_a_temp_file_that_housekeeping_removes(tenants, token_for):
    from datasets.services import dataset_create

    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Uploads", task_type="image_classification"
    )
    folder = Path(settings.FILE_UPLOAD_TEMP_DIR)
    assert folder.is_relative_to(Path(settings.SAMPAN_HOME)), "upload temp files live under SAMPAN_HOME"
    before = set(os.listdir(folder))
    stack = Stack("upload")
    try:
        url, web = stack.web()
        host, port = url.removeprefix("http://").split(":")
        boundary = "sampanfaultboundary"
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\n'
            "Content-Type: application/zip\r\n\r\n"
        ).encode()
        total = len(head) + 8 * 1024 * 1024
        sock = socket.create_connection((host, int(port)))
        sock.sendall(
            (
                f"POST /api/v1/datasets/{dataset.pk}/imports/ HTTP/1.1\r\nHost: localhost\r\n"
                f"Authorization: Bearer {token_for(tenants['alice'])}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {total}\r\n\r\n"
            ).encode()
        )
        sock.sendall(head + b"\0" * (4 * 1024 * 1024))  # half the file, then the client stalls

        def leaked() -> set[str]:
            return set(os.listdir(folder)) - before

        deadline = time.monotonic() + 30
        while not leaked() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert leaked(), "Django spills an upload over 2.5 MB to FILE_UPLOAD_TEMP_DIR"
        kill_group(web, signal.SIGKILL)  # the web dies mid-request: nothing of it runs any more
        sock.close()
        files = leaked()
        assert files, "the killed web left its temporary upload file"
        size = sum((folder / name).stat().st_size for name in files)
        assert housekeeping.uploads_clean_stale() == [], "a fresh file may belong to a live upload: kept"
        time.sleep(1.1)
        removed = housekeeping.uploads_clean_stale(older_than=1)
        assert files <= set(removed) and not leaked()
    finally:
        stack.stop()
    record(
        "8a-upload-temp-file",
        fault="web process SIGKILLed while a 8 MiB upload streams in",
        promise=(
            "the temporary upload file (under SAMPAN_HOME/tmp/uploads) is deleted by housekeeping once stale "
            f"({housekeeping.STALE_UPLOAD_SECONDS} s untouched)"
        ),
        measured=(
            f"{len(files)} file ({size / 2**20:.1f} MiB) left by the killed web; removed by the stale-upload "
            "sweep, a fresh one kept"
        ),
        leaked_bytes=size,
    )


def test_healthz_stops_counting_a_killed_worker_within_seconds(tenants):
    purge_broker()
    stack = Stack("health")
    client = Client()

    def hosts() -> list[str]:
        return [h["hostname"] for h in client.get("/healthz").json()["workers"].get("hosts", [])]

    try:
        worker = stack.worker("w1")
        assert worker.hostname in hosts()
        kill_group(worker, signal.SIGKILL)
        started = time.monotonic()
        while worker.hostname in hosts():
            assert time.monotonic() - started < 20, "/healthz still counts the killed worker"
            time.sleep(0.25)
        gone_after = time.monotonic() - started
    finally:
        stack.stop()
    assert gone_after <= 12, gone_after
    record(
        "8b-healthz-killed-worker",
        fault="kill -9 of a worker's process group",
        promise="/healthz stops counting it within 10 s (three missed 3 s beats)",
        measured=f"gone from /healthz after {gone_after:.1f} s",
        seconds=round(gone_after, 1),
    )


def test_runs_are_pruned_once_their_model_version_is_stored(tenants):
    from training.models import ModelVersion
    from training.services import run_dir_for

    def job_with_run(status: str) -> tuple[Job, Path]:
        job = Job.objects.create(
            workspace=tenants["ws_a"], project=tenants["project_a"], kind="training.run", status=status
        )
        run = run_dir_for(job)
        (run / "checkpoints").mkdir(parents=True)
        (run / "checkpoints" / "epoch-0001-step-000000001.pt").write_bytes(b"\0" * 1024)
        return job, run

    stored, stored_run = job_with_run(JobStatus.SUCCEEDED)
    ModelVersion.objects.create(
        workspace=tenants["ws_a"],
        project=tenants["project_a"],
        number=1,
        job=stored,
        template="image_classification",
        preset="fast",
        code_version="test",
    )
    keep = [
        job_with_run(status)[1]
        for status in (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.FAILED, JobStatus.CANCELLED)
    ]
    unrecorded_job, unrecorded = job_with_run(JobStatus.SUCCEEDED)  # no model version stored (yet)
    orphan_job, orphan = job_with_run(JobStatus.SUCCEEDED)
    orphan_job.delete()

    removed = housekeeping.runs_prune()
    assert not stored_run.exists() and not orphan.exists()
    assert all(run.exists() for run in keep) and unrecorded.exists()
    assert {stored_run.name, orphan.name} <= set(removed)
    assert not {run.name for run in keep} & set(removed)
    record(
        "8c-runs-pruned",
        fault="run directories (checkpoints) under SAMPAN_HOME/runs after their model version is stored",
        promise="pruned by housekeeping; never a queued, running, failed or cancelled job's "
        "(a retry resumes from them)",
        measured="the stored and the orphaned run pruned; the 5 others kept",
        removed=len(removed),
    )
