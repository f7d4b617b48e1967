"""Runs a claimed job inside a Celery task: heartbeats, progress, cancellation, the outcome.

Tasks stay thin: ``run_job(job_id, body)`` where ``body(job, report) -> result dict`` imports the
compute plane lazily and calls it.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection

from jobs import services
from jobs.models import Job
from workers.progress import JobCancelled

logger = logging.getLogger("sampan.jobs")


class LeaseLost(Exception):
    """Another attempt owns the job now (the reaper requeued it); this one must stop quietly."""


def worker_identity() -> str:
    return f"{socket.gethostname()}/{os.getpid()}"


class JobReporter:
    """The ``report`` callable handed to compute functions, plus the heartbeat thread."""

    MIN_RECORD_INTERVAL = 0.5  # seconds between recorded points, except milestones

    def __init__(self, job: Job) -> None:
        self.job = job
        self._stop = threading.Event()
        self._cancelled = threading.Event()
        self._lost = threading.Event()
        self._last_record = 0.0
        self._last_check = time.monotonic()
        self._thread = threading.Thread(target=self._beat, name=f"job-{job.pk}-heartbeat", daemon=True)

    def __enter__(self) -> JobReporter:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _beat(self) -> None:
        interval = settings.SAMPAN_JOB_HEARTBEAT_SECONDS
        try:
            while not self._stop.wait(interval):
                held, cancel = services.job_heartbeat(job=self.job)
                if not held:
                    self._lost.set()
                if cancel:
                    self._cancelled.set()
        except Exception:  # a DB hiccup must not kill the job; the reaper judges liveness
            logger.exception("heartbeat of job %s failed", self.job.pk)
        finally:
            connection.close()

    def check(self) -> None:
        """Raise if the job should stop; polls the cancel flag at most once a second."""
        now = time.monotonic()
        if now - self._last_check >= 1.0:
            self._last_check = now
            if services.job_cancel_requested(job=self.job):
                self._cancelled.set()
        if self._lost.is_set():
            raise LeaseLost(f"job {self.job.pk} attempt {self.job.attempt} lost its lease")
        if self._cancelled.is_set():
            raise JobCancelled(f"job {self.job.pk} cancelled")

    def __call__(self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any) -> None:
        data = dict(metrics)
        if fraction is not None:
            data["fraction"] = max(0.0, min(1.0, float(fraction)))
        if message:
            data["message"] = message
        now = time.monotonic()
        record = milestone or now - self._last_record >= self.MIN_RECORD_INTERVAL
        if record:
            self._last_record = now
        if not services.job_report_progress(job=self.job, data=data, message=message, record=record):
            self._lost.set()
        self.check()


def run_job(job_id: int, body: Callable[[Job, JobReporter], dict]) -> None:
    close_old_connections()
    worker = worker_identity()
    job = services.job_claim(job_id=job_id, worker=worker)
    if job is None:
        logger.info("job %s not claimed by %s (duplicate delivery or finished)", job_id, worker)
        return
    logger.info("job %s (%s) attempt %s started on %s", job.pk, job.kind, job.attempt, worker)
    try:
        with JobReporter(job) as reporter:
            reporter.check()
            result = body(job, reporter)
    except JobCancelled:
        services.job_mark_cancelled(job=job)
    except LeaseLost:
        logger.warning("job %s attempt %s lost its lease; leaving it to the current attempt", job.pk, job.attempt)
    except Exception as exc:
        logger.error("job %s failed:\n%s", job.pk, traceback.format_exc())
        services.job_fail(job=job, error=f"{type(exc).__name__}: {exc}"[:4000])
    else:
        services.job_succeed(job=job, result=result)
    finally:
        close_old_connections()
