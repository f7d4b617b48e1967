"""Row builders for jobs: job rows (not enqueued: nothing runs them unless a test does) and their
events."""

from __future__ import annotations

import itertools

_serial = itertools.count(1)


def job(project, *, kind: str = "system.check", params: dict | None = None, created_by="owner", **fields):
    """A job row of ``kind`` in ``project``'s workspace; ``created_by`` defaults to the project's creator
    (``None`` for none)."""
    from jobs.models import Job

    if created_by == "owner":
        created_by = project.created_by
    return Job.objects.create(
        workspace=project.workspace,
        project=project,
        kind=kind,
        params={"seconds": 1} if params is None else params,
        created_by=created_by,
        **fields,
    )


def job_event(job, *, type: str = "progress", message: str = "", data: dict | None = None):
    from jobs.models import JobEvent

    return JobEvent.objects.create(job=job, type=type, message=message, data=data or {})


def worker_node(hostname: str | None = None, *, queues: tuple[str, ...] = ("cpu",), **fields):
    """A worker host that reported in just now."""
    from django.utils import timezone
    from jobs.models import WorkerNode

    now = timezone.now()
    return WorkerNode.objects.create(
        hostname=hostname or f"worker-{next(_serial)}@test",
        queues=list(queues),
        started_at=now,
        last_seen=now,
        **fields,
    )
