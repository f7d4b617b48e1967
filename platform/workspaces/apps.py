from __future__ import annotations

from django.apps import AppConfig


class WorkspacesConfig(AppConfig):
    """Workspaces (the tenant boundary), their members and roles, and projects."""

    name = "workspaces"
    label = "workspaces"
    default_auto_field = "django.db.models.BigAutoField"
