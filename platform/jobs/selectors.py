from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, TypedDict

from django.db.models import BooleanField, Case, Exists, OuterRef, Q, QuerySet, Subquery, Value, When
from django.utils import timezone
from workspaces.models import CONTENT_ROLES, Membership
from workspaces.selectors import scoped_to_member

from jobs.models import FINISHED, Job, JobEvent, JobLogLine, WorkerNode, WorkspaceLimits
from jobs.scheduling import GPU_QUEUE, Limits, LimitState, effective_limits, over_limit
from jobs.services import WORKER_ALIVE_SECONDS

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class WorkerBeat(TypedDict):
    alive: bool


def jobs_for(*, user) -> QuerySet[Job]:
    """The user's jobs, each with ``my_role``: the user's role in the job's workspace."""
    role = Membership.objects.filter(workspace=OuterRef("workspace"), user=user).values("role")[:1]
    return scoped_to_member(Job.objects.select_related("created_by"), user=user).annotate(
        my_role=Subquery(role)
    )


def roles_in(*, user, workspace_ids) -> dict[int, str]:
    """The user's role in each of ``workspace_ids`` (one query)."""
    if user is None or not user.is_authenticated:
        return {}
    return dict(
        Membership.objects.filter(user=user, workspace_id__in=set(workspace_ids)).values_list(
            "workspace_id", "role"
        )
    )


def events_of(*, job: Job, type: str | None = None, after: int | None = None) -> QuerySet[JobEvent]:
    qs = JobEvent.objects.filter(job=job)
    if type:
        qs = qs.filter(type=type)
    if after is not None:
        qs = qs.filter(id__gt=after)
    return qs.order_by("id")


LOG_PAGE_MAX = 1000


class LogPage(TypedDict):
    lines: list[dict[str, object]]
    next_after: int
    finished: bool


