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
    sticky_traffic = models.BooleanField(
        default=False,
        help_text="With canaries: every request of one API key goes to the same model version "
        "(chosen from the key, so it holds in every web process).",
    )
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
    TRAFFIC = "traffic", "Traffic split changed"
    PROMOTE = "promote", "Canary promoted"
    SHADOW = "shadow", "Shadow changed"
    CAPTURE = "capture", "Request capture changed"


class DeploymentEvent(models.Model):
    """The deployment's history: which model version it served from when, and who changed it."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=16, choices=DeploymentEventAction.choices)
    model_version = models.ForeignKey(
        "training.ModelVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    details = models.JSONField(
        default=dict,
        blank=True,
        help_text="What changed (workers.contracts.deployments.DeploymentEventDetails): the traffic "
        "split after the change, the shadow version, the capture policy.",
    )

    class Meta:
        ordering = ["id"]


class TrafficRole(models.TextChoices):
    CANARY = "canary", "Canary"
    SHADOW = "shadow", "Shadow"


class DeploymentTraffic(models.Model):
    """A model version a deployment serves beside its primary one (``Deployment.model_version``):
    a canary answering ``weight`` percent of the requests, or the shadow, which gets a copy of
    every request and whose answer is compared with the served one, never returned. The primary
    answers what the canaries leave (100 - the sum of their weights)."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="traffic")
    # RESTRICT as Deployment.model_version: a version cannot be deleted while it serves traffic
    model_version = models.ForeignKey(
        "training.ModelVersion", on_delete=models.RESTRICT, related_name="deployment_traffic"
    )
    role = models.CharField(max_length=16, choices=TrafficRole.choices)
    weight = models.PositiveSmallIntegerField(
        default=0, help_text="Percent of the requests (a canary: 1-99); 0 for the shadow."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["deployment", "model_version"], name="deployment_traffic_version_unique"
            ),
            models.UniqueConstraint(
                fields=["deployment"],
                condition=models.Q(role="shadow"),
                name="deployment_one_shadow",
            ),
        ]


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
    model_version = models.ForeignKey(
        "training.ModelVersion",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The version that answered (null: rows written before traffic splits, or refused "
        "before a version was chosen).",
    )
    scores = models.JSONField(
        default=dict,
        blank=True,
        help_text="The answers' distribution: {bucket index: count} of the top-1 score "
        "(classification, detection) or of the value (regression); see deploy.usage.",
    )

    class Meta:
        # No unique constraint: each writer (one thread per web process) only rewrites its own rows.
        indexes = [models.Index(fields=["deployment", "minute"], name="usage_deployment_minute")]


class ShadowMinute(models.Model):
    """How the shadow's answers compared with the served ones in one minute, as written by one web
    process: instances compared, top-1 agreements, the sum of score (or value) deltas and their
    histogram, the shadow's errors and latency."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="shadow_usage")
    serving_version = models.ForeignKey(
        "training.ModelVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    shadow_version = models.ForeignKey(
        "training.ModelVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    minute = models.DateTimeField()
    writer = models.CharField(max_length=100)
    compared = models.PositiveIntegerField(default=0, help_text="Instances answered by both.")
    agreed = models.PositiveIntegerField(
        default=0, help_text="Same top-1 class (classification, detection: the same best box class)."
    )
    delta_sum = models.FloatField(
        default=0.0, help_text="Sum of |served - shadow| top-1 score (regression: value)."
    )
    delta_histogram = models.JSONField(default=dict, help_text="{bucket index: count} of the deltas.")
    errors = models.PositiveIntegerField(default=0)
    latency_ms_sum = models.FloatField(default=0.0)

    class Meta:
        indexes = [models.Index(fields=["deployment", "minute"], name="shadow_deployment_minute")]


class CapturePolicy(models.Model):
    """What a deployment keeps of the requests it answers (off by default). An answered instance is
    eligible when no filter is set or any set filter matches it; an eligible instance is kept with
    probability ``sample_rate``, while the deployment's captures stay under ``max_bytes``."""

    deployment = models.OneToOneField(Deployment, on_delete=models.CASCADE, related_name="capture")
    enabled = models.BooleanField(default=False)
    sample_rate = models.FloatField(default=0.1, help_text="Share of the eligible instances kept, 0-1.")
    retention_days = models.PositiveIntegerField(default=7, help_text="Captures older are deleted.")
    max_bytes = models.PositiveBigIntegerField(
        default=100 * 1024 * 1024, help_text="The size cap of the kept inputs; none kept beyond it."
    )
    low_confidence_below = models.FloatField(
        null=True, blank=True, help_text="Filter: the top-1 score is below this."
    )
    shadow_disagreement = models.BooleanField(
        default=False, help_text="Filter: the shadow's top-1 class differs from the served one."
    )
    labels = models.JSONField(
        default=list, blank=True, help_text="Filter: the served top-1 class is one of these names."
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)


class CaptureReason(models.TextChoices):
    SAMPLED = "sampled", "Sampled (no filter)"
    LOW_CONFIDENCE = "low_confidence", "Low confidence"
    DISAGREEMENT = "disagreement", "Disagreed with the shadow"
    LABEL = "label", "Predicted label"


class CapturedRequest(models.Model):
    """One captured instance of a prediction request: its input (a blob: the image's bytes, the text
    or the row as JSON), the served answer and, with a shadow, the shadow's answer."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="captures")
    model_version = models.ForeignKey(
        "training.ModelVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    key = models.ForeignKey(DeploymentKey, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField()
    reason = models.CharField(max_length=16, choices=CaptureReason.choices)
    data_kind = models.CharField(max_length=16, help_text="image, text or row.")
    blob_key = models.CharField(max_length=300)
    content_type = models.CharField(max_length=100, blank=True)
    size_bytes = models.PositiveIntegerField(default=0)
    answer = models.JSONField(help_text="The served prediction entry (workers.contracts.prediction).")
    top_label = models.CharField(max_length=200, blank=True)
    top_score = models.FloatField(null=True, blank=True)
    value = models.FloatField(null=True, blank=True, help_text="Regression: the served value.")
    shadow_version = models.ForeignKey(
        "training.ModelVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    shadow_answer = models.JSONField(null=True, blank=True)
    sent_to_sample = models.ForeignKey(
        "datasets.Sample", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["deployment", "at"], name="capture_deployment_at")]


class BatchSourceKind(models.TextChoices):
    DATASET_VERSION = "dataset_version", "A dataset version (a split or all)"
    DATASET = "dataset", "A whole dataset"
    UPLOAD = "upload", "An uploaded archive, CSV, JSONL or Parquet file"


class BatchStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class BatchPrediction(models.Model):
    """A ``deploy.batch_predict`` job's record: a model version's predictions over a dataset
    version (a split or all), a whole dataset or an uploaded file, with its lineage (model version,
    input, parameters), its result files (JSONL, CSV; Parquet for tables) and its summary
    (workers.contracts.batch.BatchPredictionSummary: counts, errors, throughput and, on labeled
    input, the metrics)."""

    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="batch_predictions"
    )
    project = models.ForeignKey(
        "workspaces.Project", on_delete=models.CASCADE, related_name="batch_predictions"
    )
    model_version = models.ForeignKey(
        "training.ModelVersion", on_delete=models.CASCADE, related_name="batch_predictions"
    )
    deployment = models.ForeignKey(
        Deployment,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="batch_predictions",
        help_text="The deployment it was started from, if any.",
    )
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="batch_prediction"
    )
    status = models.CharField(max_length=16, choices=BatchStatus.choices, default=BatchStatus.QUEUED)
    source_kind = models.CharField(max_length=16, choices=BatchSourceKind.choices)
    dataset_version = models.ForeignKey(
        "datasets.DatasetVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    split = models.CharField(max_length=16, blank=True, help_text="train, val or test; blank: all.")
    dataset = models.ForeignKey(
        "datasets.Dataset", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    upload_key = models.CharField(max_length=300, blank=True)
    upload_name = models.CharField(max_length=255, blank=True)
    upload_size = models.PositiveBigIntegerField(null=True, blank=True)
    upload_sha256 = models.CharField(max_length=64, blank=True)
    params = models.JSONField(
        default=dict, blank=True, help_text="workers.contracts.batch.BatchPredictionParams as asked."
    )
    files = models.JSONField(
        default=dict, blank=True, help_text="{format: {key, size_bytes, sha256}} of the results."
    )
    summary = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.project_id}: batch of {self.model_version_id}"


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


class TargetProfile(models.Model):
    """A deployment target a workspace registered: the runtime and thread settings a model will run
    with there, how much slower than this worker's CPU that device is (``slowdown``), and optional
    budgets. Studies and training jobs measure latency with it (``workers.deployment_targets``).
    The builtin profiles (``BUILTIN_TARGETS``: worker-cpu, worker-cpu-4t, edge-arm-slow) are not rows;
    a workspace's profile may not take a builtin's name."""

    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="target_profiles"
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    runtime = models.CharField(max_length=32, default="onnxruntime")
    execution_provider = models.CharField(max_length=64, default="CPUExecutionProvider")
    intra_op_threads = models.PositiveIntegerField(default=1)
    inter_op_threads = models.PositiveIntegerField(default=1)
    batch_size = models.PositiveIntegerField(default=1)
    slowdown = models.FloatField(
        default=1.0, help_text="Target latency = latency measured on the worker x slowdown (1.0: the worker)."
    )
    latency_budget_ms = models.FloatField(null=True, blank=True)
    size_budget_bytes = models.BigIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="target_profile_name_unique")
        ]

    def __str__(self) -> str:
        return f"target {self.name}"

    def as_profile(self) -> dict:
        """The profile's contract (``workers.contracts.targets.TargetProfile``)."""
        return {
            "kind": "target_profile",
            "version": 1,
            "name": self.name,
            "description": self.description,
            "runtime": self.runtime,
            "execution_provider": self.execution_provider,
            "intra_op_threads": self.intra_op_threads,
            "inter_op_threads": self.inter_op_threads,
            "batch_size": self.batch_size,
            "slowdown": self.slowdown,
            "latency_budget_ms": self.latency_budget_ms,
            "size_budget_bytes": self.size_budget_bytes,
        }
