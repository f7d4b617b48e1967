from __future__ import annotations

from django.apps import AppConfig


class CustomJobsConfig(AppConfig):
    """Custom code: uploaded code archives (scripts, zips, notebooks) and the custom training jobs that
    run them in a sandbox on a worker, with their logs, metrics and the model version they make."""

    name = "customjobs"
    label = "customjobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from customjobs import kinds  # noqa: F401 - registers the custom training job kind
