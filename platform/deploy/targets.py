"""Target profiles: reads and writes of a workspace's profiles, and resolving ``target_profile`` as a
request gives it (a workspace profile's id, or a builtin's name) into the profile's contract.

The builtin profiles come from ``workers.deployment_targets.BUILTIN_TARGETS`` (no torch, no
onnxruntime at import: measuring imports it inside the function) and are listed next to the
workspace's, read-only. Validation of the fields is the compute plane's (``target_profile``), so a
profile a study snapshots is exactly what the worker measures with.
"""

from __future__ import annotations

from pathlib import Path
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


# --- a training job given a target (runs on the worker: torch and onnxruntime inside) -------------


class TargetUnreachableError(InvalidInput):
    default_code = "target_unreachable"


def target_fit_run(*, job, dataset_version, params: dict[str, Any], report) -> tuple[dict[str, Any], dict]:
    """Before a ``training.run`` job given ``target_profile`` trains: fit ``image_size`` and ``width``
    (and int8) to the profile's budgets (``workers.target_fitting``). The choice is kept in the job's
    params (``target_fit``), so a retried attempt resumes the same network. Returns the run's
    parameters and the fit; raises ``target_unreachable`` naming the smallest latency reached."""
    from datasets.services import dataset_version_manifest
    from jobs.models import Job
    from training.services import run_dir_for

    from workers.target_fitting import TargetUnreachable, fit_image_classifier

    fit = job.params.get("target_fit")
    if fit is None:
        profile, _ = target_profile_resolve(value=job.params["target_profile"], workspace_id=job.workspace_id)
        manifest = dataset_version_manifest(version=dataset_version)
        report(f"fitting the model to target {profile['name']}")
        try:
            fit = fit_image_classifier(
                params=params,
                num_classes=len(list(manifest.get("classes") or [])),  # type: ignore[call-overload]
                profile=profile,
                work_dir=run_dir_for(job) / "target-fit",
                report=report,
            )
        except TargetUnreachable as exc:
            raise TargetUnreachableError(str(exc), smallest_ms=exc.smallest_ms) from None
        job.params = {**job.params, "target_fit": fit}
        Job.objects.filter(pk=job.pk).update(params=job.params)
    chosen = fit["chosen"]
    return {**params, "image_size": chosen["image_size"], "width": chosen["width"]}, dict(fit)


def target_fit_finish(
    *, job, fit: dict, result: dict[str, Any], evaluation: dict[str, Any], dataset_version, template, report
) -> tuple[dict, Path, dict[str, Any]]:
    """After training: the int8 model when the fit chose int8 (``workers.compression.quantize_onnx``,
    evaluated on the test split), and the trained model's latency on the target, added to the fit's
    reasons. Returns the fit, the ONNX the model version serves and its evaluation."""
    from workers.deployment_targets import measure_latency

    onnx = Path(result["onnx"])
    if fit["chosen"]["precision"] == "int8":
        from datasets.services import dataset_version_manifest

        from workers.compression import quantize_onnx

        manifest = dataset_version_manifest(version=dataset_version)
        report("quantizing the trained model to int8 for the target")
        onnx = Path(
            quantize_onnx(
                template=template.name, onnx=onnx, manifest=manifest, out=onnx.with_name("model.int8.onnx")
            )
        )
        evaluation = template.load("evaluate")(
            str(onnx), manifest, preprocessing=result["preprocessing"], report=report
        )
    try:
        profile: TargetProfileContract | None = target_profile_resolve(
            value=job.params["target_profile"], workspace_id=job.workspace_id
        )[0]
    except InvalidInput:  # the profile was deleted while the model trained
        profile = None
    if profile is not None:
        measured = measure_latency(onnx, profile)
        fit = {
            **fit,
            "trained_latency_ms": float(measured["target_ms"]),
            "reasons": [
                *fit["reasons"],
                f"The trained model takes {measured['target_ms']:.2f} ms on {fit['profile']}.",
            ],
        }
    return fit, onnx, evaluation
