from __future__ import annotations

from django.apps import AppConfig


class DeployConfig(AppConfig):
    """Deployments (hosted prediction endpoints), their API keys and usage, and downloadable packages."""

    name = "deploy"
    label = "deploy"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from deploy import kinds  # noqa: F401 - registers the deploy.build_package job kind
        from deploy.api import authentication  # noqa: F401 - registers the OpenAPI auth extension
        from deploy.capture_services import captured_request_deleted

        # a captured request's input leaves blob storage with its row, however the row is deleted
        post_delete.connect(captured_request_deleted, sender="deploy.CapturedRequest", weak=False)
