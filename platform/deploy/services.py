"""Writes for deployments: create, switch, roll back, stop and start; API keys; packages."""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from config.exceptions import Conflict, field_error
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from jobs.models import Job
from jobs.services import job_create
from training.models import ModelVersion

from deploy.models import (
    Deployment,
    DeploymentEvent,
    DeploymentEventAction,
    DeploymentKey,
    DeploymentStatus,
    DeploymentTraffic,
    Package,
    PackageKind,
    TrafficRole,
)
from workers.progress import JobCancelled, Report

KEY_PREFIX = "spd_"
MAX_TEST_INPUTS = 200  # test vectors shipped in a package, from the model's test split
MAX_CALIBRATION_IMAGES = 200  # int8 calibration of a device SDK, from the train split


class DeployConflict(Conflict):
    default_code = "conflict"


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _touch(deployment: Deployment) -> None:
    """Tell every web process that the deployment's serving state changed (see Deployment)."""
    Deployment.objects.filter(pk=deployment.pk).update(
        serving_stamp=F("serving_stamp") + 1, updated_at=timezone.now()
    )
    deployment.refresh_from_db(fields=["serving_stamp", "updated_at"])


def _event(deployment: Deployment, action: str, user, details: dict[str, Any] | None = None) -> None:
    DeploymentEvent.objects.create(
        deployment=deployment,
        action=action,
        model_version_id=deployment.model_version_id,
        by=user if user is not None and user.is_authenticated else None,
        details=details or {},
    )


def traffic_entries(
    deployment: Deployment, rows: list[DeploymentTraffic] | None = None
) -> list[dict[str, Any]]:
    """The split as TrafficEntry dicts: the primary (100 - the canaries), the canaries, the shadow.
    ``rows``: the deployment's DeploymentTraffic rows with their model versions (read when None)."""
    if rows is None:
        rows = list(
            DeploymentTraffic.objects.filter(deployment_id=deployment.pk).select_related("model_version")
        )
    canaries = [r for r in rows if r.role == TrafficRole.CANARY]
    shadows = [r for r in rows if r.role == TrafficRole.SHADOW]
    entries = [
        {
            "model_version": deployment.model_version_id,
            "model_version_name": deployment.model_version.name,
            "role": "primary",
            "weight": 100 - sum(r.weight for r in canaries),
        }
    ]
    entries += [
        {
            "model_version": r.model_version_id,
            "model_version_name": r.model_version.name,
            "role": r.role,
            "weight": r.weight if r.role == TrafficRole.CANARY else 0,
        }
        for r in [*canaries, *shadows]
    ]
    return entries


def _traffic_details(deployment: Deployment) -> dict[str, Any]:
    return {"traffic": traffic_entries(deployment), "sticky": deployment.sticky_traffic}


def _check_servable(
    model_version: ModelVersion, field: str = "model_version", code: str | None = None
) -> None:
    if not model_version.onnx_key:
        raise field_error(field, f"Model version {model_version.name} has no ONNX model to serve.", code=code)
    from workers.serving.predictors import PREDICTORS

    if model_version.template not in PREDICTORS:
        raise field_error(field, f"Template {model_version.template!r} cannot be served yet.", code=code)


# Templates whose deployments serve the hosted API but not the operations that compare or store
# single answers: a forecast is a series of values with intervals, which neither the shadow's
# agreement figures, nor capture-to-labeling, nor batch prediction's per-input rows are built for.
HOSTED_ONLY_TEMPLATES = ("time_series_forecasting",)


def check_operation_supported(
    model_version: ModelVersion, operation: str, field: str = "model_version"
) -> None:
    """Refuse ``operation`` (``"batch prediction"``, ``"a shadow release"``, ``"request capture"``)
    for a model version of a template that does not support it: 400 ``template_not_supported``."""
    if model_version.template in HOSTED_ONLY_TEMPLATES:
        raise field_error(
            field,
            f"Model version {model_version.name} is a {model_version.template} model: {operation} is not "
            "available for forecasters; call the prediction API with each series' history instead.",
            code="template_not_supported",
        )


