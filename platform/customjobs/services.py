"""Writes for custom code: storing an uploaded code archive (checked by ``customjobs.archives``,
content-addressed in blob storage) and starting a custom training job (``training.custom``) whose
params carry the :class:`~workers.contracts.custom_code.CustomJobSpec` the worker runs."""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import PurePosixPath
from typing import Any, BinaryIO, cast

from blobs.services import blob_reuse
from config.exceptions import InvalidInput, field_error
from datasets.models import DatasetVersion
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from jobs.models import Job
from jobs.services import job_create
from workspaces.models import Project

from customjobs import archives
from customjobs.models import CodeArchive
from workers.contracts.custom_code import (
    CUSTOM_JOB_SPEC_VERSION,
    CustomJobSpec,
    HyperValue,
    QueueName,
    ResourceLimits,
)
from workers.custom_code.environment import requirements_hash  # the worker caches environments by it

HYPERPARAMETER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_ARGS = 100
MAX_ARG_CHARS = 1000
MAX_HYPERPARAMETERS = 200
MAX_REQUIREMENTS_CHARS = 64 * 1024
LIMIT_MINIMA = {"wall_time_s": 1, "memory_mb": 64, "cpus": 1}


class CustomJobInvalid(InvalidInput):
    default_code = "custom_job_invalid"


class CustomJobLimitTooHigh(InvalidInput):
    default_code = "custom_job_limit_too_high"


def code_blob_key(sha256: str, code_kind: str) -> str:
    suffix = {"script": ".py", "zip": ".zip", "notebook": ".ipynb"}[code_kind]
    return f"code/{sha256[:2]}/{sha256}{suffix}"


def _sha256_of(fileobj) -> str:
    digest = hashlib.sha256()
    fileobj.seek(0)
    for chunk in iter(lambda: fileobj.read(1 << 20), b""):
        digest.update(chunk)
    fileobj.seek(0)
    return digest.hexdigest()


def code_archive_create(
    *, project: Project, upload, name: str = "", entry_point: str = "", user
) -> CodeArchive:
    """Check uploaded code (a .py, a .zip or an .ipynb; ``customjobs.archives``), store it by
    content and record it. 400 ``code_archive_invalid`` / 413 ``code_archive_too_large`` name the
    problem; nothing is stored then.

    e.g. ``code_archive_create(project=p, upload=request.FILES["file"], user=u)`` -> CodeArchive
    with ``entry_point="train.py"``
    """
    filename = PurePosixPath((upload.name or "").replace("\\", "/")).name[-255:]
    if not filename:
        raise field_error("file", "The upload has no file name.", error=archives.CodeArchiveInvalid)
    inspection = archives.inspect_code(
        upload, filename=filename, size=upload.size, entry_point=entry_point or ""
    )
    sha256 = _sha256_of(upload)
    key = code_blob_key(sha256, inspection.code_kind)
    if not blob_reuse(key):
        saved = default_storage.save(key, File(upload, name=filename))
        if saved != key:  # a concurrent upload stored the same content first
            default_storage.delete(saved)
    return CodeArchive.objects.create(
        workspace_id=project.workspace_id,
        project=project,
        name=(name or "").strip()[:200] or PurePosixPath(filename).stem or filename,
        filename=filename,
        code_kind=inspection.code_kind,
        blob_key=key,
        sha256=sha256,
        size_bytes=upload.size,
        files=inspection.files,
        entry_point=inspection.entry_point,
        requirements=inspection.requirements,
        created_by=user if user is not None and user.is_authenticated else None,
    )


def code_archive_file_text(*, code_archive: CodeArchive, path: str) -> str:
    """One file of the stored code as text (UTF-8, up to 1 MiB), for the UI."""
    with default_storage.open(code_archive.blob_key, "rb") as blob:
        return archives.code_file_text(
            cast(BinaryIO, blob), code_kind=code_archive.code_kind, filename=code_archive.filename, path=path
        )


def custom_job_limits(limits: dict[str, Any] | None) -> ResourceLimits:
    """The run's limits: the settings' defaults, each given value checked against the platform's cap
    (400 ``custom_job_limit_too_high`` naming the cap)."""
    defaults = {
        "wall_time_s": settings.SAMPAN_CUSTOM_JOB_WALL_TIME_S,
        "memory_mb": settings.SAMPAN_CUSTOM_JOB_MEMORY_MB,
        "cpus": settings.SAMPAN_CUSTOM_JOB_CPUS,
    }
    caps = {
        "wall_time_s": ("SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S", settings.SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S),
        "memory_mb": ("SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB", settings.SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB),
        "cpus": ("SAMPAN_CUSTOM_JOB_MAX_CPUS", settings.SAMPAN_CUSTOM_JOB_MAX_CPUS),
    }
    given = limits or {}
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise field_error(
            f"limits.{unknown[0]}",
            f"Unknown limit; use {', '.join(defaults)}.",
            error=CustomJobInvalid,
        )
    chosen: dict[str, int] = {}
    for name, default in defaults.items():
        value = given.get(name)
        if value is None:
            chosen[name] = min(default, caps[name][1])
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < LIMIT_MINIMA[name]:
            raise field_error(
                f"limits.{name}",
                f"Must be a whole number of at least {LIMIT_MINIMA[name]}.",
                error=CustomJobInvalid,
            )
        setting, cap = caps[name]
        if value > cap:
            raise field_error(
                f"limits.{name}",
                f"{value:,} is over this platform's cap of {cap:,} ({setting}).",
                error=CustomJobLimitTooHigh,
                cap=cap,
                setting=setting,
            )
        chosen[name] = value
    return {"wall_time_s": chosen["wall_time_s"], "memory_mb": chosen["memory_mb"], "cpus": chosen["cpus"]}