def log_lines_of(*, job: Job, after: int = 0, limit: int = LOG_PAGE_MAX) -> LogPage:
    """The job's output lines with ``seq > after``, in order, at most ``limit`` (1..1000); follow with
    ``after=next_after``. ``finished``: the job is in a final state and this page reached its last
    line, so nothing more will come.

    e.g. ``log_lines_of(job=j, after=0, limit=2)`` -> ``{"lines": [{seq: 1, ...}, {seq: 2, ...}],
    "next_after": 2, "finished": False}``
    """
    limit = max(1, min(limit, LOG_PAGE_MAX))
    # read the status first: a line written after a final status cannot exist, so an empty tail
    # read after it is really the end
    final = Job.objects.filter(pk=job.pk, status__in=FINISHED).exists()
    rows = list(
        JobLogLine.objects.filter(job=job, seq__gt=after)
        .order_by("seq")
        .values("seq", "stream", "text", "at")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    lines: list[dict[str, object]] = [
        {"seq": r["seq"], "stream": r["stream"], "text": r["text"], "at": r["at"].isoformat()} for r in rows
    ]
    return {
        "lines": lines,
        "next_after": rows[-1]["seq"] if rows else after,
        "finished": final and not more,
    }


def artifact_key_of(*, job: Job, path: str) -> str | None:
    """The blob key of the artifact ``path`` the job's result lists (a custom run's ``log_artifact``
    files, kept under ``custom-jobs/job-<id>/``), or None."""
    result = job.result if isinstance(job.result, dict) else {}
    for artifact in result.get("artifacts") or []:
        if not isinstance(artifact, dict) or artifact.get("path") != path:
            continue
        key = artifact.get("key")
        if isinstance(key, str) and key.startswith(f"custom-jobs/job-{job.pk}/"):
            return key
    return None


def worker_nodes() -> QuerySet[WithAnnotations[WorkerNode, WorkerBeat]]:
    """Workers seen within the last 10 minutes, each marked alive when it beat recently."""
    now = timezone.now()
    return WorkerNode.objects.filter(last_seen__gte=now - timedelta(minutes=10)).annotate(
        alive=Case(
            When(last_seen__gte=now - timedelta(seconds=WORKER_ALIVE_SECONDS), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        )
    )


# --- why a queued job waits ---------------------------------------------------------------------


class BusyWith(TypedDict):
    worker: str
    job_id: int | None  # None: a job of a workspace the caller is not a member of
    kind: str


class QueueState(TypedDict):
    queue: str
    position: int  # 1 = the next one a worker takes from this queue
    ahead: int
    reason: str  # "no_worker" | "workspace_limit" | "workers_busy" | "next"
    workers: int
    slots: int
    busy_with: list[BusyWith]
    workspace_limit: LimitState | None  # the workspace's limit it waits for (jobs.scheduling)


def queue_states(jobs: list[Job], *, user=None) -> dict[int, QueueState]:
    """Why each queued job of ``jobs`` waits: its place in its queue (queued jobs in the order the
    workers take them: the order their messages were sent, ``enqueued_at``), the live workers
    consuming that queue, what those workers are busy with, and the workspace's limit when the job
    waits for it (reason ``workspace_limit``: the workspace runs as many jobs as an administrator
    allows it). Two queries for any number of jobs, none when no job is queued.

    e.g. ``queue_states([job])[job.pk]["reason"]`` -> ``"no_worker"``
    """
    from jobs.models import JobStatus

    waiting = [job for job in jobs if job.status == JobStatus.QUEUED]
    if not waiting:
        return {}
    queues = {job.queue for job in waiting}
    alive = [
        (node.hostname, list(node.queues or []), max(1, node.concurrency))
        for node in worker_nodes().filter(alive=True)
    ]
    hostnames = [hostname for hostname, _, _ in alive]
    workspaces = {job.workspace_id for job in waiting}
    own_limits = WorkspaceLimits.objects.filter(workspace=OuterRef("workspace"))
    rows = (
        Job.objects.filter(
            Q(status=JobStatus.QUEUED, queue__in=queues)
            | Q(status=JobStatus.RUNNING, lease_node__in=hostnames)
            # what the waiting jobs' workspaces run (their limits): jobs_in_flight
            | Q(workspace_id__in=workspaces, status=JobStatus.RUNNING)
            | Q(workspace_id__in=workspaces, status=JobStatus.QUEUED, published_at__isnull=False)
        )
        .annotate(
            visible=Exists(
                Membership.objects.filter(workspace=OuterRef("workspace"), user=user, role__in=CONTENT_ROLES)
            )
            if user is not None and user.is_authenticated
            else Value(False),
            # the workspace's own limits (every waiting job is a row here: its limits come with it)
            own_max_jobs=Subquery(own_limits.values("max_jobs")[:1]),
            own_max_gpu_jobs=Subquery(own_limits.values("max_gpu_jobs")[:1]),
        )
        .order_by("enqueued_at", "id")
        .values_list(
            "id",
            "status",
            "queue",
            "lease_node",
            "kind",
            "visible",
            "workspace_id",
            "published_at",
            "own_max_jobs",
            "own_max_gpu_jobs",
        )
    )
    line: dict[str, list[int]] = {queue: [] for queue in queues}
    running: dict[str, list[BusyWith]] = {hostname: [] for hostname in hostnames}
    usage = {workspace_id: (0, 0) for workspace_id in workspaces}
    limits: dict[int, Limits] = {}
    for job_id, status, queue, node, kind, visible, workspace_id, published_at, max_jobs, max_gpu in rows:
        if workspace_id in usage and workspace_id not in limits:
            limits[workspace_id] = effective_limits(max_jobs, max_gpu)
        if workspace_id in usage and (status == JobStatus.RUNNING or published_at is not None):
            total, gpu = usage[workspace_id]
            usage[workspace_id] = (total + 1, gpu + (queue == GPU_QUEUE))
        if status == JobStatus.QUEUED:
            if queue in line:
                line[queue].append(job_id)
        elif node in running:
            running[node].append({"worker": node, "job_id": job_id if visible else None, "kind": kind})
    states: dict[int, QueueState] = {}
    for job in waiting:
        limited = over_limit(
            limits.get(job.workspace_id) or effective_limits(None, None), usage[job.workspace_id], job.queue
        )
        serving = [(hostname, slots) for hostname, consumed, slots in alive if job.queue in consumed]
        order = line[job.queue]
        ahead = order.index(job.pk) if job.pk in order else 0
        slots = sum(n for _, n in serving)
        busy = [entry for hostname, _ in serving for entry in running[hostname]]
        if not serving:
            reason = "no_worker"
        elif limited is not None:
            reason = "workspace_limit"
        elif ahead < slots - len(busy):
            reason = "next"
        else:
            reason = "workers_busy"
        states[job.pk] = {
            "queue": job.queue,
            "position": ahead + 1,
            "ahead": ahead,
            "reason": reason,
            "workers": len(serving),
            "slots": slots,
            "busy_with": busy,
            "workspace_limit": limited,
        }
    return states
