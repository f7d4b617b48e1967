from __future__ import annotations

from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    """Datasets, samples, labels, imports and dataset versions (the data service)."""

    name = "datasets"
    label = "datasets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from datasets import kinds  # noqa: F401 - registers the datasets.import job kind
        from datasets.images import configure_pillow

        configure_pillow(max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS)
