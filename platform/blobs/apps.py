from __future__ import annotations

from django.apps import AppConfig


class BlobsConfig(AppConfig):
    """Blob storage housekeeping: each app's declared references and the garbage collector."""

    name = "blobs"
    label = "blobs"
    default_auto_field = "django.db.models.BigAutoField"
