"""Notebooks: start (a ``notebooks.serve`` job on a worker), stop (cancel that job), and what the job
records while it runs: running with its URL, activity, the user's files saved and restored, stopped
with its reason.

The user's files are one gzipped tar in blob storage at
``notebooks/<workspace>/<user>/<project>/files.tar.gz``: restored into the server's directory when
it starts, saved every ``SAVE_INTERVAL_S`` while it runs and when it stops.
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta
from typing import Any

from accounts.models import ApiToken
from accounts.services import IssuedToken, api_token_create
from config.exceptions import Conflict, InvalidInput
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from jobs import services as job_services
from jobs.models import FINISHED, Job, JobLogLine, JobStatus
from workspaces.models import WRITE_ROLES
from workspaces.permissions import require_role

from notebooks.models import Notebook, NotebookStatus
from notebooks.selectors import live_notebook
from workers.contracts.custom_code import ResourceLimits

logger = logging.getLogger("sampan.notebooks")

SAVE_INTERVAL_S = 30.0
ACTIVITY_WRITE_INTERVAL_S = 10.0
MIN_IDLE_TIMEOUT_S = 10
FILES_NAME = "files.tar.gz"


def storage_prefix(*, workspace_id: int, user_id: int, project_id: int) -> str:
    return f"notebooks/{workspace_id}/{user_id}/{project_id}/"


def files_key(notebook: Notebook) -> str:
    return f"{notebook.storage_prefix}{FILES_NAME}"


def notebook_limits(requested: dict[str, Any] | None) -> ResourceLimits:
    """The server's limits: the custom-job defaults and caps for memory and CPUs; its wall time (the
    server's lifetime) defaults to the notebook token's lifetime. Above a cap: a 400 naming it."""
    requested = dict(requested or {})
    unknown = sorted(set(requested) - {"wall_time_s", "memory_mb", "cpus"})
    if unknown:
        raise InvalidInput(
            f"Unknown limit {unknown[0]!r}; limits are wall_time_s, memory_mb and cpus.",
            code="invalid",
            field="limits",
        )
    defaults = {
        "wall_time_s": min(settings.SAMPAN_NOTEBOOK_TOKEN_TTL_S, settings.SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S),
        "memory_mb": settings.SAMPAN_CUSTOM_JOB_MEMORY_MB,
        "cpus": settings.SAMPAN_CUSTOM_JOB_CPUS,
    }
    caps = {
        "wall_time_s": ("SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S", settings.SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S),
        "memory_mb": ("SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB", settings.SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB),
        "cpus": ("SAMPAN_CUSTOM_JOB_MAX_CPUS", settings.SAMPAN_CUSTOM_JOB_MAX_CPUS),
    }
    limits: dict[str, int] = {}
    for name, default in defaults.items():
        value = requested.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(
                f"limits.{name} must be a positive whole number.", code="invalid", field="limits"
            )
        setting, cap = caps[name]
        if value > cap:
            raise InvalidInput(
                f"limits.{name} {value} is above the platform's cap of {cap} ({setting}).",
                code="custom_job_limit_too_high",
                field="limits",
            )
        limits[name] = value
    return ResourceLimits(
        wall_time_s=limits["wall_time_s"], memory_mb=limits["memory_mb"], cpus=limits["cpus"]
    )


@transaction.atomic
def notebook_start(
    *,
    user,
    project,
    idle_timeout_s: int | None = None,
    limits: dict[str, Any] | None = None,
    platform_url: str = "",
) -> tuple[Notebook, bool]:
    """Start the user's notebook in ``project``, or return their live one there (created=False).

    e.g. ``notebook_start(user=u, project=p, idle_timeout_s=600)`` -> (Notebook starting, True)
    """
    require_role(user=user, workspace_id=project.workspace_id, roles=WRITE_ROLES, action="start notebooks")
    existing = live_notebook(user=user, project=project)
    if existing is not None and not notebook_reconcile(notebook=existing):
        return existing, False
    chosen = notebook_limits(limits)
    if idle_timeout_s is None:
        idle = min(settings.SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S, chosen["wall_time_s"])
    else:
        idle = int(idle_timeout_s)
    if idle < MIN_IDLE_TIMEOUT_S or idle > chosen["wall_time_s"]:
        raise InvalidInput(
            f"idle_timeout_s must be between {MIN_IDLE_TIMEOUT_S} and the server's wall time "
            f"({chosen['wall_time_s']} s); got {idle}.",
            code="invalid",
            field="idle_timeout_s",
        )
    notebook = Notebook.objects.create(
        workspace_id=project.workspace_id,
        project=project,
        owner=user,
        status=NotebookStatus.STARTING,
        secret=secrets.token_urlsafe(32),
        idle_timeout_s=idle,
        limits=dict(chosen),
        storage_prefix=storage_prefix(
            workspace_id=project.workspace_id, user_id=user.pk, project_id=project.pk
        ),
    )
    url = (settings.SAMPAN_NOTEBOOK_PLATFORM_URL or platform_url or "").rstrip("/")
    params: dict[str, Any] = {"notebook": notebook.pk}
    if url:
        params["platform_url"] = url
    job = job_services.job_create(
        workspace=project.workspace,
        project=project,
        kind="notebooks.serve",
        params=params,
        user=user,
        max_attempts=1,
    )
    notebook.job = job
    notebook.save(update_fields=["job"])
    return notebook, True


def notebook_reconcile(*, notebook: Notebook) -> bool:
    """A notebook whose server job ended without saying so (its worker died; the reaper failed the
    job) is marked failed with the job's reason. True when it was."""
    if notebook.status in (NotebookStatus.STOPPED, NotebookStatus.FAILED) or notebook.job_id is None:
        return False
    job = Job.objects.filter(pk=notebook.job_id).only("status", "error").first()
    if job is None or job.status not in FINISHED:
        return False
    if job.status == JobStatus.CANCELLED:
        status, reason = NotebookStatus.STOPPED, "stopped by its owner"
    else:
        status, reason = NotebookStatus.FAILED, f"its server's job ended ({job.status}): {job.error}".strip()
    changed = Notebook.objects.filter(pk=notebook.pk, status=notebook.status).update(
        status=status, stop_reason=reason[:300], stopped_at=timezone.now()
    )
    if changed:
        notebook.refresh_from_db()
    return bool(changed)