@transaction.atomic
def deployment_create(*, user, model_version: ModelVersion, name: str, project=None) -> Deployment:
    """Deploy ``model_version`` as a hosted endpoint (active at once).

    e.g. ``deployment_create(user=u, model_version=mv, name="digits-prod")``
    """
    if project is not None and project.pk != model_version.project_id:
        raise field_error("model_version", f"Model version {model_version.name} belongs to another project.")
    _check_servable(model_version)
    name = name.strip()
    if not name:
        raise field_error("name", "Give the deployment a name.")
    try:
        with transaction.atomic():
            deployment = Deployment.objects.create(
                workspace_id=model_version.workspace_id,
                project_id=model_version.project_id,
                name=name,
                model_version=model_version,
                created_by=user if user.is_authenticated else None,
            )
    except IntegrityError:
        raise field_error("name", f"This project already has a deployment named {name!r}.") from None
    _event(deployment, DeploymentEventAction.CREATE, user)
    return deployment


@transaction.atomic
def deployment_rename(*, deployment: Deployment, name: str) -> Deployment:
    name = name.strip()
    if not name:
        raise field_error("name", "Give the deployment a name.")
    if (
        Deployment.objects.filter(project_id=deployment.project_id, name=name)
        .exclude(pk=deployment.pk)
        .exists()
    ):
        raise field_error("name", f"This project already has a deployment named {name!r}.")
    deployment.name = name
    deployment.save(update_fields=["name", "updated_at"])
    return deployment


def _locked(deployment: Deployment) -> Deployment:
    return Deployment.objects.select_for_update().get(pk=deployment.pk)


@transaction.atomic
def deployment_switch(
    *, user, deployment: Deployment, model_version: ModelVersion, action: str = DeploymentEventAction.SWITCH
) -> Deployment:
    """Serve ``model_version`` from now on. Requests already running finish on the old model; every
    web process's preloader (deploy.warm) loads the new one within a second of the change, and a
    request that comes first loads it itself (no request is dropped)."""
    deployment = _locked(deployment)
    if model_version.project_id != deployment.project_id:
        raise field_error("model_version", f"Model version {model_version.name} belongs to another project.")
    if model_version.pk == deployment.model_version_id:
        raise field_error("model_version", f"The deployment already serves {model_version.name}.")
    _check_servable(model_version)
    deployment.previous_model_version_id = deployment.model_version_id
    deployment.model_version = model_version
    deployment.save(update_fields=["model_version", "previous_model_version", "updated_at"])
    # the new primary no longer serves as a canary or shadows itself
    had_traffic = DeploymentTraffic.objects.filter(
        deployment=deployment, model_version=model_version
    ).delete()[0]
    _event(
        deployment,
        action,
        user,
        _traffic_details(deployment) if had_traffic or _has_traffic(deployment) else None,
    )
    _touch(deployment)
    return deployment


def _has_traffic(deployment: Deployment) -> bool:
    return DeploymentTraffic.objects.filter(deployment=deployment).exists()


# --- traffic split: canaries and the shadow --------------------------------------------------------

MAX_CANARIES = 5


def _check_traffic_version(
    deployment: Deployment, model_version: ModelVersion, field: str, code: str
) -> None:
    if model_version.project_id != deployment.project_id:
        raise field_error(field, f"Model version {model_version.name} belongs to another project.", code=code)
    if model_version.pk == deployment.model_version_id:
        raise field_error(
            field, f"Model version {model_version.name} is the deployment's primary version.", code=code
        )
    primary = deployment.model_version
    if model_version.template != primary.template:
        raise field_error(
            field,
            f"Model version {model_version.name} is a {model_version.template} model; the deployment "
            f"serves {primary.template}: one endpoint answers one kind of request.",
            code=code,
        )
    _check_servable(model_version, field, code)


