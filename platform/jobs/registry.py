"""Job kinds: each app registers the kinds of background work it owns (in AppConfig.ready)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rest_framework import serializers

# Priority classes (higher runs first): the scheduler (jobs.scheduling) publishes a queued job of a
# higher class before any of a lower one, whatever its workspace; within a class it shares the
# workers fairly between workspaces. Interactive work (a training someone watches, a notebook, a
# check) first, then AutoML trials, then batch work (batch predictions, packages).
PRIORITY_INTERACTIVE = 30
PRIORITY_AUTOML = 20
PRIORITY_BATCH = 10
PRIORITY_BACKGROUND = 0


@dataclass(frozen=True)
class JobKind:
    name: str
    title: str
    description: str
    task_name: str
    params_serializer: type[serializers.Serializer]
    prefers_gpu: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)
    # Kinds started through their own endpoint (e.g. training through /training-jobs/) set the
    # endpoint here; POST /jobs/ refuses them so their domain checks cannot be skipped.
    start_endpoint: str | None = None
    # A failed or cancelled job of this kind may be queued again (POST /jobs/{id}/retry/) and resumes
    # from what its earlier attempts left (a training's checkpoints). Kinds whose record elsewhere
    # (a trial's place in a study, an import batch) would not survive a rerun leave this False.
    retryable: bool = False
    # On a worker's warm shutdown (SIGTERM) a running job of this kind is asked to checkpoint and is
    # requeued at once without spending an attempt. Kinds that record a JobCancelled as the end of
    # their domain object leave this False; a shutdown then waits for them to finish.
    preemptible: bool = False
    # The priority class of its jobs (PRIORITY_*): also the Celery message's priority.
    priority: int = PRIORITY_INTERACTIVE


_KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> JobKind:
    if kind.name in _KINDS and _KINDS[kind.name] != kind:
        raise ValueError(f"job kind {kind.name!r} registered twice")
    _KINDS[kind.name] = kind
    return kind


def get(name: str) -> JobKind | None:
    return _KINDS.get(name)


def all_kinds() -> list[JobKind]:
    return sorted(_KINDS.values(), key=lambda k: k.name)
