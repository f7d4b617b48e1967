from __future__ import annotations

from django.apps import AppConfig


class NotebooksConfig(AppConfig):
    """Notebooks: a user's JupyterLab server on a worker host, with the SDK configured for them."""

    name = "notebooks"
    label = "notebooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from notebooks import kinds  # noqa: F401 - registers the notebook server job kind