@transaction.atomic
def notebook_stop(*, notebook: Notebook) -> Notebook:
    """Stop a notebook: its job is cancelled; the worker saves the files, revokes the token and
    marks it stopped within a few seconds. A notebook that never started stops at once."""
    notebook = Notebook.objects.select_for_update().get(pk=notebook.pk)
    if notebook.status in (NotebookStatus.STOPPED, NotebookStatus.FAILED):
        raise Conflict(
            f"Notebook {notebook.pk} is already {notebook.status}; start a new one instead.",
            code="notebook_unavailable",
        )
    job = Job.objects.filter(pk=notebook.job_id).first() if notebook.job_id else None
    if job is not None and job.status not in FINISHED:
        job = job_services.job_cancel(job=job)
    if job is None or job.status in FINISHED:
        _finish(notebook, NotebookStatus.STOPPED, "stopped by its owner")
    elif notebook.status != NotebookStatus.STOPPING:
        notebook.status = NotebookStatus.STOPPING
        notebook.save(update_fields=["status"])
    return notebook


def _finish(notebook: Notebook, status: str, reason: str) -> None:
    notebook.status = status
    notebook.stop_reason = reason[:300]
    notebook.stopped_at = timezone.now()
    notebook.save(update_fields=["status", "stop_reason", "stopped_at"])


# --- what the notebooks.serve job records ------------------------------------------------------------


def notebook_token_name(notebook: Notebook) -> str:
    return f"notebook {notebook.pk}"


def notebook_token_issue(*, notebook: Notebook) -> IssuedToken:
    """A personal API token for the owner, good for ``SAMPAN_NOTEBOOK_TOKEN_TTL_S`` (the SDK's key
    inside the notebook); revoked when the server stops."""
    expires = timezone.now() + timedelta(seconds=settings.SAMPAN_NOTEBOOK_TOKEN_TTL_S)
    return api_token_create(user=notebook.owner, name=notebook_token_name(notebook), expires_at=expires)


def notebook_tokens_revoke(*, notebook: Notebook) -> int:
    return ApiToken.objects.filter(
        user_id=notebook.owner_id, name=notebook_token_name(notebook), revoked_at__isnull=True
    ).update(revoked_at=timezone.now())


def notebook_files_restore(*, notebook: Notebook) -> bytes | None:
    """The saved files' archive (None when this user never saved files in this project)."""
    key = files_key(notebook)
    if not default_storage.exists(key):
        return None
    with default_storage.open(key, "rb") as fh:
        return fh.read()


def notebook_files_save(*, notebook: Notebook, archive: bytes) -> None:
    key = files_key(notebook)
    if default_storage.exists(key):
        default_storage.delete(key)
    default_storage.save(key, ContentFile(archive, name=FILES_NAME))


def notebook_mark_running(*, notebook: Notebook, url: str) -> None:
    now = timezone.now()
    Notebook.objects.filter(pk=notebook.pk).update(
        status=NotebookStatus.RUNNING, url=url, started_at=now, last_activity_at=now
    )


def notebook_record_activity(*, notebook: Notebook, at) -> None:
    Notebook.objects.filter(pk=notebook.pk).update(last_activity_at=at)


def notebook_mark_finished(*, notebook: Notebook, failed: bool, reason: str) -> None:
    Notebook.objects.filter(pk=notebook.pk).update(
        status=NotebookStatus.FAILED if failed else NotebookStatus.STOPPED,
        stop_reason=reason[:300],
        stopped_at=timezone.now(),
    )


def job_log_lines_add(*, job: Job, lines: list[tuple[str, str]], first_seq: int) -> int:
    """Append the server's output lines to the job's log; returns the next sequence number."""
    JobLogLine.objects.bulk_create(
        [
            JobLogLine(job=job, seq=first_seq + i, stream=stream, text=text[:4000])
            for i, (stream, text) in enumerate(lines)
        ],
        ignore_conflicts=True,
    )
    return first_seq + len(lines)
