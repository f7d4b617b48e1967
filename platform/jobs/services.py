"""Writes for jobs. Every state change is a conditional UPDATE on the row, so two workers (or a
worker and the reaper) can never both win: a duplicate delivery, a zombie worker or a late
heartbeat finds the row no longer matching and does nothing."""

from __future__ import annotations

import logging
import os
import socket
from datetime import timedelta
from typing import Any

from config.exceptions import Conflict, field_error
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from jobs import registry
from jobs.models import FINISHED, Job, JobEvent, JobEventType, JobStatus, WorkerNode
from workers.contracts.jobs import job_event_data

logger = logging.getLogger("sampan.jobs")

# A worker host beats every worker_heartbeat.BEAT_SECONDS; three missed beats and it counts as gone.
WORKER_ALIVE_SECONDS = 10


class JobConflict(Conflict):
    default_code = "job_conflict"


def _event(job_id: int, type: str, message: str, data: dict | None = None) -> None:
    JobEvent.objects.create(job_id=job_id, type=type, message=message[:500], data=job_event_data(type, data))


def _send(job_id: int, *, kind: str, queue: str) -> None:
    """Publish the job's message. Only ever called from transaction.on_commit (or outside one)."""
    from config.celery import app

    job_kind = registry.get(kind)
    if job_kind is None:
        raise LookupError(f"no job kind {kind!r} is registered")
    from jobs.scheduling import celery_priority

    app.send_task(
        job_kind.task_name, args=[job_id], queue=queue, routing_key=queue, priority=celery_priority(job_kind)
    )


def _send_or_log(job_id: int, *, kind: str, queue: str) -> bool:
    """Send the job's message; a broker that refuses is logged, never raised (the committed job must
    not turn into a 500): False, and a later dispatch or the reaper sends it again."""
    try:
        _send(job_id, kind=kind, queue=queue)
    except Exception as exc:  # the broker is down or unreachable
        logger.warning(
            "job %s: broker refused the message (%s: %s); it is re-sent when the broker is back",
            job_id,
            type(exc).__name__,
            exc,
        )
        return False
    return True


def _publish(job_id: int, *, kind: str, queue: str) -> bool:
    """Publish and record it (``_send_or_log``)."""
    if not _send_or_log(job_id, kind=kind, queue=queue):
        return False
    Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(published_at=timezone.now())
    return True


def _enqueue_on_commit(job: Job) -> None:
    """Once the transaction commits, let the scheduler send the messages of the jobs that may start
    (jobs.scheduling: a free worker slot, the workspace under its limits, fair order)."""
    from jobs.scheduling import dispatch_on_commit

    dispatch_on_commit()


def choose_queue(kind: registry.JobKind) -> str:
    """`gpu` when the kind can use one and a live worker consumes that queue; `cpu` otherwise."""
    if kind.prefers_gpu and any("gpu" in node.queues for node in workers_alive()):
        return "gpu"
    return "cpu"


@transaction.atomic
def job_create(
    *,
    workspace,
    kind: str,
    params: dict,
    user=None,
    project=None,
    max_attempts: int | None = None,
    queue: str | None = None,
) -> Job:
    """Record a job and enqueue it once the transaction commits, on ``queue`` (None: the kind's
    choice, ``choose_queue``; a custom job names its own).

    e.g. ``job_create(workspace=ws, kind="system.check", params={"seconds": 2}, user=u)``
    """
    job_kind = registry.get(kind)
    if job_kind is None:
        raise field_error("kind", f"Unknown job kind {kind!r}.")
    job = Job.objects.create(
        workspace=workspace,
        project=project,
        kind=kind,
        params=params,
        queue=queue or choose_queue(job_kind),
        max_attempts=max_attempts or settings.SAMPAN_JOB_MAX_ATTEMPTS,
        created_by=user if user is not None and user.is_authenticated else None,
        enqueued_at=timezone.now(),
    )
    _event(job.pk, JobEventType.STATUS, f"queued on {job.queue}", {"status": JobStatus.QUEUED})
    _enqueue_on_commit(job)
    return job


