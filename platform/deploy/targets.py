"""Target profiles: reads and writes of a workspace's profiles, and resolving ``target_profile`` as a
request gives it (a workspace profile's id, or a builtin's name) into the profile's contract.

The builtin profiles come from ``workers.deployment_targets.BUILTIN_TARGETS`` (no torch, no
onnxruntime at import: measuring imports it inside the function) and are listed next to the
workspace's, read-only. Validation of the fields is the compute plane's (``target_profile``), so a
profile a study snapshots is exactly what the worker measures with.
"""

from __future__ import annotations

from typing import Any

from config.exceptions import Conflict, InvalidInput, field_error
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from workspaces.selectors import scoped_to_member

from deploy.models import TargetProfile
from workers.contracts.targets import TargetProfile as TargetProfileContract
from workers.deployment_targets import BUILTIN_TARGETS, TargetProfileError
from workers.deployment_targets import target_profile as profile_validate

EDITABLE = (
    "name",
    "description",
    "runtime",
    "execution_provider",
    "intra_op_threads",
    "inter_op_threads",
    "batch_size",
    "slowdown",
    "latency_budget_ms",
    "size_budget_bytes",
)


class TargetProfileNameTaken(Conflict):
    default_code = "target_profile_name_taken"


def builtin_targets() -> list[TargetProfileContract]:
    return [dict(p) for p in BUILTIN_TARGETS.values()]  # type: ignore[misc]


def target_profiles_for(*, user) -> QuerySet[TargetProfile]:
    return scoped_to_member(TargetProfile.objects.select_related("created_by"), user=user)


def _validated(values: dict[str, Any]) -> TargetProfileContract:
    try:
        return profile_validate(values)
    except TargetProfileError as exc:
        raise field_error(exc.field, exc.message) from None


def _check_name(name: str) -> None:
    if name in BUILTIN_TARGETS:
        raise field_error("name", f"{name!r} is a builtin target's name; choose another.")


@transaction.atomic
def target_profile_create(*, user, workspace, **fields: Any) -> TargetProfile:
    """A workspace's target profile, validated as the worker validates one.

    e.g. ``target_profile_create(user=u, workspace=w, name="phone", slowdown=3.0, latency_budget_ms=20)``
    """
    profile = _validated({k: v for k, v in fields.items() if k in EDITABLE})
    _check_name(profile["name"])
    values = {k: profile[k] for k in EDITABLE}  # type: ignore[literal-required]
    try:
        with transaction.atomic():
            return TargetProfile.objects.create(
                workspace=workspace,
                created_by=user if user is not None and user.is_authenticated else None,
                **values,
            )
    except IntegrityError:
        raise TargetProfileNameTaken(
            f"name: the workspace already has a target profile named {profile['name']!r}.",
            field="name",
        ) from None


@transaction.atomic
def target_profile_update(*, profile: TargetProfile, **fields: Any) -> TargetProfile:
    merged = {**profile.as_profile(), **{k: v for k, v in fields.items() if k in EDITABLE}}
    validated = _validated(merged)
    _check_name(validated["name"])
    for key in EDITABLE:
        setattr(profile, key, validated[key])  # type: ignore[literal-required]
    try:
        with transaction.atomic():
            profile.save()
    except IntegrityError:
        raise TargetProfileNameTaken(
            f"name: the workspace already has a target profile named {validated['name']!r}.",
            field="name",
        ) from None
    return profile


def target_profile_delete(*, profile: TargetProfile) -> None:
    profile.delete()  # studies keep their snapshot (the reference is set null)


def target_profile_resolve(
    *, value: Any, workspace_id: int
) -> tuple[TargetProfileContract, TargetProfile | None]:
    """A request's ``target_profile``: a builtin's name, or the id of one of ``workspace_id``'s
    profiles (another workspace's id does not exist here). Returns the contract and the row."""
    if isinstance(value, str) and not value.isdigit():
        if value not in BUILTIN_TARGETS:
            raise field_error(
                "target_profile",
                f"Unknown target {value!r}; builtin targets are {', '.join(BUILTIN_TARGETS)}, or give a "
                "target profile's id.",
            )
        return dict(BUILTIN_TARGETS[value]), None  # type: ignore[return-value]
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise field_error("target_profile", "Give a builtin target's name or a target profile's id.")
    row = TargetProfile.objects.filter(pk=int(value), workspace_id=workspace_id).first()
    if row is None:
        raise InvalidInput(
            f"target_profile: target profile {value} does not exist in this workspace.",
            field="target_profile",
        )
    return _validated(row.as_profile()), row
