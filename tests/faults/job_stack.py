"""Helpers for the job fault tests (issue 12): real worker, housekeeping and web processes started
with their own settings, the job's history read back, and the measurements each test records for
docs/reliability.md (rendered by tests/faults/render_reliability.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import psycopg

from tests.harness import ARTIFACTS, MANAGE, REPO, LiveProcess, live_env, start_web, wait_for

MEASUREMENTS = ARTIFACTS / "faults"


def record(item: str, *, fault: str, promise: str, measured: str, **numbers) -> None:
    """Write one row of the reliability table (docs/reliability.md) from what the test measured."""
    MEASUREMENTS.mkdir(parents=True, exist_ok=True)
    row = {
        "item": item,
        "fault": fault,
        "promise": promise,
        "measured": measured,
        "numbers": numbers,
        "at": datetime.now().isoformat(timespec="seconds"),
    }
    (MEASUREMENTS / f"{item}.json").write_text(json.dumps(row, indent=2) + "\n")


class Stack:
    """The processes one test starts; all stopped (process groups) at the end."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.processes: list[LiveProcess] = []

    def _start(self, name: str, args: list[str], env: dict[str, str]) -> LiveProcess:
        (ARTIFACTS / f"{name}.log").unlink(missing_ok=True)
        process = LiveProcess(name, args, env)
        self.processes.append(process)
        return process

    def worker(
        self, name: str, *, env: dict[str, str] | None = None, beat: bool = False, wait: bool = True
    ) -> LiveProcess:
        hostname = f"{self.label}-{name}@test"
        args = [
            sys.executable,
            str(MANAGE),
            "worker",
            "--queues",
            "cpu",
            "--concurrency",
            "1",
            "--hostname",
            hostname,
        ]
        if beat:
            args.append("--beat")
        process = self._start(f"{self.label}-{name}", args, live_env(**(env or {})))
        process.hostname = hostname  # type: ignore[attr-defined]
        if wait:
            from jobs.models import WorkerNode

            wait_for(
                lambda: WorkerNode.objects.filter(hostname=hostname).exists() or not process.alive(),
                timeout=90,
                what=f"worker {hostname} to report in",
            )
            assert process.alive(), process.log()
        return process

    def housekeeping(self, *, env: dict[str, str] | None = None) -> LiveProcess:
        hostname = f"{self.label}-housekeeping@test"
        process = self._start(
            f"{self.label}-housekeeping",
            [sys.executable, str(MANAGE), "housekeeping", "--hostname", hostname],
            live_env(**(env or {})),
        )
        from jobs.models import WorkerNode

        wait_for(
            lambda: WorkerNode.objects.filter(hostname=hostname).exists() or not process.alive(),
            timeout=90,
            what="the housekeeping process to report in",
        )
        assert process.alive(), process.log()
        return process

    def web(self, *, env: dict[str, str] | None = None) -> tuple[str, LiveProcess]:
        process, url = start_web(f"{self.label}-web", live_env(**(env or {})), threads=4, start=self._start)
        return url, process

    def stop(self) -> None:
        for process in reversed(self.processes):
            with contextlib.suppress(Exception):
                process.stop()


def purge_broker() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("cpu", "gpu", "housekeeping"):
            with contextlib.suppress(Exception):
                conn.default_channel.queue_purge(queue)


def pool_children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(word) for word in out.split()]


def kill_group(process: LiveProcess, sig: int = signal.SIGKILL) -> None:
    os.killpg(process.proc.pid, sig)
    process.proc.wait(timeout=30)


def messages(job_id: int) -> list[str]:
    from jobs.models import JobEvent

    return list(
        JobEvent.objects.filter(job_id=job_id).exclude(type="progress").values_list("message", flat=True)
    )


def claims(job_id: int) -> int:
    from jobs.models import JobEvent

    return JobEvent.objects.filter(job_id=job_id, type="status", message__startswith="running on").count()


def first_event_at(job_id: int, *, startswith: str, after: datetime | None = None) -> datetime | None:
    from jobs.models import JobEvent

    qs = JobEvent.objects.filter(job_id=job_id, message__startswith=startswith)
    if after is not None:
        qs = qs.filter(at__gt=after)
    return qs.order_by("id").values_list("at", flat=True).first()


def wait_job(job_id: int, predicate, *, timeout: float, what: str):
    from jobs.models import Job

    def check():
        job = Job.objects.get(pk=job_id)
        return job if predicate(job) else None

    try:
        return wait_for(check, timeout=timeout, interval=0.2, what=what)
    except AssertionError as exc:
        job = Job.objects.get(pk=job_id)
        raise AssertionError(
            f"{exc}; job is {job.status} attempt {job.attempt} error {job.error!r}; events {messages(job_id)}"
        ) from None


def admin_connection() -> psycopg.Connection:
    """A connection to the `postgres` database, to change the test database from outside."""
    from django.db import connection

    settings = connection.settings_dict
    return psycopg.connect(
        dbname="postgres",
        user=settings.get("USER") or "postgres",
        password=settings.get("PASSWORD") or None,
        host=settings.get("HOST") or "127.0.0.1",
        port=settings.get("PORT") or 5432,
        autocommit=True,
    )


def terminate_backends(admin: psycopg.Connection, database: str) -> int:
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
        "AND pid <> pg_backend_pid()",
        [database],
    ).fetchall()
    return len(rows)


def now() -> float:
    return time.monotonic()


__all__ = [
    "REPO",
    "Path",
    "Stack",
    "admin_connection",
    "claims",
    "first_event_at",
    "kill_group",
    "messages",
    "now",
    "pool_children",
    "purge_broker",
    "record",
    "terminate_backends",
    "wait_job",
]