def _lease_of_dead_local_process(lease_owner: str) -> bool:
    """True when ``lease_owner`` (host/pid) is a process of this host that no longer exists: a pool
    child killed by the OOM killer or SIGKILL, whose message Celery redelivered at once."""
    host, _, pid = lease_owner.rpartition("/")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # exists, owned by someone else
        return False
    return _is_zombie(int(pid))


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def job_claim(*, job_id: int, worker: str, node: str = "") -> Job | None:
    """Take a queued job for ``worker``; None when someone else has it or it is finished/cancelled.

    A running job whose lease owner is a dead process on this host is taken over at once (that
    attempt is spent: its process died) instead of waiting for the reaper's stale timeout.
    """
    now = timezone.now()
    fields = {
        "status": JobStatus.RUNNING,
        "attempt": F("attempt") + 1,
        "lease_owner": worker,
        "lease_node": node,
        "heartbeat_at": now,
        "started_at": now,
        "preempt_requested": False,
    }
    claimed = Job.objects.filter(pk=job_id, status=JobStatus.QUEUED, cancel_requested=False).update(**fields)
    took_over = ""
    if claimed != 1:
        row = (
            Job.objects.filter(pk=job_id)
            .values("status", "lease_owner", "attempt", "max_attempts", "cancel_requested")
            .first()
        )
        if row is None:
            return None
        if row["status"] == JobStatus.RUNNING and row["lease_owner"] == worker:
            # our own claim committed but its answer was lost with the connection (the runner retried)
            return Job.objects.get(pk=job_id)
        if (
            row["status"] == JobStatus.RUNNING
            and not row["cancel_requested"]
            and row["attempt"] < row["max_attempts"]
            and _lease_of_dead_local_process(row["lease_owner"])
        ):
            claimed = Job.objects.filter(
                pk=job_id, status=JobStatus.RUNNING, lease_owner=row["lease_owner"], attempt=row["attempt"]
            ).update(**fields)
            took_over = row["lease_owner"]
        if claimed != 1:
            _event(
                job_id,
                JobEventType.LOG,
                f"delivery to {worker} ignored: job is {row['status']}",
                {"worker": worker},
            )
            return None
    job = Job.objects.get(pk=job_id)
    if took_over:
        _event(
            job_id,
            JobEventType.LOG,
            f"took over from {took_over}: that process is gone (killed)",
            {"worker": worker, "previous": took_over},
        )
    _event(
        job_id,
        JobEventType.STATUS,
        f"running on {worker} (attempt {job.attempt} of {job.max_attempts})",
        {"status": JobStatus.RUNNING, "attempt": job.attempt, "worker": worker},
    )
    return job


def _held(job: Job):
    return Job.objects.filter(
        pk=job.pk, status=JobStatus.RUNNING, lease_owner=job.lease_owner, attempt=job.attempt
    )


def job_heartbeat(*, job: Job) -> tuple[bool, bool, bool]:
    """Refresh the lease. Returns (still_held, cancel_requested, preempt_requested)."""
    held = _held(job).update(heartbeat_at=timezone.now())
    if held != 1:
        return False, False, False
    cancel, preempt = job_stop_requests(job=job)
    return True, cancel, preempt


def job_stop_requests(*, job: Job) -> tuple[bool, bool]:
    """(cancel_requested, preempt_requested) of the job now."""
    row = Job.objects.filter(pk=job.pk).values_list("cancel_requested", "preempt_requested").first()
    return (bool(row[0]), bool(row[1])) if row else (False, False)


def job_report_progress(*, job: Job, data: dict[str, Any], message: str = "", record: bool = True) -> bool:
    """Store the latest progress (and, when ``record``, append it to the series)."""
    held = _held(job).update(progress=data, heartbeat_at=timezone.now())
    if held == 1 and record:
        _event(job.pk, JobEventType.PROGRESS, message, data)
    return held == 1


