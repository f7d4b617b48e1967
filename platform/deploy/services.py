"""Writes for deployments: create, switch, roll back, stop and start; API keys; packages."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from jobs.services import job_create
from rest_framework import exceptions, status
from rest_framework.exceptions import ValidationError
from training.models import ModelVersion

from deploy.models import (
    Deployment,
    DeploymentEvent,
    DeploymentEventAction,
    DeploymentKey,
    DeploymentStatus,
    Package,
    PackageKind,
)

KEY_PREFIX = "spd_"


class DeployConflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _touch(deployment: Deployment) -> None:
    """Tell every web process that the deployment's serving state changed (see Deployment)."""
    Deployment.objects.filter(pk=deployment.pk).update(
        serving_stamp=F("serving_stamp") + 1, updated_at=timezone.now()
    )
    deployment.refresh_from_db(fields=["serving_stamp", "updated_at"])


def _event(deployment: Deployment, action: str, user) -> None:
    DeploymentEvent.objects.create(
        deployment=deployment,
        action=action,
        model_version_id=deployment.model_version_id,
        by=user if user is not None and user.is_authenticated else None,
    )


def _check_servable(model_version: ModelVersion) -> None:
    if not model_version.onnx_key:
        raise ValidationError(
            {"model_version": [f"Model version {model_version.name} has no ONNX model to serve."]}
        )
    from workers.serving.predictors import PREDICTORS

    if model_version.template not in PREDICTORS:
        raise ValidationError(
            {"model_version": [f"Template {model_version.template!r} cannot be served yet."]}
        )


@transaction.atomic
def deployment_create(*, user, model_version: ModelVersion, name: str, project=None) -> Deployment:
    """Deploy ``model_version`` as a hosted endpoint (active at once).

    e.g. ``deployment_create(user=u, model_version=mv, name="digits-prod")``
    """
    if project is not None and project.pk != model_version.project_id:
        raise ValidationError(
            {"model_version": [f"Model version {model_version.name} belongs to another project."]}
        )
    _check_servable(model_version)
    name = name.strip()
    if not name:
        raise ValidationError({"name": ["Give the deployment a name."]})
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
        raise ValidationError({"name": [f"This project already has a deployment named {name!r}."]}) from None
    _event(deployment, DeploymentEventAction.CREATE, user)
    return deployment


@transaction.atomic
def deployment_rename(*, deployment: Deployment, name: str) -> Deployment:
    name = name.strip()
    if not name:
        raise ValidationError({"name": ["Give the deployment a name."]})
    if (
        Deployment.objects.filter(project_id=deployment.project_id, name=name)
        .exclude(pk=deployment.pk)
        .exists()
    ):
        raise ValidationError({"name": [f"This project already has a deployment named {name!r}."]})
    deployment.name = name
    deployment.save(update_fields=["name", "updated_at"])
    return deployment


def _locked(deployment: Deployment) -> Deployment:
    return Deployment.objects.select_for_update().get(pk=deployment.pk)


@transaction.atomic
def deployment_switch(
    *, user, deployment: Deployment, model_version: ModelVersion, action: str = DeploymentEventAction.SWITCH
) -> Deployment:
    """Serve ``model_version`` from now on. Requests already running finish on the old model; web
    processes load the new one on their next request (no request is dropped)."""
    deployment = _locked(deployment)
    if model_version.project_id != deployment.project_id:
        raise ValidationError(
            {"model_version": [f"Model version {model_version.name} belongs to another project."]}
        )
    if model_version.pk == deployment.model_version_id:
        raise ValidationError({"model_version": [f"The deployment already serves {model_version.name}."]})
    _check_servable(model_version)
    deployment.previous_model_version_id = deployment.model_version_id
    deployment.model_version = model_version
    deployment.save(update_fields=["model_version", "previous_model_version", "updated_at"])
    _event(deployment, action, user)
    _touch(deployment)
    return deployment


@transaction.atomic
def deployment_rollback(*, user, deployment: Deployment) -> Deployment:
    """Serve the previous model version again (the two swap places)."""
    current = _locked(deployment)
    if current.previous_model_version_id is None:
        exc = ValidationError({"previous_model_version": ["This deployment has no previous model version."]})
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
def deployment_delete(*, deployment: Deployment) -> None:
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

    e.g. ``key, secret = deployment_key_create(user=u, deployment=d, name="mobile app", quota_per_minute=600)``
    """
    name = name.strip()
    if not name:
        raise ValidationError({"name": ["Give the key a name."]})
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationError({"expires_at": ["The expiry must be in the future."]})
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
        raise ValidationError({"kind": [f"Choose one of {', '.join(PackageKind.values)}."]})
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
