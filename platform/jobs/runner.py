"""Runs a claimed job inside a Celery task: heartbeats, progress, cancellation, the outcome.

Tasks stay thin: ``run_job(job_id, body)`` where ``body(job, report) -> result dict`` imports the
compute plane lazily and calls it.

The database may blip while a job runs (a failover, a restart, terminated backends). Every write
the runner makes (heartbeat, progress, the outcome) reconnects and retries with backoff, so a job
whose worker is alive never spends an attempt on a database outage: the outage costs its duration.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from config.exceptions import DomainError
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection

from jobs import services
from jobs.models import Job
from workers.contracts.job_kinds import job_result
from workers.progress import JobCancelled, progress_event

logger = logging.getLogger("sampan.jobs")

DATABASE_ERRORS = (OperationalError, InterfaceError)
# How long a write keeps retrying through a database outage before the error is let through.
DATABASE_OUTAGE_LIMIT_SECONDS = 600.0
T = TypeVar("T")


class LeaseLost(Exception):
    """Another attempt owns the job now (the reaper requeued it); this one must stop quietly."""


class JobInputRejected(Exception):
    """The job's input is refused (a user's mistake its message names, e.g. an archive where no file
    is an image): the job fails with that message, logged in one line without a traceback."""


class JobPreempted(JobCancelled):
    """The worker is shutting down: stop as a cancel does (checkpoint first), and the job is handed
    back to the queue instead of ending. A subclass of ``JobCancelled`` so every trainer's cancel
    path (save a checkpoint, re-raise) runs unchanged."""


def worker_identity() -> str:
    return f"{socket.gethostname()}/{os.getpid()}"


def _drop_connection() -> None:
    """Forget this thread's connection; the next query opens a fresh one."""
    with contextlib.suppress(Exception):
        connection.close()
    connection.connection = None


def with_database_retry(
    what: str, write: Callable[[], T], *, limit: float = DATABASE_OUTAGE_LIMIT_SECONDS, max_delay: float = 2.0
) -> T:
    """Run ``write``; on a lost or refused connection reconnect and retry with backoff up to ``limit`` s."""
    started = time.monotonic()
    delay = 0.1
    while True:
        try:
            return write()
        except DATABASE_ERRORS as exc:
            _drop_connection()
            waited = time.monotonic() - started
            if waited >= limit:
                raise
            logger.warning(
                "%s: database unavailable for %.1fs (%s: %s); retrying",
                what,
                waited,
                type(exc).__name__,
                str(exc).strip()[:200],
            )
            time.sleep(delay)
            delay = min(delay * 2, max_delay)


def describe_failure(exc: BaseException) -> str:
    """The job's error text. A full disk anywhere in the chain is named as such, with the path,
    instead of the wrapper's message (torch reports it as an 'enforce fail' in inline_container)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            if current is exc:  # already says so (e.g. a checkpoint write names its file)
                return f"{type(exc).__name__}: {exc}"[:4000]
            where = f" while writing {current.filename}" if current.filename else ""
            return f"No space left on device{where} ({type(exc).__name__}: {exc})"[:4000]
        current = current.__cause__ or current.__context__
    message = f"{type(exc).__name__}: {exc}"
    if "No space left on device" in message or "file write failed" in message:
        return f"No space left on device (disk full?): {message}"[:4000]
    return message[:4000]


class JobReporter:
    """The ``report`` callable handed to compute functions, plus the heartbeat thread."""

    MIN_RECORD_INTERVAL = 0.5  # seconds between recorded points, except milestones

    def __init__(self, job: Job) -> None:
        self.job = job
        self._stop = threading.Event()
        self._cancelled = threading.Event()
        self._preempted = threading.Event()
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
                # each beat stands alone: an error (a database blip) skips one beat, never the rest
                try:
                    held, cancel, preempt = services.job_heartbeat(job=self.job)
                except DATABASE_ERRORS as exc:
                    _drop_connection()
                    logger.warning(
                        "heartbeat of job %s: database unavailable (%s); retrying",
                        self.job.pk,
                        type(exc).__name__,
                    )
                    self._stop.wait(min(interval, 0.5))
                    continue
                except Exception:
                    logger.exception("heartbeat of job %s failed; retrying", self.job.pk)
                    continue
                if not held:
                    self._lost.set()
                if cancel:
                    self._cancelled.set()
                if preempt:
                    self._preempted.set()
        finally:
            connection.close()

    def check(self) -> None:
        """Raise if the job should stop; polls the cancel/preempt flags at most once a second."""
        now = time.monotonic()
        if now - self._last_check >= 1.0:
            self._last_check = now
            try:
                cancel, preempt = services.job_stop_requests(job=self.job)
            except DATABASE_ERRORS:
                _drop_connection()  # the heartbeat thread keeps asking; this poll is only a shortcut
                cancel = preempt = False
            if cancel:
                self._cancelled.set()
            if preempt:
                self._preempted.set()
        if self._lost.is_set():
            raise LeaseLost(f"job {self.job.pk} attempt {self.job.attempt} lost its lease")
        if self._cancelled.is_set():
            raise JobCancelled(f"job {self.job.pk} cancelled")
        if self._preempted.is_set():
            raise JobPreempted(f"job {self.job.pk} handed back: its worker is shutting down")

    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        data = dict(progress_event(message, fraction=fraction, **metrics))
        now = time.monotonic()
        record = milestone or now - self._last_record >= self.MIN_RECORD_INTERVAL
        if record:
            self._last_record = now
        held = with_database_retry(
            f"progress of job {self.job.pk}",
            lambda: services.job_report_progress(job=self.job, data=data, message=message, record=record),
        )
        if not held:
            self._lost.set()
        self.check()


def _current_node() -> str:
    from celery import current_task

    request = getattr(current_task, "request", None)
    return str(getattr(request, "hostname", "") or "")


def run_job(job_id: int, body: Callable[[Job, JobReporter], dict]) -> None:
    close_old_connections()
    worker = worker_identity()
    job = with_database_retry(
        f"claim of job {job_id}",
        lambda: services.job_claim(job_id=job_id, worker=worker, node=_current_node()),
    )
    if job is None:
        logger.info("job %s not claimed by %s (duplicate delivery or finished)", job_id, worker)
        return
    logger.info("job %s (%s) attempt %s started on %s", job.pk, job.kind, job.attempt, worker)
    try:
        with JobReporter(job) as reporter:
            reporter.check()
            result = job_result(job.kind, body(job, reporter))
    except JobPreempted:
        with_database_retry(
            f"hand-back of job {job.pk}",
            lambda: services.job_hand_back(job=job, reason=f"worker {worker} shut down"),
        )
    except JobCancelled:
        with_database_retry(f"cancel of job {job.pk}", lambda: services.job_mark_cancelled(job=job))
    except LeaseLost:
        logger.warning(
            "job %s attempt %s lost its lease; leaving it to the current attempt", job.pk, job.attempt
        )
    except (JobInputRejected, DomainError) as exc:  # a refusal the message names: no traceback
        refusal = str(exc)[:4000]
        logger.info("job %s refused its input: %s", job.pk, refusal[:500])
        with_database_retry(f"failure of job {job.pk}", lambda: services.job_fail(job=job, error=refusal))
    except Exception as exc:
        logger.error("job %s failed:\n%s", job.pk, traceback.format_exc())
        error = describe_failure(exc)
        with_database_retry(f"failure of job {job.pk}", lambda: services.job_fail(job=job, error=error))
    else:
        with_database_retry(f"success of job {job.pk}", lambda: services.job_succeed(job=job, result=result))
    finally:
        close_old_connections()
