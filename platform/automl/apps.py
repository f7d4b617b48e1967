from __future__ import annotations

from django.apps import AppConfig


class AutomlConfig(AppConfig):
    """Hyperparameter studies and the SDE sampler (built out by its own issue)."""

    name = "automl"
    label = "automl"
    default_auto_field = "django.db.models.BigAutoField"
