from __future__ import annotations

from django.conf import settings
from django.db import models


class CodeKind(models.TextChoices):
    SCRIPT = "script", "A Python script (.py)"
    ZIP = "zip", "A zip of a folder (scripts, modules, data files)"
    NOTEBOOK = "notebook", "A Jupyter notebook (.ipynb)"


class CodeArchive(models.Model):
    """A user's training code as uploaded (immutable: a change is a new archive). The blob keeps the
    file as sent; ``files`` lists what it holds, ``entry_point`` the default file or module to run."""

    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="code_archives"
    )
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="code_archives")
    name = models.CharField(max_length=200)
    filename = models.CharField(max_length=255, help_text="The uploaded file's name.")
    code_kind = models.CharField(max_length=16, choices=CodeKind.choices)
    blob_key = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64, db_index=True)
    size_bytes = models.PositiveBigIntegerField()
    files = models.JSONField(default=list, help_text="[{path, size_bytes}] of what the code holds.")
    entry_point = models.CharField(
        max_length=300, blank=True, help_text="The file or module a job runs unless it names another."
    )
    requirements = models.TextField(
        blank=True, help_text="requirements.txt found in the code (a job may add or replace it)."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.name}"