@transaction.atomic
def deployment_set_traffic(
    *, user, deployment: Deployment, canaries: list[tuple[ModelVersion, int]], sticky: bool | None = None
) -> Deployment:
    """Give ``canaries`` (model version, percent) their share of the requests; the primary answers
    the rest. ``canaries=[]`` rolls the canaries back (the primary answers everything). ``sticky``:
    every request of one key goes to the same version (None: unchanged).

    e.g. ``deployment_set_traffic(user=u, deployment=d, canaries=[(v2, 10)])``
    """
    deployment = _locked(deployment)
    if len(canaries) > MAX_CANARIES:
        raise field_error("canaries", f"At most {MAX_CANARIES} canaries at once.", code="canary_invalid")
    seen: set[int] = set()
    shadow_id = (
        DeploymentTraffic.objects.filter(deployment=deployment, role=TrafficRole.SHADOW)
        .values_list("model_version_id", flat=True)
        .first()
    )
    for index, (mv, weight) in enumerate(canaries):
        field = f"canaries[{index}].model_version"
        if mv.pk in seen:
            raise field_error(field, f"Model version {mv.name} is listed twice.", code="canary_invalid")
        seen.add(mv.pk)
        if mv.pk == shadow_id:
            raise field_error(
                field,
                f"Model version {mv.name} is the deployment's shadow; remove the shadow first.",
                code="canary_invalid",
            )
        _check_traffic_version(deployment, mv, field, "canary_invalid")
        if not 1 <= weight <= 99:
            raise field_error(
                f"canaries[{index}].weight", "A canary's weight is 1 to 99 (percent).", code="canary_invalid"
            )
    total = sum(weight for _, weight in canaries)
    if total > 99:
        raise field_error(
            "canaries",
            f"The canaries' weights add up to {total} %; at most 99 %, so the primary keeps a share.",
            code="canary_weights_too_high",
        )
    DeploymentTraffic.objects.filter(deployment=deployment, role=TrafficRole.CANARY).delete()
    DeploymentTraffic.objects.bulk_create(
        [
            DeploymentTraffic(
                deployment=deployment,
                model_version=mv,
                role=TrafficRole.CANARY,
                weight=weight,
                created_by=user if user is not None and user.is_authenticated else None,
            )
            for mv, weight in canaries
        ]
    )
    if sticky is not None and sticky != deployment.sticky_traffic:
        deployment.sticky_traffic = sticky
        deployment.save(update_fields=["sticky_traffic", "updated_at"])
    _event(deployment, DeploymentEventAction.TRAFFIC, user, _traffic_details(deployment))
    _touch(deployment)
    return deployment


@transaction.atomic
def deployment_rollback_canary(*, user, deployment: Deployment) -> Deployment:
    """Remove every canary: the primary answers all requests again."""
    return deployment_set_traffic(user=user, deployment=deployment, canaries=[])


@transaction.atomic
def deployment_promote(*, user, deployment: Deployment, model_version: ModelVersion) -> Deployment:
    """Make canary ``model_version`` the primary (the old primary becomes the previous version, for a
    rollback); every canary is removed."""
    deployment = _locked(deployment)
    if not DeploymentTraffic.objects.filter(
        deployment=deployment, model_version=model_version, role=TrafficRole.CANARY
    ).exists():
        raise field_error(
            "model_version",
            f"Model version {model_version.name} is not a canary of this deployment; only a canary "
            "can be promoted (switch to serve another version).",
            code="not_a_canary",
        )
    DeploymentTraffic.objects.filter(deployment=deployment, role=TrafficRole.CANARY).delete()
    deployment.previous_model_version_id = deployment.model_version_id
    deployment.model_version = model_version
    deployment.save(update_fields=["model_version", "previous_model_version", "updated_at"])
    _event(deployment, DeploymentEventAction.PROMOTE, user, _traffic_details(deployment))
    _touch(deployment)
    return deployment


@transaction.atomic
def deployment_set_shadow(*, user, deployment: Deployment, model_version: ModelVersion | None) -> Deployment:
    """Give every answered request's copy to ``model_version`` (compared, never returned); None
    removes the shadow."""
    deployment = _locked(deployment)
    current = DeploymentTraffic.objects.filter(deployment=deployment, role=TrafficRole.SHADOW).first()
    if model_version is not None:
        if current is not None and current.model_version_id == model_version.pk:
            return deployment
        check_operation_supported(deployment.model_version, "a shadow release")
        if DeploymentTraffic.objects.filter(
            deployment=deployment, model_version=model_version, role=TrafficRole.CANARY
        ).exists():
            raise field_error(
                "model_version",
                f"Model version {model_version.name} is a canary of this deployment; a shadow answers "
                "no request, so it cannot be both.",
                code="shadow_invalid",
            )
        _check_traffic_version(deployment, model_version, "model_version", "shadow_invalid")
    elif current is None:
        return deployment
    if current is not None:
        current.delete()
    if model_version is not None:
        DeploymentTraffic.objects.create(
            deployment=deployment,
            model_version=model_version,
            role=TrafficRole.SHADOW,
            weight=0,
            created_by=user if user is not None and user.is_authenticated else None,
        )
    _event(deployment, DeploymentEventAction.SHADOW, user, _traffic_details(deployment))
    _touch(deployment)
    return deployment


