from __future__ import annotations

from django.apps import AppConfig


class AutomlConfig(AppConfig):
    """Hyperparameter studies: trials run as jobs on any number of workers, sharing Optuna's storage."""

    name = "automl"
    label = "automl"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from automl import kinds  # noqa: F401 - registers the AutoML job kinds
