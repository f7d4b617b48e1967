from __future__ import annotations

from django.apps import AppConfig


class DeployConfig(AppConfig):
    """Deployments (hosted prediction endpoints), their API keys and usage, and downloadable packages."""

    name = "deploy"
    label = "deploy"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from deploy import kinds  # noqa: F401 - registers the deploy.build_package job kind
        from deploy.api import authentication  # noqa: F401 - registers the OpenAPI auth extension
