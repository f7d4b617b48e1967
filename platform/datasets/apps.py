from __future__ import annotations

from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    """Datasets, samples, labels and dataset versions (built out by its own issue)."""

    name = "datasets"
    label = "datasets"
    default_auto_field = "django.db.models.BigAutoField"
