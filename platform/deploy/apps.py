from __future__ import annotations

from django.apps import AppConfig


class DeployConfig(AppConfig):
    """Deployments, API keys and usage (built out by its own issue)."""

    name = "deploy"
    label = "deploy"
    default_auto_field = "django.db.models.BigAutoField"
