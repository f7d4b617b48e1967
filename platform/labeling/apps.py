from __future__ import annotations

from django.apps import AppConfig


class LabelingConfig(AppConfig):
    """Smart labeling (suggestions from a quick model, ranked for labeling next) and team labeling
    (tasks assigned to annotators, review, agreement)."""

    name = "labeling"
    label = "labeling"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from labeling import kinds  # noqa: F401 - registers the labeling job kinds