def _hyperparameters(values: dict[str, Any] | None) -> dict[str, HyperValue]:
    values = values or {}
    if len(values) > MAX_HYPERPARAMETERS:
        raise field_error(
            "hyperparameters", f"At most {MAX_HYPERPARAMETERS} hyperparameters.", error=CustomJobInvalid
        )
    checked: dict[str, HyperValue] = {}
    for name, value in values.items():
        if not isinstance(name, str) or not HYPERPARAMETER_NAME.match(name):
            raise field_error(
                "hyperparameters",
                f"{name!r} is not a usable hyperparameter name: letters, digits and _, not starting with "
                "a digit (it is passed as --name=value).",
                error=CustomJobInvalid,
            )
        if not isinstance(value, str | int | float | bool):
            raise field_error(
                f"hyperparameters.{name}", "Must be a string, a number or true/false.", error=CustomJobInvalid
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise field_error(f"hyperparameters.{name}", "Must be a finite number.", error=CustomJobInvalid)
        checked[name] = value
    return checked


def _args(args: list[Any] | None) -> list[str]:
    args = list(args or [])
    if len(args) > MAX_ARGS:
        raise field_error("args", f"At most {MAX_ARGS} arguments.", error=CustomJobInvalid)
    for index, arg in enumerate(args):
        if not isinstance(arg, str) or "\x00" in arg or len(arg) > MAX_ARG_CHARS:
            raise field_error(
                f"args.{index}",
                f"Each argument is text of at most {MAX_ARG_CHARS} characters.",
                error=CustomJobInvalid,
            )
    return args


def custom_job_spec(
    *,
    code_archive: CodeArchive,
    entry_point: str | None = None,
    args: list[str] | None = None,
    hyperparameters: dict[str, Any] | None = None,
    requirements: str | None = None,
    queue: str = "cpu",
    limits: dict[str, Any] | None = None,
    network: bool | None = None,
    objective: dict[str, str] | None = None,
) -> CustomJobSpec:
    """The run's spec, every field checked (400 ``custom_job_invalid`` / ``custom_job_limit_too_high``)."""
    paths = [f["path"] for f in code_archive.files]
    try:
        entry = (
            archives.resolve_entry_point(
                code_kind=code_archive.code_kind, paths=paths, entry_point=entry_point
            )
            if entry_point and entry_point.strip()
            else code_archive.entry_point
        )
    except archives.CodeArchiveInvalid as exc:
        raise CustomJobInvalid(exc.message, **exc.details) from None
    if not entry:
        raise field_error("entry_point", "The code names no entry point; give one.", error=CustomJobInvalid)
    if queue not in ("cpu", "gpu"):
        raise field_error("queue", "Use cpu or gpu.", error=CustomJobInvalid)
    reqs = code_archive.requirements if requirements is None else requirements
    if len(reqs) > MAX_REQUIREMENTS_CHARS or "\x00" in reqs:
        raise field_error(
            "requirements", f"At most {MAX_REQUIREMENTS_CHARS:,} characters of text.", error=CustomJobInvalid
        )
    spec: CustomJobSpec = {
        "kind": "custom_job_spec",
        "version": CUSTOM_JOB_SPEC_VERSION,
        "code_sha256": code_archive.sha256,
        "code_kind": code_archive.code_kind,  # type: ignore[typeddict-item]  # a CodeKind choice
        "entry_point": entry,
        "args": _args(args),
        "hyperparameters": _hyperparameters(hyperparameters),
        "requirements": reqs,
        "requirements_hash": requirements_hash(reqs),
        "limits": custom_job_limits(limits),
        "network": settings.SAMPAN_CUSTOM_JOB_NETWORK if network is None else bool(network),
        "queue": queue,  # type: ignore[typeddict-item]  # checked above
    }
    if objective is not None:
        spec["objective"] = objective
    return spec


@transaction.atomic
def custom_job_create(
    *,
    project: Project,
    code_archive: CodeArchive,
    entry_point: str | None = None,
    args: list[str] | None = None,
    hyperparameters: dict[str, Any] | None = None,
    requirements: str | None = None,
    dataset_version: DatasetVersion | None = None,
    queue: QueueName = "cpu",
    limits: dict[str, Any] | None = None,
    network: bool | None = None,
    name: str = "",
    objective: dict[str, str] | None = None,
    trial: int | None = None,
    user,
) -> Job:
    """Start a custom training job: the spec built and checked, then a ``training.custom`` job on
    ``queue`` with params ``{code_archive, spec, dataset_version, name}`` (+ ``trial``).

    e.g. ``custom_job_create(project=p, code_archive=a, hyperparameters={"lr": 0.01}, user=u)``
    """
    if code_archive.project_id != project.pk:
        raise field_error(
            "code_archive", "The code archive belongs to another project.", error=CustomJobInvalid
        )
    if dataset_version is not None and dataset_version.dataset.project_id != project.pk:
        raise field_error(
            "dataset_version", "The dataset version belongs to another project.", error=CustomJobInvalid
        )
    spec = custom_job_spec(
        code_archive=code_archive,
        entry_point=entry_point,
        args=args,
        hyperparameters=hyperparameters,
        requirements=requirements,
        queue=queue,
        limits=limits,
        network=network,
        objective=objective,
    )
    params: dict[str, Any] = {
        "code_archive": code_archive.pk,
        "spec": spec,
        "dataset_version": dataset_version.pk if dataset_version is not None else None,
        "name": (name or "").strip()[:200] or code_archive.name,
    }
    if trial is not None:
        params["trial"] = trial
    return job_create(
        workspace=project.workspace,
        project=project,
        kind="training.custom",
        params=params,
        user=user,
        queue=spec["queue"],
    )
