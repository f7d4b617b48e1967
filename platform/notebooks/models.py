from __future__ import annotations

from django.conf import settings
from django.db import models


class NotebookStatus(models.TextChoices):
    STARTING = "starting", "Starting"
    RUNNING = "running", "Running"
    STOPPING = "stopping", "Stopping"
    STOPPED = "stopped", "Stopped"
    FAILED = "failed", "Failed"


class Notebook(models.Model):
    """One user's notebook server for one project: run by a job on a worker host, reachable only by
    its owner (a per-notebook secret), its files kept in blob storage under ``storage_prefix``."""

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="notebooks")
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="notebooks")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notebooks")
    status = models.CharField(max_length=16, choices=NotebookStatus.choices, default=NotebookStatus.STARTING)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    url = models.CharField(
        max_length=500, blank=True, help_text="Where the server answers (without its secret)."
    )
    secret = models.CharField(
        max_length=128, blank=True, help_text="The server's token; shown only to the owner."
    )
    idle_timeout_s = models.PositiveIntegerField(default=3600)
    limits = models.JSONField(default=dict, help_text="workers.contracts.custom_code.ResourceLimits")
    storage_prefix = models.CharField(max_length=300, blank=True)
    stop_reason = models.CharField(max_length=300, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"notebook {self.pk} of {self.owner_id} in {self.project_id}"
