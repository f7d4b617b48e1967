from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Background jobs: the row is the truth; Celery only carries the message."""

    name = "jobs"
    label = "jobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from jobs import host_cache, kinds, worker_heartbeat  # noqa: F401 - registration and signal hookup
