from __future__ import annotations

from django.conf import settings
from django.db import models


class ModelVersionSource(models.TextChoices):
    TRAINED = "trained", "Trained on the platform"
    UPLOADED = "uploaded", "Uploaded (bring your own model)"
    CUSTOM = "custom", "Trained by custom code on the platform"
    COMPRESSED = "compressed", "Compressed from another model version"


class ModelVersion(models.Model):
    """A trained model (V1, V2, ... per project) with its full lineage: which dataset version,
    template, preset, parameters and code made it, the job that trained it, its artifacts,
    metrics and evaluation report."""

    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="model_versions"
    )
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="model_versions")
    number = models.PositiveIntegerField()
    source = models.CharField(
        max_length=16,
        choices=ModelVersionSource.choices,
        default=ModelVersionSource.TRAINED,
        help_text="trained: by a training job here; uploaded: an ONNX file or a state_dict "
        "a developer brought (its file, format and sha256 in params); custom: by a custom training "
        "job (its code, requirements, arguments and environment in lineage); compressed: by a "
        "compression job from the version in compressed_from (recipe and teacher in lineage).",
    )
    dataset_version = models.ForeignKey(
        "datasets.DatasetVersion", null=True, on_delete=models.SET_NULL, related_name="model_versions"
    )
    job = models.OneToOneField("jobs.Job", null=True, on_delete=models.SET_NULL, related_name="model_version")
    template = models.CharField(max_length=64)
    preset = models.CharField(max_length=32)
    params = models.JSONField(
        default=dict, help_text="Every parameter the trainer used, after preset and overrides."
    )
    code_version = models.CharField(max_length=64, help_text="Sampan version (and git commit when known).")
    classes = models.JSONField(default=list)
    preprocessing = models.JSONField(
        default=dict, help_text="What the ONNX model expects; serving reproduces it."
    )
    checkpoint_key = models.CharField(max_length=300, blank=True)
    onnx_key = models.CharField(max_length=300, blank=True)
    onnx_sha256 = models.CharField(max_length=64, blank=True)
    backbone = models.JSONField(
        null=True,
        blank=True,
        help_text="The uploaded backbone the run started from "
        "({id, name, sha256, tensors}); null when trained from scratch. Kept when the "
        "backbone is deleted.",
    )
    warm_start_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The model version whose weights this run started from (retrain from a version).",
    )
    compressed_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="compressed_versions",
        help_text="The model version this one was compressed from (source compressed).",
    )
    lineage = models.JSONField(
        null=True,
        blank=True,
        help_text="A custom-code model version's lineage (workers.contracts.custom_code.CustomJobLineage) "
        "or a compressed one's (workers.contracts.compression_report.CompressionLineage); null otherwise.",
    )
    metrics = models.JSONField(default=dict, help_text="Headline test metrics and the training summary.")
    evaluation = models.JSONField(default=dict, help_text="The full evaluation report on the test split.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="model_version_number_unique")
        ]

    @property
    def name(self) -> str:
        return f"V{self.number}"

    def __str__(self) -> str:
        return f"{self.project_id}:{self.name}"


class BackboneStatus(models.TextChoices):
    PENDING = "pending", "Being checked"
    VALID = "valid", "Valid"
    INVALID = "invalid", "Invalid"


class Backbone(models.Model):
    """A state_dict a user uploaded to initialise training runs from (transfer learning).

    The web process never unpickles it: a ``training.check_backbone`` job on a worker reads it with
    ``weights_only=True`` and records ``valid`` with a summary, or ``invalid`` with the reason.
    The file is stored content-addressed (``backbones/<sha256>.pt``), shared by equal uploads.
    """

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="backbones")
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="backbones")
    name = models.CharField(max_length=200)
    filename = models.CharField(max_length=255, blank=True, help_text="The uploaded file's name.")
    blob_key = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.PositiveBigIntegerField()
    status = models.CharField(max_length=16, choices=BackboneStatus.choices, default=BackboneStatus.PENDING)
    error = models.TextField(blank=True, help_text="Why the file was refused (status invalid).")
    summary = models.JSONField(
        default=dict,
        blank=True,
        help_text="For a valid file: architecture (the model it fits, or null), fits, "
        "tensors, parameters, head_classes, dtypes.",
    )
    job = models.ForeignKey(
        "jobs.Job",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The job that checks the file.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="backbone_name_unique")]

    @property
    def summary_or_none(self) -> dict | None:
        return self.summary if self.status == BackboneStatus.VALID else None

    def __str__(self) -> str:
        return f"{self.project_id}:{self.name}"


class Compression(models.Model):
    """A compression run of a model version: the recipes asked for (``spec``, a
    workers.contracts.compression.CompressionSpec), the job that runs them and, when it finished,
    the report (workers.contracts.compression_report.CompressionRunReport): the parent's and each
    variant's size, FLOPs, latency and metric, each variant recorded as a compressed model version."""

    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="compressions"
    )
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="compressions")
    parent = models.ForeignKey(ModelVersion, on_delete=models.CASCADE, related_name="compressions")
    teacher = models.ForeignKey(
        ModelVersion,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The model version distillation learns from; null: the parent.",
    )
    preset = models.CharField(
        max_length=16, blank=True, help_text="smaller, balanced, faster, distilled or blank."
    )
    spec = models.JSONField(help_text="The recipes, target profile and tolerance the job runs.")
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    report = models.JSONField(null=True, blank=True, help_text="Null until the job finished.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.project_id}:compression-{self.pk}"
