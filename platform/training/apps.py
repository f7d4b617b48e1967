from __future__ import annotations

from django.apps import AppConfig


class TrainingConfig(AppConfig):
    """Task templates, training jobs and model versions (built out by its own issue)."""

    name = "training"
    label = "training"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from training import kinds  # noqa: F401 - registers the training job kind
