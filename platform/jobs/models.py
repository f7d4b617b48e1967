from __future__ import annotations

from django.conf import settings
from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED = frozenset({JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED})


class Job(models.Model):
    """One piece of background work. This row, not Celery, is the record of what happened.

    queued -> running -> succeeded | failed | cancelled; running -> queued when the reaper finds
    the worker gone (heartbeat stale) and attempts remain.
    """

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="jobs")
    project = models.ForeignKey(
        "workspaces.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    kind = models.CharField(max_length=64, db_index=True)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True
    )
    queue = models.CharField(max_length=32, default="cpu")
    attempt = models.PositiveIntegerField(default=0, help_text="Starts so far; the running attempt's number.")
    max_attempts = models.PositiveIntegerField(default=3)
    lease_owner = models.CharField(
        max_length=200, blank=True, help_text="Worker process holding the job (host/pid)."
    )
    lease_node = models.CharField(
        max_length=200,
        blank=True,
        help_text="The Celery worker (node name) whose pool process holds the job.",
    )
    heartbeat_at = models.DateTimeField(null=True, blank=True, db_index=True)
    cancel_requested = models.BooleanField(default=False)
    preempt_requested = models.BooleanField(
        default=False,
        help_text="Its worker is shutting down: checkpoint, hand the job back, requeue at once.",
    )
    progress = models.JSONField(default=dict, blank=True, help_text="The latest progress report.")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the broker accepted its message; null while it still has to be sent.",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "heartbeat_at"], name="job_status_heartbeat")]

    def __str__(self) -> str:
        return f"job {self.pk} {self.kind} {self.status}"


class JobEventType(models.TextChoices):
    STATUS = "status", "Status"
    PROGRESS = "progress", "Progress"
    LOG = "log", "Log"


class JobEvent(models.Model):
    """Append-only history of a job: status changes, the progress series, notable log lines."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(auto_now_add=True)
    type = models.CharField(max_length=16, choices=JobEventType.choices)
    message = models.CharField(max_length=500, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["job", "type", "id"], name="jobevent_job_type")]


class JobLogStream(models.TextChoices):
    STDOUT = "stdout", "Standard output"
    STDERR = "stderr", "Standard error"
    SYSTEM = "system", "The platform's own lines (limits, stops, installs)"


class JobLogLine(models.Model):
    """One line a job's process wrote (custom code, notebook servers), numbered per job; kept after
    the job ends and served to the job's workspace only (GET /api/v1/jobs/{id}/logs/)."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="log_lines")
    seq = models.PositiveIntegerField()
    stream = models.CharField(max_length=8, choices=JobLogStream.choices)
    text = models.TextField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["job", "seq"]
        constraints = [models.UniqueConstraint(fields=["job", "seq"], name="joblogline_job_seq")]


class WorkerNode(models.Model):
    """A live Celery worker host, kept fresh by a heartbeat thread in the worker's main process."""

    hostname = models.CharField(max_length=200, unique=True)
    queues = models.JSONField(default=list)
    devices = models.JSONField(default=dict)
    concurrency = models.PositiveIntegerField(default=1)
    pid = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["hostname"]


class IdempotencyRecord(models.Model):
    """The answer to a POST sent with an ``Idempotency-Key`` header, replayed to a retry of it."""

    principal = models.CharField(
        max_length=128, help_text="Who asked: user id or a digest of the credentials."
    )
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=500)
    status_code = models.PositiveIntegerField(
        null=True, blank=True, help_text="Null while the first request runs."
    )
    content_type = models.CharField(max_length=200, blank=True)
    body = models.BinaryField(default=b"")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["principal", "key"], name="idempotency_principal_key")]


class WorkspaceLimits(models.Model):
    """What one workspace may run at once, set by an administrator (Django admin or
    PUT /api/v1/workspaces/{id}/limits/, staff only). A null limit falls back to the installation's
    default (SAMPAN_WORKSPACE_MAX_JOBS, SAMPAN_WORKSPACE_MAX_GPU_JOBS; 0 there: unlimited).

    A queued job over its workspace's limit is not handed to a worker; it waits (queue_state reason
    ``workspace_limit``) until one of the workspace's jobs ends."""

    workspace = models.OneToOneField(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="job_limits", primary_key=True
    )
    max_jobs = models.PositiveIntegerField(
        null=True, blank=True, help_text="Jobs running at once (null: the default; 0: unlimited)."
    )
    max_gpu_jobs = models.PositiveIntegerField(
        null=True, blank=True, help_text="Jobs on the gpu queue at once (null: the default; 0: unlimited)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "workspace limits"

    def __str__(self) -> str:
        return f"limits of workspace {self.workspace_id}"
