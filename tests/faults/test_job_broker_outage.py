"""Issue 12 item 3: with the broker down, creating a job answers 201 with the job (committed, its
message still to send), a retry with the same Idempotency-Key returns the same job, and the job
runs once, within seconds of the broker's return.

A Redis of the test's own (port 6392) is the broker of a live web, worker and housekeeping
process; it is SIGKILLed, the POSTs go to the live web, then Redis starts again on the same port
(empty: whatever it held is lost, as after a crash without AOF)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time

import pytest
import requests
from jobs.models import Job, JobStatus

from tests.faults.job_stack import Stack, claims, messages, record, wait_job
from tests.faults.training_data import small_version
from tests.harness import wait_for

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
PORT = 6392
BROKER = f"redis://127.0.0.1:{PORT}/0"
ENV = {"CELERY_BROKER_URL": BROKER, "SAMPAN_REAPER_INTERVAL_SECONDS": "1"}


class OwnRedis:
    def __init__(self) -> None:
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        self.dir = tempfile.mkdtemp(prefix="sampan-fault-redis-")
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(PORT),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self.dir,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(
            lambda: (
                subprocess.run(
                    ["redis-cli", "-p", str(PORT), "ping"], capture_output=True, text=True
                ).stdout.strip()
                == "PONG"
            ),
            timeout=20,
            what="redis to answer",
        )

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def test_job_creation_during_a_broker_outage_answers_with_the_job_and_runs_it_once(tenants, token_for):
    redis = OwnRedis()
    stack = Stack("broker")
    headers = {"Authorization": f"Bearer {token_for(tenants['alice'])}"}
    body = {"project": tenants["project_a"].pk, "kind": "system.check", "params": {"seconds": 1}}
    try:
        redis.start()
        url, _ = stack.web(env=ENV)
        stack.housekeeping(env=ENV)
        worker = stack.worker("w1", env=ENV)
        warm = requests.post(f"{url}/api/v1/jobs/", json=body, headers=headers, timeout=30)
        assert warm.status_code == 201, warm.text
        wait_job(
            warm.json()["id"],
            lambda j: j.status == JobStatus.SUCCEEDED,
            timeout=60,
            what="a job before the outage",
        )
        version = small_version(tenants, per_class=12)  # imported inline: no broker involved

        redis.kill()
        before = Job.objects.count()
        started = time.monotonic()
        first = requests.post(
            f"{url}/api/v1/jobs/", json=body, headers={**headers, "Idempotency-Key": "outage-1"}, timeout=60
        )
        answer_seconds = time.monotonic() - started
        assert first.status_code == 201, first.text
        job_id = first.json()["id"]
        again = requests.post(
            f"{url}/api/v1/jobs/", json=body, headers={**headers, "Idempotency-Key": "outage-1"}, timeout=60
        )
        assert again.status_code == 201 and again.json()["id"] == job_id, again.text
        assert again.headers.get("Idempotent-Replayed") == "true"
        assert Job.objects.count() == before + 1, "the retry created nothing"
        # committed, its message still to send: a dispatcher (the worker's heartbeat) may hold it marked
        # as sent while its send to the dead broker fails (~0.6 s), after which the mark is undone
        job = wait_for(
            lambda: (j := Job.objects.get(pk=job_id)).published_at is None and j,
            timeout=30,
            interval=0.1,
            what="the job to be left unsent while the broker is down",
        )
        assert job.status == JobStatus.QUEUED
        training = requests.post(
            f"{url}/api/v1/training-jobs/",
            headers={**headers, "Idempotency-Key": "outage-2"},
            json={
                "dataset_version": version.pk,
                "preset": "fast",
                "params": {"epochs": 1, "image_size": 32, "augmentation": "none"},
            },
            timeout=60,
        )
        assert training.status_code == 201, training.text
        training_again = requests.post(
            f"{url}/api/v1/training-jobs/",
            headers={**headers, "Idempotency-Key": "outage-2"},
            json={},
            timeout=60,
        )
        assert training_again.json()["id"] == training.json()["id"], (
            "replayed, not validated or created again"
        )
        health = requests.get(f"{url}/healthz", timeout=30)
        assert health.status_code == 503 and not health.json()["broker"]["ok"]

        time.sleep(3)  # the outage goes on a little
        assert Job.objects.get(pk=job_id).status == JobStatus.QUEUED
        redis.start()
        back = time.monotonic()
        job = wait_job(
            job_id,
            lambda j: j.status == JobStatus.SUCCEEDED,
            timeout=60,
            what="the job created during the outage to run",
        )
        run_seconds = time.monotonic() - back
        assert claims(job_id) == 1 and job.attempt == 1, messages(job_id)
        trained = wait_job(
            training.json()["id"],
            lambda j: j.status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
            timeout=180,
            what="the training created during the outage",
        )
        assert trained.status == JobStatus.SUCCEEDED and claims(trained.pk) == 1, trained.error
        assert Job.objects.filter(kind="training.run").count() == 1
        assert worker.alive()
    finally:
        stack.stop()
        redis.close()
    record(
        "3-broker-outage",
        fault="broker (Redis) SIGKILLed; POST /jobs/ and POST /training-jobs/ twice each "
        "with one Idempotency-Key; Redis restarted empty",
        promise="201 with the committed job (never 500), the retry returns the same job, the job runs once "
        "within seconds of the broker's return",
        measured=(
            f"201 in {answer_seconds:.1f} s; each retry replayed the same job; the system check succeeded "
            f"{run_seconds:.1f} s after Redis was back, the training after it; each claimed once"
        ),
        answer_seconds=round(answer_seconds, 1),
        run_after_return_seconds=round(run_seconds, 1),
    )
