"""Job kinds: each app registers the kinds of background work it owns (in AppConfig.ready)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rest_framework import serializers


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