def _finish(job: Job, status: str, *, message: str, **fields) -> bool:
    with transaction.atomic():
        done = _held(job).update(status=status, finished_at=timezone.now(), **fields)
        if done == 1:
            _event(job.pk, JobEventType.STATUS, message, {"status": status, "attempt": job.attempt})
            _enqueue_on_commit(job)  # its slot is free: the next queued job may start
    return done == 1


def job_succeed(*, job: Job, result: dict) -> bool:
    return _finish(job, JobStatus.SUCCEEDED, message="succeeded", result=result, error="")


def job_fail(*, job: Job, error: str) -> bool:
    return _finish(job, JobStatus.FAILED, message=f"failed: {error}"[:500], error=error)


def job_mark_cancelled(*, job: Job) -> bool:
    return _finish(job, JobStatus.CANCELLED, message="cancelled while running")


def job_hand_back(*, job: Job, reason: str) -> bool:
    """Requeue a running job at once without spending its attempt (its worker is shutting down and
    the job has checkpointed); another worker resumes it."""
    with transaction.atomic():
        done = _held(job).update(
            status=JobStatus.QUEUED,
            attempt=F("attempt") - 1,
            lease_owner="",
            lease_node="",
            preempt_requested=False,
            enqueued_at=timezone.now(),
            published_at=None,
        )
        if done == 1:
            _event(
                job.pk,
                JobEventType.STATUS,
                f"requeued: {reason} (attempt not counted)",
                {"status": JobStatus.QUEUED, "attempt": job.attempt - 1},
            )
            _enqueue_on_commit(job)
    return done == 1


def jobs_preempt_on(*, node: str) -> list[int]:
    """Ask every job running in worker ``node``'s pool to checkpoint and hand itself back."""
    kinds = [kind.name for kind in registry.all_kinds() if kind.preemptible]
    ids = list(
        Job.objects.filter(status=JobStatus.RUNNING, lease_node=node, kind__in=kinds).values_list(
            "pk", flat=True
        )
    )
    if ids:
        Job.objects.filter(pk__in=ids, status=JobStatus.RUNNING).update(preempt_requested=True)
        for job_id in ids:
            _event(job_id, JobEventType.LOG, f"worker {node} is shutting down: checkpoint and hand back")
    return ids


RETRY_STATUSES = frozenset({JobStatus.FAILED, JobStatus.CANCELLED})


@transaction.atomic
def job_retry(*, job: Job) -> Job:
    """Queue a failed (or cancelled) job again, with fresh attempts; a training resumes from the last
    complete checkpoint in its run directory, which the same job keeps."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    kind = registry.get(job.kind)
    if kind is None or not kind.retryable:
        raise JobConflict(f"Job {job.pk} ({job.kind}) cannot be retried; start a new one instead.")
    if job.status not in RETRY_STATUSES:
        raise JobConflict(f"Job {job.pk} is {job.status}; only a failed or cancelled job can be retried.")
    previous = job.status
    job.status = JobStatus.QUEUED
    job.attempt = 0
    job.cancel_requested = job.preempt_requested = False
    job.lease_owner = job.lease_node = ""
    job.error = ""
    job.result = None
    job.finished_at = None
    job.enqueued_at = timezone.now()
    job.published_at = None
    job.save(
        update_fields=[
            "status",
            "attempt",
            "cancel_requested",
            "preempt_requested",
            "lease_owner",
            "lease_node",
            "error",
            "result",
            "finished_at",
            "enqueued_at",
            "published_at",
        ]
    )
    _event(
        job.pk,
        JobEventType.STATUS,
        f"retry requested (was {previous}); queued on {job.queue}",
        {"status": JobStatus.QUEUED},
    )
    _enqueue_on_commit(job)
    return job


@transaction.atomic
def job_cancel(*, job: Job) -> Job:
    """Cancel a job: a queued job stops at once; a running one is asked to stop and its worker
    ends it within a heartbeat (keeping whatever checkpoint it wrote)."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    if job.status in FINISHED:
        raise JobConflict(f"Job {job.pk} already {job.status}; there is nothing to cancel.")
    if job.status == JobStatus.QUEUED:
        job.status = JobStatus.CANCELLED
        job.cancel_requested = True
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "cancel_requested", "finished_at"])
        _event(job.pk, JobEventType.STATUS, "cancelled before it started", {"status": JobStatus.CANCELLED})
        if job.published_at is not None:  # it held a slot
            _enqueue_on_commit(job)
    elif not job.cancel_requested:
        job.cancel_requested = True
        job.save(update_fields=["cancel_requested"])
        _event(job.pk, JobEventType.LOG, "cancel requested")
    return job


