from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Users, browser sessions and API tokens."""

    name = "accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import (
            schema,  # noqa: F401 - registers the OpenAPI auth extensions
            throttle,  # noqa: F401 - counts failed logins (signal receivers)
        )
