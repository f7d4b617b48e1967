"""Fair queues: the database is the scheduler, Celery the transport.

A queued job's message is sent to the broker only when a worker slot of its queue is free (the
live WorkerNode rows' concurrency, plus a look-ahead of one message so a worker finishing a job
never idles) and its workspace is under its limits (jobs.WorkspaceLimits). Which queued job gets a
free slot: the highest priority class first (JobKind.priority), then the workspace with the fewest
jobs in flight, then the oldest (SAMPAN_JOB_SCHEDULING=fair); or simply the oldest
(SAMPAN_JOB_SCHEDULING=fifo, the benchmark's baseline).

``jobs_dispatch`` runs when a job is queued (on commit), when one ends (on commit), in every worker's
heartbeat thread and in the reaper, under a PostgreSQL advisory lock so two dispatchers never
hand out the same slot. A job is marked published (``published_at``) before its message is sent;
a send the broker refuses clears the mark again, and the next dispatch retries it. A duplicate
delivery stays harmless: claiming a job is a conditional UPDATE (jobs.services.job_claim).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from jobs import registry
from jobs.models import Job, JobStatus, WorkspaceLimits

logger = logging.getLogger("sampan.jobs")

# Messages sent beyond the free slots of a queue, so a worker finishing a job finds the next one in
# the broker at once instead of waiting for the dispatch its finish triggers.
LOOK_AHEAD = 1
GPU_QUEUE = "gpu"
_LOCK_KEY = 0x5A3A_F417  # pg_advisory_xact_lock key of the dispatcher


class LimitState(TypedDict):
    scope: str  # "jobs" | "gpu_jobs"
    running: int
    limit: int


@dataclass(frozen=True)
class Limits:
    max_jobs: int  # 0: unlimited
    max_gpu_jobs: int


def effective_limits(max_jobs: int | None, max_gpu_jobs: int | None) -> Limits:
    """A workspace's own limits (None: not set) with the installation's defaults filled in."""
    return Limits(
        max_jobs=settings.SAMPAN_WORKSPACE_MAX_JOBS if max_jobs is None else max_jobs,
        max_gpu_jobs=settings.SAMPAN_WORKSPACE_MAX_GPU_JOBS if max_gpu_jobs is None else max_gpu_jobs,
    )


def limits_of(workspace_ids) -> dict[int, Limits]:
    """Each workspace's effective limits: its own row's values, else the installation's defaults."""
    own = {
        row.workspace_id: row for row in WorkspaceLimits.objects.filter(workspace_id__in=set(workspace_ids))
    }
    out: dict[int, Limits] = {}
    for workspace_id in set(workspace_ids):
        row = own.get(workspace_id)
        out[workspace_id] = effective_limits(row.max_jobs if row else None, row.max_gpu_jobs if row else None)
    return out


def _in_flight() -> Q:
    """Jobs holding a slot: running, or queued with their message sent."""
    return Q(status=JobStatus.RUNNING) | Q(status=JobStatus.QUEUED, published_at__isnull=False)


def workspace_usage(workspace_ids) -> dict[int, tuple[int, int]]:
    """(jobs in flight, of them on the gpu queue) per workspace (jobs.selectors.queue_states counts
    the same within its one read of the queues)."""
    rows = (
        Job.objects.filter(_in_flight(), workspace_id__in=set(workspace_ids))
        .values("workspace_id")
        .annotate(total=Count("id"), gpu=Count("id", filter=Q(queue=GPU_QUEUE)))
    )
    usage = {workspace_id: (0, 0) for workspace_id in set(workspace_ids)}
    for row in rows:
        usage[row["workspace_id"]] = (row["total"], row["gpu"])
    return usage


def over_limit(limits: Limits, usage: tuple[int, int], queue: str) -> LimitState | None:
    """The limit a job of ``queue`` would break by starting now, or None."""
    running, gpu = usage
    if limits.max_jobs and running >= limits.max_jobs:
        return {"scope": "jobs", "running": running, "limit": limits.max_jobs}
    if queue == GPU_QUEUE and limits.max_gpu_jobs and gpu >= limits.max_gpu_jobs:
        return {"scope": "gpu_jobs", "running": gpu, "limit": limits.max_gpu_jobs}
    return None