def jobs_reap_stale(*, now=None) -> dict[str, list[int]]:
    """Requeue running jobs whose worker went silent; fail them once attempts are used up.

    Also re-sends the message of jobs queued for very long (a broker that lost it); duplicates
    are harmless because claiming is conditional.
    """
    now = now or timezone.now()
    stale = timedelta(seconds=settings.SAMPAN_JOB_STALE_SECONDS)
    outcome: dict[str, list[int]] = {"requeued": [], "failed": [], "cancelled": [], "resent": []}
    for job_id in Job.objects.filter(status=JobStatus.RUNNING, heartbeat_at__lt=now - stale).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            job = (
                Job.objects.select_for_update()
                .filter(pk=job_id, status=JobStatus.RUNNING, heartbeat_at__lt=now - stale)
                .first()
            )
            if job is None:
                continue
            silent = int((now - job.heartbeat_at).total_seconds())
            lost = (
                f"worker {job.lease_owner or '?'} lost: no heartbeat for {silent}s "
                f"on attempt {job.attempt} of {job.max_attempts}"
            )
            if job.cancel_requested:
                job.status, key, message = JobStatus.CANCELLED, "cancelled", f"cancelled ({lost})"
            elif job.attempt >= job.max_attempts:
                job.status, key = JobStatus.FAILED, "failed"
                job.error = message = f"{lost}; gave up after {job.max_attempts} attempts"
            else:
                job.status, key, message = JobStatus.QUEUED, "requeued", f"requeued ({lost})"
            job.lease_owner = job.lease_node = ""
            job.preempt_requested = False
            if job.status == JobStatus.QUEUED:
                job.enqueued_at = now
                job.published_at = None
                _enqueue_on_commit(job)
            else:
                job.finished_at = now
            job.save(
                update_fields=[
                    "status",
                    "lease_owner",
                    "lease_node",
                    "preempt_requested",
                    "error",
                    "enqueued_at",
                    "published_at",
                    "finished_at",
                ]
            )
            _event(job.pk, JobEventType.STATUS, message, {"status": job.status, "attempt": job.attempt})
            outcome[key].append(job.pk)
            logger.warning("reaper: job %s %s", job.pk, message)
    # published so long ago that the broker lost it (it holds its slot: send it again)
    lost_messages = Job.objects.filter(status=JobStatus.QUEUED, published_at__lt=now - 10 * stale)
    for job in lost_messages:
        if Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED, published_at=job.published_at).update(
            published_at=now
        ) and _publish(job.pk, kind=job.kind, queue=job.queue):
            outcome["resent"].append(job.pk)
    # never published (no free slot yet, or the broker refused it): the scheduler sends those that
    # may start now
    from jobs.scheduling import jobs_dispatch

    outcome["resent"].extend(jobs_dispatch())
    return outcome


# --- worker hosts -----------------------------------------------------------------------------


def workers_alive():
    return WorkerNode.objects.filter(last_seen__gte=timezone.now() - timedelta(seconds=WORKER_ALIVE_SECONDS))


def worker_node_beat(
    *, hostname: str, queues: list[str], devices: dict, concurrency: int, pid: int, started_at
) -> None:
    WorkerNode.objects.update_or_create(
        hostname=hostname,
        defaults={
            "queues": queues,
            "devices": devices,
            "concurrency": concurrency,
            "pid": pid,
            "started_at": started_at,
            "last_seen": timezone.now(),
        },
    )


def worker_node_gone(*, hostname: str) -> None:
    WorkerNode.objects.filter(hostname=hostname).delete()