@transaction.atomic
def deployment_rollback(*, user, deployment: Deployment) -> Deployment:
    """Serve the previous model version again (the two swap places)."""
    current = _locked(deployment)
    if current.previous_model_version_id is None:
        exc = field_error("previous_model_version", "This deployment has no previous model version.")
        raise exc
    previous = ModelVersion.objects.get(pk=current.previous_model_version_id)
    return deployment_switch(
        user=user, deployment=current, model_version=previous, action=DeploymentEventAction.ROLLBACK
    )


@transaction.atomic
def deployment_set_status(*, user, deployment: Deployment, status: str) -> Deployment:
    """Stop (predictions answer 409) or start the deployment."""
    deployment = _locked(deployment)
    if deployment.status == status:
        return deployment
    deployment.status = status
    deployment.save(update_fields=["status", "updated_at"])
    _event(
        deployment,
        DeploymentEventAction.STOP if status == DeploymentStatus.STOPPED else DeploymentEventAction.START,
        user,
    )
    _touch(deployment)
    return deployment


@transaction.atomic
@transaction.atomic
def deployment_delete(*, deployment: Deployment) -> None:
    """Delete ``deployment`` with its keys and usage. A web process may be writing a usage minute of
    one of its keys at that moment: locking the deployment and its keys first makes that write wait
    (it then finds them gone and drops the minute), and the rows it had written before the locks
    were granted are deleted with the rest instead of failing the deletion at commit."""
    Deployment.objects.select_for_update().filter(pk=deployment.pk).first()
    list(DeploymentKey.objects.select_for_update().filter(deployment=deployment).values_list("pk", flat=True))
    deployment.delete()


@transaction.atomic
def deployment_key_create(
    *,
    user,
    deployment: Deployment,
    name: str,
    expires_at: datetime | None = None,
    quota_per_minute: int | None = None,
) -> tuple[DeploymentKey, str]:
    """A new API key of ``deployment``; returns (row, the key itself: shown once, never stored).

    e.g. ``key, secret = deployment_key_create(user=u, deployment=d, name="mobile app",
    quota_per_minute=600)``
    """
    name = name.strip()
    if not name:
        raise field_error("name", "Give the key a name.")
    if expires_at is not None and expires_at <= timezone.now():
        raise field_error("expires_at", "The expiry must be in the future.")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    key = DeploymentKey.objects.create(
        deployment=deployment,
        name=name,
        prefix=secret[:12],
        digest=key_digest(secret),
        expires_at=expires_at,
        quota_per_minute=quota_per_minute,
        created_by=user if user.is_authenticated else None,
    )
    _touch(deployment)
    return key, secret


