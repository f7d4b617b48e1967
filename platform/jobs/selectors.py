from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, TypedDict

from django.db.models import BooleanField, Case, QuerySet, Value, When
from django.utils import timezone
from workspaces.selectors import scoped_to_member

from jobs.models import Job, JobEvent, WorkerNode
from jobs.services import WORKER_ALIVE_SECONDS

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class WorkerBeat(TypedDict):
    alive: bool


def jobs_for(*, user) -> QuerySet[Job]:
    return scoped_to_member(Job.objects.select_related("created_by"), user=user)


def events_of(*, job: Job, type: str | None = None, after: int | None = None) -> QuerySet[JobEvent]:
    qs = JobEvent.objects.filter(job=job)
    if type:
        qs = qs.filter(type=type)
    if after is not None:
        qs = qs.filter(id__gt=after)
    return qs.order_by("id")


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