def _queue_budgets() -> dict[str, int]:
    """Messages each queue may take now: its live workers' slots plus the look-ahead, less the jobs
    they run and the messages already waiting in it. A queue no live worker consumes gets none: its
    jobs wait in the database until a worker reports in (its heartbeat dispatches)."""
    from jobs.services import workers_alive

    nodes = [(node.hostname, list(node.queues or []), max(1, node.concurrency)) for node in workers_alive()]
    if not nodes:
        return {}
    hostnames = [hostname for hostname, _, _ in nodes]
    running_on = dict(
        Job.objects.filter(status=JobStatus.RUNNING, lease_node__in=hostnames)
        .values_list("lease_node")
        .annotate(n=Count("id"))
        .values_list("lease_node", "n")
    )
    waiting = dict(
        Job.objects.filter(status=JobStatus.QUEUED, published_at__isnull=False)
        .values_list("queue")
        .annotate(n=Count("id"))
        .values_list("queue", "n")
    )
    budgets: dict[str, int] = {}
    for queue in {queue for _, queues, _ in nodes for queue in queues}:
        serving = [(hostname, slots) for hostname, queues, slots in nodes if queue in queues]
        slots = sum(slots for _, slots in serving)
        busy = sum(running_on.get(hostname, 0) for hostname, _ in serving)
        budgets[queue] = slots + LOOK_AHEAD - busy - waiting.get(queue, 0)
    return budgets


@dataclass
class _Candidate:
    id: int
    workspace_id: int
    queue: str
    kind: str
    priority: int
    enqueued_at: datetime


def _choose(now: datetime) -> list[_Candidate]:
    budgets = {queue: n for queue, n in _queue_budgets().items() if n > 0}
    if not budgets:
        return []
    rows = Job.objects.filter(
        status=JobStatus.QUEUED,
        published_at__isnull=True,
        enqueued_at__isnull=False,
        cancel_requested=False,
        queue__in=list(budgets),
    ).values_list("id", "workspace_id", "queue", "kind", "enqueued_at")
    candidates = []
    for job_id, workspace_id, queue, kind, enqueued_at in rows:
        job_kind = registry.get(kind)
        priority = job_kind.priority if job_kind is not None else registry.PRIORITY_INTERACTIVE
        candidates.append(_Candidate(job_id, workspace_id, queue, kind, priority, enqueued_at or now))
    if not candidates:
        return []
    workspaces = {c.workspace_id for c in candidates}
    limits = limits_of(workspaces)
    usage = workspace_usage(workspaces)
    fair = settings.SAMPAN_JOB_SCHEDULING == "fair"

    def order(c: _Candidate):
        if fair:
            return (-c.priority, usage[c.workspace_id][0], c.enqueued_at, c.id)
        return (c.enqueued_at, c.id)

    candidates.sort(key=order)
    chosen: list[_Candidate] = []
    while candidates and any(n > 0 for n in budgets.values()):
        pick = next(
            (
                c
                for c in candidates
                if budgets.get(c.queue, 0) > 0
                and over_limit(limits[c.workspace_id], usage[c.workspace_id], c.queue) is None
            ),
            None,
        )
        if pick is None:
            break
        chosen.append(pick)
        candidates.remove(pick)
        budgets[pick.queue] -= 1
        total, gpu = usage[pick.workspace_id]
        usage[pick.workspace_id] = (total + 1, gpu + (pick.queue == GPU_QUEUE))
        if fair:  # the picked workspace's share grew: its next jobs move back
            candidates.sort(key=order)
    return chosen


def _lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])


def jobs_dispatch() -> list[int]:
    """Send the messages of the queued jobs that may start now; returns their ids.

    Call it outside a transaction (from ``transaction.on_commit``): the messages are sent after the
    choice is committed."""
    from jobs.services import _send_or_log

    now = timezone.now()
    with transaction.atomic():
        _lock()
        chosen = [
            c
            for c in _choose(now)
            if Job.objects.filter(
                pk=c.id, status=JobStatus.QUEUED, published_at__isnull=True, cancel_requested=False
            ).update(published_at=now)
        ]
    sent: list[int] = []
    for index, c in enumerate(chosen):
        if not _send_or_log(c.id, kind=c.kind, queue=c.queue):
            # the broker is down: unmark the rest, the next dispatch retries them
            Job.objects.filter(pk__in=[x.id for x in chosen[index:]], published_at=now).update(
                published_at=None
            )
            break
        sent.append(c.id)
    return sent


def dispatch_on_commit() -> None:
    """Dispatch once the current transaction commits (at once outside one)."""
    transaction.on_commit(_dispatch_quietly)


def _dispatch_quietly() -> None:
    try:
        jobs_dispatch()
    except Exception:  # a committed job must never turn into a 500; the next dispatch picks it up
        logger.exception("job dispatch failed")


def celery_priority(kind: registry.JobKind) -> int:
    """The message priority of the kind's jobs on the Redis transport (0 is served first there;
    kombu's default steps 0, 3, 6, 9): interactive 0, AutoML 3, batch 6, background 9."""
    return max(0, min(9, (registry.PRIORITY_INTERACTIVE - kind.priority) * 3 // 10))