@transaction.atomic
def deployment_key_revoke(*, key: DeploymentKey) -> DeploymentKey:
    """Revoke a key: every web process refuses it from its next request on."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        _touch(key.deployment)
    return key


# --- packages -----------------------------------------------------------------------------------


def package_blob_key(package: Package) -> str:
    return f"packages/project-{package.project_id}/package-{package.pk}-{package.kind}.zip"


@transaction.atomic
def package_create(*, user, model_version: ModelVersion, kind: str) -> Package:
    """Queue the build of an on-prem server package or device SDK of ``model_version``.

    e.g. ``package_create(user=u, model_version=mv, kind="device")``
    """
    if kind not in PackageKind.values:
        raise field_error("kind", f"Choose one of {', '.join(PackageKind.values)}.")
    _check_servable(model_version)
    package = Package.objects.create(
        workspace_id=model_version.workspace_id,
        project_id=model_version.project_id,
        model_version=model_version,
        kind=kind,
        created_by=user if user.is_authenticated else None,
    )
    package.job = job_create(
        workspace=model_version.workspace,
        project=model_version.project,
        kind="deploy.build_package",
        params={"package": package.pk},
        user=user,
    )
    package.save(update_fields=["job"])
    return package


def package_record(*, package: Package, archive: Path, report: dict[str, Any]) -> Package:
    """Store a built archive in the blob storage and record its sha256, size and report."""
    digest = hashlib.sha256()
    with archive.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
        fh.seek(0)
        key = package_blob_key(package)
        if default_storage.exists(key):
            default_storage.delete(key)
        key = default_storage.save(key, File(fh, name=archive.name))
    package.blob_key = key
    package.sha256 = digest.hexdigest()
    package.size_bytes = archive.stat().st_size
    package.report = report
    package.error = ""
    package.built_at = timezone.now()
    package.save(update_fields=["blob_key", "sha256", "size_bytes", "report", "error", "built_at"])
    return package


def package_record_failure(*, package: Package, error: str) -> None:
    Package.objects.filter(pk=package.pk).update(error=error[:4000])


@transaction.atomic
def package_delete(*, package: Package) -> None:
    key = package.blob_key
    package.delete()
    if key:
        transaction.on_commit(lambda: default_storage.delete(key))


def package_build(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of a ``deploy.build_package`` job: fetch the model's ONNX file, build the on-prem
    server package or device SDK (``workers.packaging``) with test vectors from the test split, and
    store the archive; a failure is recorded on the package before the job fails."""
    from deploy.selectors import model_version_split_boxes, model_version_split_inputs
    from workers import packaging

    package = (
        Package.objects.select_related("model_version__dataset_version")
        .filter(pk=job.params["package"])
        .first()
    )
    if package is None:
        return {"package": job.params["package"], "deleted": True}
    mv = package.model_version
    report(f"fetching {mv.name}'s model", fraction=0.0, milestone=True)
    try:
        with tempfile.TemporaryDirectory(prefix="sampan-package-") as tmp:
            tmp_dir = Path(tmp)
            model_path = tmp_dir / "model.onnx"
            with default_storage.open(mv.onnx_key, "rb") as source, model_path.open("wb") as out:
                for chunk in iter(lambda: source.read(1 << 20), b""):
                    out.write(chunk)
            kind, test_inputs, test_labels = model_version_split_inputs(
                model_version=mv, split="test", limit=MAX_TEST_INPUTS
            )
            artifacts = packaging.ModelArtifacts(
                model_path=model_path,
                preprocessing=mv.preprocessing,
                classes=list(mv.classes),
                template=mv.template,
                model_version={
                    "id": mv.pk,
                    "name": mv.name,
                    "project": mv.project_id,
                    "template": mv.template,
                    "code_version": mv.code_version,
                    "onnx_sha256": mv.onnx_sha256,
                    "dataset_version": mv.dataset_version_id,
                    "metrics": mv.metrics.get("test", {}),
                },
                test_images=test_inputs if kind == "images" else (),
                test_instances=test_inputs if kind == "instances" else (),
                test_labels=test_labels,
                # a detector's true boxes of those test images: the device SDK's mAP@.5 of fp32 and int8
                test_boxes=model_version_split_boxes(model_version=mv, split="test", limit=MAX_TEST_INPUTS)
                if mv.template == "object_detection"
                else None,
            )
            out_path = tmp_dir / "package.zip"
            if package.kind == PackageKind.SERVER:
                report("building the on-prem server package", fraction=0.2, milestone=True)
                built = packaging.build_server_package(artifacts=artifacts, out_path=out_path, report=report)
            else:
                # int8 for texts and rows is dynamic quantization: it needs no calibration inputs
                calibration = (
                    model_version_split_inputs(model_version=mv, split="train", limit=MAX_CALIBRATION_IMAGES)[
                        1
                    ]
                    if kind == "images"
                    else []
                )
                report(
                    "building the device SDK"
                    + (f" (int8 calibrated on {len(calibration)} training images)" if calibration else ""),
                    fraction=0.2,
                    milestone=True,
                )
                built = packaging.build_device_sdk(
                    artifacts=artifacts, out_path=out_path, calibration_images=calibration, report=report
                )
            report("storing the archive", fraction=0.95, milestone=True)
            package = package_record(
                package=package, archive=out_path, report=json.loads(json.dumps(built or {}, default=str))
            )
    except JobCancelled:
        raise
    except Exception as exc:
        package_record_failure(package=package, error=f"{type(exc).__name__}: {exc}")
        raise
    return {
        "package": package.pk,
        "package_kind": package.kind,
        "sha256": package.sha256,
        "size_bytes": package.size_bytes,
    }
