from __future__ import annotations

from django.conf import settings
from django.db import models


class ModelVersion(models.Model):
    """A trained model (V1, V2, ... per project) with its full lineage: which dataset version,
    template, preset, parameters and code made it, the job that trained it, its artifacts,
    metrics and evaluation report."""

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="model_versions")
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="model_versions")
    number = models.PositiveIntegerField()
    dataset_version = models.ForeignKey("datasets.DatasetVersion", null=True, on_delete=models.SET_NULL,
                                        related_name="model_versions")
    job = models.OneToOneField("jobs.Job", null=True, on_delete=models.SET_NULL, related_name="model_version")
    template = models.CharField(max_length=64)
    preset = models.CharField(max_length=32)
    params = models.JSONField(default=dict, help_text="Every parameter the trainer used, after preset and overrides.")
    code_version = models.CharField(max_length=64, help_text="Sampan version (and git commit when known).")
    classes = models.JSONField(default=list)
    preprocessing = models.JSONField(default=dict, help_text="What the ONNX model expects; serving reproduces it.")
    checkpoint_key = models.CharField(max_length=300, blank=True)
    onnx_key = models.CharField(max_length=300, blank=True)
    onnx_sha256 = models.CharField(max_length=64, blank=True)
    metrics = models.JSONField(default=dict, help_text="Headline test metrics and the training summary.")
    evaluation = models.JSONField(default=dict, help_text="The full evaluation report on the test split.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["project", "number"], name="model_version_number_unique")]

    @property
    def name(self) -> str:
        return f"V{self.number}"

    def __str__(self) -> str:
        return f"{self.project_id}:{self.name}"
