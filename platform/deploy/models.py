from __future__ import annotations

from django.conf import settings
from django.db import models


class DeploymentStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    STOPPED = "stopped", "Stopped"


class Deployment(models.Model):
    """A hosted prediction endpoint serving one model version of a project.

    ``serving_stamp`` changes with everything the endpoint's answer depends on (status, model
    version, keys): web processes cache a deployment's serving state and reload it when the stamp
    they read differs from the one they hold.
    """

    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="deployments"
    )
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="deployments")
    name = models.CharField(max_length=200)
    # RESTRICT, not PROTECT: a model version cannot be deleted while deployed, but deleting its project or
    # workspace deletes both.
    model_version = models.ForeignKey(
        "training.ModelVersion", on_delete=models.RESTRICT, related_name="deployments"
    )
    previous_model_version = models.ForeignKey(
        "training.ModelVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(
        max_length=16, choices=DeploymentStatus.choices, default=DeploymentStatus.ACTIVE
    )
    serving_stamp = models.PositiveBigIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="deployment_name_unique")]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.name}"


class DeploymentEventAction(models.TextChoices):
    CREATE = "create", "Created"
    SWITCH = "switch", "Switched"
    ROLLBACK = "rollback", "Rolled back"
    STOP = "stop", "Stopped"
    START = "start", "Started"


class DeploymentEvent(models.Model):
    """The deployment's history: which model version it served from when, and who changed it."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=16, choices=DeploymentEventAction.choices)
    model_version = models.ForeignKey(
        "training.ModelVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class DeploymentKey(models.Model):
    """An API key of one deployment. Only its sha256 digest is stored; the key is shown once."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="keys")
    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=16, help_text="The key's first characters, to recognise it.")
    digest = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    quota_per_minute = models.PositiveIntegerField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.deployment_id}:{self.name} ({self.prefix}...)"


class UsageMinute(models.Model):
    """Calls, errors and a latency histogram of one deployment (and key) in one minute, as written by
    one web process (``writer``); a window's figures are the sums over its rows."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="usage")
    key = models.ForeignKey(DeploymentKey, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    minute = models.DateTimeField()
    writer = models.CharField(max_length=100)
    calls = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    latency_ms_sum = models.FloatField(default=0.0)
    histogram = models.JSONField(default=dict, help_text="{bucket index: count}; see deploy.usage.")

    class Meta:
        # No unique constraint: each writer (one thread per web process) only rewrites its own rows.
        indexes = [models.Index(fields=["deployment", "minute"], name="usage_deployment_minute")]


class PackageKind(models.TextChoices):
    SERVER = "server", "On-prem server package"
    DEVICE = "device", "Device SDK"


class Package(models.Model):
    """A downloadable archive of a model version (on-prem server or device SDK), built by a job."""

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="packages")
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="packages")
    model_version = models.ForeignKey(
        "training.ModelVersion", on_delete=models.CASCADE, related_name="packages"
    )
    kind = models.CharField(max_length=16, choices=PackageKind.choices)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    blob_key = models.CharField(max_length=300, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    size_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    built_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.kind} of {self.model_version_id}"
